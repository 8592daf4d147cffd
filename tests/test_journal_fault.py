"""A journal that cannot be written pauses the table, says so, and comes back (real `studio run`).

Two real causes: a file-size limit (RLIMIT_FSIZE set on the running table with `prlimit`, then
lifted) and a full filesystem (the journal on a small tmpfs, filled by another file, then
freed). While the journal fails, nothing is journalled and so nothing is acted on; the restricted
stream carries an alarm marked as not journalled; the table retries, says when the journal is
writable again, journals the fault (a paused table) and deals on after a manager's resume.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_controller_kit import CONFIGS, bench
from test_e2e_support import TableRig, table_rig

from drivers.shoe.readings import Receipt
from studio.bus import Subscriber
from studio.errors import JournalError
from studio.journal import Journal
from studio.messages import AlarmRaised, parse_input
from studio.messages.notices import JournalAlarm
from studio.messages.view import TableView
from studio.runtime.journal_guard import CardGate, JournalGuard

NO_CAMERA = '[camera]\nbackend = "none"\n'
"""The journal is what is tested: the synthetic camera's start-up learning is not needed."""


def _studio(rig: TableRig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studio.cli", *args],
        env=rig.env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def _manager(rig: TableRig, command: str) -> subprocess.CompletedProcess[str]:
    return _studio(rig, "command", command, "--key", str(rig.keys_dir / "shift-manager.key_secret"))


def _alarm(sub: Subscriber, state: str, timeout: float = 30.0) -> JournalAlarm:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sub.receive(timeout=0.2)
        for notice in sub.notices():
            if isinstance(notice, JournalAlarm) and notice.state == state:
                return notice
    pytest.fail(f"no journal alarm {state!r} within {timeout} s")


def _types_until(sub: Subscriber, wanted: str, timeout: float = 30.0) -> list[str]:
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = sub.receive(timeout=0.2)
        if event is None:
            continue
        seen.append(event.type)
        if event.type == wanted:
            return seen
    pytest.fail(f"no {wanted} within {timeout} s: {seen[-12:]}")


def _journalled_alarms(rig: TableRig) -> list[tuple[AlarmRaised, list[str]]]:
    """Each journalled AlarmRaised, with the kinds of the inputs journalled just before it."""
    found = []
    kinds: list[str] = []
    with Journal(rig.journal, readonly=True) as journal:
        for record in journal.records():
            if record.kind != "input":
                continue
            inp = parse_input(record.body)
            if isinstance(inp, AlarmRaised):
                found.append((inp, list(kinds)))
            kinds.append(inp.kind)
    return found


def _manager_resumes(rig: TableRig) -> None:
    """Follow what the resume blockers name (a card the shoe kept may come back out of turn)."""
    manager = str(rig.keys_dir / "shift-manager.key_secret")
    for _ in range(6):
        view = json.loads(_studio(rig, "status", "--json", "--key", manager).stdout)
        assert view["paused"] is True, view
        assert "journal_unwritable" in [i["kind"] for i in view["incidents"]]
        blockers = view["resume_blockers"]
        if not blockers:
            resumed = _manager(rig, "resume")
            assert resumed.stdout.strip() == "accepted", resumed.stdout + resumed.stderr
            return
        assert "discard" in blockers[0], blockers
        assert _manager(rig, "discard_last_card").stdout.strip() == "accepted"
    pytest.fail("the table stayed paused")


def _journal_size(rig: TableRig) -> int:
    parts = [rig.journal, rig.journal.with_name(rig.journal.name + "-wal")]
    return max(p.stat().st_size for p in parts if p.exists())


def _comes_back_after_a_resume(
    rig: TableRig, sub: Subscriber, since: JournalAlarm, filler: Path
) -> None:
    """The table answers commands with the fault; space freed, it pauses, resumes, deals on."""
    refused = _manager(rig, "call_manager")
    assert refused.returncode != 0
    assert "journal is not writable" in refused.stdout + refused.stderr
    filler.unlink()
    writable = _alarm(sub, "writable")
    assert writable.since == since.since and writable.journalled is False
    assert writable.refused >= 1  # at least the command above
    _types_until(sub, "incident_reported")
    time.sleep(0.5)  # the shoe sends what it kept
    _manager_resumes(rig)
    # Dealing goes on: the card the shoe kept comes again and rounds end.
    _types_until(sub, "round_result")
    _types_until(sub, "card_dealt")


def test_a_file_size_limit_pauses_the_table_until_lifted_and_resumed(tmp_path: Path) -> None:
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        proc = rig.start()
        with rig.subscriber("shift-manager", restricted=True) as sub:
            _types_until(sub, "card_dealt")
            # The running table may write no byte past the journal's current size.
            limit = _journal_size(rig) + 1
            resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
            since = _alarm(sub, "unwritable")
            assert since.journalled is False and "cannot write" in since.detail
            time.sleep(1.5)  # the table retries, and fails, meanwhile
            assert proc.poll() is None
            # Lifting the limit is "space freed" for a file-size limit.
            refused = _manager(rig, "call_manager")
            resource.prlimit(
                proc.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
            )
            assert "journal is not writable" in refused.stdout + refused.stderr
            writable = _alarm(sub, "writable")
            assert writable.since == since.since
            _types_until(sub, "incident_reported")
            time.sleep(0.5)  # the shoe sends what it kept
            _manager_resumes(rig)
            _types_until(sub, "round_result")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    alarms = _journalled_alarms(rig)
    assert len(alarms) == 1
    alarm, _ = alarms[0]
    assert alarm.cause == "journal_unwritable" and "refused" in alarm.detail
    verify = _studio(rig, "journal", "verify", str(rig.journal))
    assert verify.returncode == 0, verify.stdout + verify.stderr


@pytest.fixture(name="small_disk")
def small_disk_fixture() -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = Path(tempfile.mkdtemp(prefix="studio-journal-full-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        mount.rmdir()
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
        mount.rmdir()


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_a_full_filesystem_pauses_the_table_and_a_stop_meanwhile_exits_1(
    tmp_path: Path, small_disk: Path
) -> None:
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        rig.env["XDG_DATA_HOME"] = str(small_disk)
        proc = rig.start()
        with rig.subscriber("shift-manager", restricted=True) as sub:
            _types_until(sub, "card_dealt")
            filler = _fill(small_disk)
            since = _alarm(sub, "unwritable")
            assert since.journalled is False
            assert "full" in since.detail, since.detail
            assert proc.poll() is None
            # Recover once, the way a person would: free space, then a manager resumes.
            _comes_back_after_a_resume(rig, sub, since, filler)
            # Full again, and stopped while full: the exit status says the table failed.
            _fill(small_disk)
            _alarm(sub, "unwritable")
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert code == 1, err
        assert "journal" in err and "Traceback" not in err


def test_the_guard_says_the_fault_once_and_stamps_its_alarm_when_it_began() -> None:
    guard = JournalGuard("T01")
    t0 = datetime(2026, 12, 1, 8, tzinfo=UTC)
    first = guard.tripped(JournalError("disk full"), t0)
    assert first is not None and first.state == "unwritable" and first.since == t0
    assert guard.tripped(JournalError("disk full"), t0 + timedelta(seconds=1)) is None
    assert "not writable (disk full)" in guard.refused()
    alarm = guard.alarm_input(t0 + timedelta(seconds=60))
    # The pause freezes the timers where they stood when nothing more could be recorded.
    assert alarm.ts == t0 and "for 60.0 s" in alarm.detail and "1 input(s)" in alarm.detail
    back = guard.cleared(t0 + timedelta(seconds=60))
    assert back.state == "writable" and not guard.faulted
    assert (guard.counters.failures, guard.counters.refused, guard.counters.recovered) == (1, 1, 1)


def test_the_served_view_of_an_unwritable_journal_leads_with_its_typed_blocker() -> None:
    guard = JournalGuard("T01")
    t0 = datetime(2026, 12, 1, 8, tzinfo=UTC)
    b = bench(CONFIGS[0])
    b.start()
    b.wait(10.0)
    b.draw(None)  # already paused on an unreadable card
    view = b.view()
    assert guard.overlay(view) is view
    guard.tripped(JournalError("disk full"), t0)
    served = guard.overlay(view)
    first, *rest = served.blockers
    assert first.kind == "journal_unwritable" and first.device == "journal"
    # No command frees a disk: the blocker goes once the table journals the fault.
    assert first.actions == ()
    assert tuple(rest) == view.blockers
    assert served.resume_blockers == tuple(b.words for b in served.blockers)
    assert TableView.model_validate_json(served.model_dump_json()) == served


def test_the_card_gate_takes_each_frame_once_and_in_order() -> None:
    gate = CardGate()
    assert gate.verdict(Receipt(5, 10)) == "apply"
    gate.committed(Receipt(5, 10))
    assert gate.verdict(Receipt(5, 10)) == "duplicate"
    assert gate.verdict(Receipt(5, 9)) == "duplicate"
    assert gate.verdict(Receipt(5, 12)) == "early"  # 11 was refused: it comes again first
    assert gate.verdict(Receipt(5, 11)) == "apply"
    assert gate.verdict(Receipt(6, 1)) == "apply"  # a new session starts afresh
    assert gate.verdict(None) == "apply"  # a barcode line has no frames to order
