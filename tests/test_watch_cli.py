"""`studio watch` on a real table: the state first, each event once in words, silences, proxies.

The restricted stream's notices (journal alarms, checkpoints, integrity reports) read in words
too, also through `studio proxy`'s restricted frontend; and while the journal cannot be written,
`studio status` says paused (exit 1) with the fault and what clears it.
"""

from __future__ import annotations

import json
import queue
import resource
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import get_args

import pytest
from test_e2e_proxy import studio_proxy
from test_e2e_support import TableRig, table_rig
from test_metrics_prometheus import metrics_address

from studio.commands.words import RENDERERS, describe, describe_notice
from studio.journal import Journal
from studio.messages import EVENT_TYPES, TableSettings
from studio.messages.notices import AnyNotice, Checkpoint, IntegrityReport, JournalAlarm
from studio.simulation import FaultRates, simulate

NO_CAMERA = '[camera]\nbackend = "none"\n'


def test_every_event_type_has_words() -> None:
    assert set(RENDERERS) == set(EVENT_TYPES)


@pytest.mark.parametrize(
    ("game", "manager"), [("caribbean-stud", "void"), ("ultimate-holdem", "resume")]
)
def test_a_faulty_history_reads_in_words_not_json(tmp_path: Path, game: str, manager: str) -> None:
    path = tmp_path / "t.journal"
    faults = FaultRates.parse(
        "duplicate=0.05,unreadable=0.05,out-of-turn=0.05,mismatch=0.05,device=0.05"
    )
    simulate(path, TableSettings(game=game), rounds=15, seed=3, faults=faults, manager=manager)  # type: ignore[arg-type]
    with Journal(path, readonly=True) as journal:
        lines = [describe(json.loads(record.body)) for record in journal.events_from(1)]
    assert len({line.split()[2] for line in lines}) >= 10
    for line in lines:
        assert "{" not in line and "None" not in line, line


T0 = datetime(2026, 12, 5, 2, 0, tzinfo=UTC)
NOTICES: list[AnyNotice] = [
    JournalAlarm(table="T01", ts=T0, state="unwritable", detail="disk full", since=T0, refused=0),
    JournalAlarm(
        table="T01",
        ts=T0 + timedelta(seconds=7),
        state="writable",
        detail="disk full",
        since=T0,
        refused=3,
    ),
    Checkpoint(
        table="T01",
        ts=T0,
        records=40,
        head="a" * 64,
        last_seq=37,
        events_head="b" * 64,
        reason="round_end",
        key="c" * 64,
        signature="d" * 128,
    ),
    IntegrityReport(
        table="T01",
        ts=T0,
        why="start",
        manifest="e" * 64,
        digest="f" * 64,
        files=9,
        differences=[],
    ),
    IntegrityReport(
        table="T01",
        ts=T0,
        why="schedule",
        manifest="e" * 64,
        digest="f" * 64,
        files=9,
        differences=["changed studio/cards.py", "missing studio/hands.py"],
    ),
]


def test_every_notice_kind_has_words() -> None:
    kinds = {notice.kind for notice in NOTICES}
    assert kinds == {get_args(m.model_fields["kind"].annotation)[0] for m in get_args(AnyNotice)}
    lines = [describe_notice(notice) for notice in NOTICES]
    for line in lines:
        assert "{" not in line and "None" not in line, line
    assert lines[0] == (
        "notice journal_alarm [restricted, not journalled] at 02:00:00: JOURNAL NOT WRITABLE "
        "since 02:00:00 (disk full): nothing is acted on until it is; free space, then a shift "
        "manager resumes"
    )
    assert "writable again after 7.0 s, 3 input(s) refused" in lines[1]
    assert "40 records up to event #37 (round_end)" in lines[2]
    assert lines[3].endswith("start check of 9 files against manifest eeeeeeeeeeeeeeee: all match")
    assert "2 DIFFER (changed studio/cards.py, missing studio/hands.py)" in lines[4]


def _watch(rig: TableRig, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "studio.cli", "watch", *args],
        env=rig.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
    """`proc`'s output once it exits; killed if it has not within `timeout` seconds.

    The bound catches a watcher that never stops, not a slow one (interrupted, one exits in well
    under a second); a bound tight enough to fail on a busy machine would assert its speed.
    """
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_watch_starts_with_the_state_and_shows_each_card_once(tmp_path: Path) -> None:
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        rig.start()
        manager = str(rig.keys_dir / "shift-manager.key_secret")
        out, err = _finish(_watch(rig, "--key", manager, "--count", "40", "--timeout", "20"))
    lines = out.splitlines()
    assert lines[0].startswith("watching table T01: restricted stream"), out + err
    assert lines[1].startswith("now: running, phase "), lines[1]
    assert "devices shoe ok" in lines[1]
    # The restricted stream's notices (a round's signed checkpoint) are lines of their own.
    events = [line for line in lines[2:] if not line.startswith("notice ")]
    assert len(events) == 40
    cards = [line for line in events if " card_dealt" in line]
    assert cards and all("[restricted]" in line for line in cards), cards
    # One line per card: a game number and position never show twice.
    dealt = [(line.split()[1], line.split(": ")[1].split()[0]) for line in cards]
    assert len(dealt) == len(set(dealt)), cards
    seqs = [int(line.split()[0][1:]) for line in events]
    assert seqs == sorted(seqs)


def test_watch_says_when_the_table_falls_silent_and_when_it_returns(tmp_path: Path) -> None:
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        table = rig.start()
        watch = _watch(rig, "--silence", "1.5")
        try:
            assert watch.stdout is not None
            assert watch.stdout.readline().startswith("watching table T01")
            assert watch.stdout.readline().startswith("now: ")
            table.send_signal(signal.SIGSTOP)
            try:
                time.sleep(4)
            finally:
                table.send_signal(signal.SIGCONT)
            deadline = time.monotonic() + 30
            seen: list[str] = []
            while time.monotonic() < deadline:
                line = watch.stdout.readline()
                seen.append(line)
                if line.startswith("-- table T01 heard again after"):
                    break
            else:
                pytest.fail(f"no return notice: {seen}")
        finally:
            watch.send_signal(signal.SIGINT)
            _finish(watch)
    silent = [line for line in seen if line.startswith("-- no heartbeat from table T01")]
    assert silent, seen
    assert seen.index(silent[0]) < len(seen) - 1


def test_watch_follows_a_table_through_studio_proxy(tmp_path: Path) -> None:
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        rig.start()
        frontend = f"ipc://{tmp_path}/proxy"
        with studio_proxy(frontend, [rig.endpoint("pub")]):
            out, err = _finish(
                _watch(rig, "--endpoint", frontend, "--count", "12", "--timeout", "20")
            )
    lines = out.splitlines()
    assert lines[0] == f"watching table T01: public stream {frontend}", out + err
    assert len(lines) == 2 + 12


@contextmanager
def _restricted_proxy(rig: TableRig, public: str, restricted: str) -> Iterator[None]:
    """`studio proxy` forwarding the rig's public and restricted streams, killed after."""
    command = [sys.executable, "-m", "studio.cli", "proxy", "--frontend", public]
    command += ["--upstream", rig.endpoint("pub"), "--restricted-upstream", rig.endpoint("res")]
    command += ["--restricted-frontend", restricted, "--keys", str(rig.keys_dir)]
    proc = subprocess.Popen(command, env=rig.env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith(f"proxy: frontend {public}")
        line = proc.stdout.readline()
        assert line.startswith(f"proxy: restricted frontend {restricted} (CURVE)"), line
        yield
    finally:
        proc.kill()
        proc.communicate(timeout=10)


class _Lines:
    """A process's stdout lines, read by a thread so a test can wait for one with a bound."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        assert proc.stdout is not None
        stdout = proc.stdout
        threading.Thread(target=lambda: [self._queue.put(x) for x in stdout], daemon=True).start()

    def until(self, wanted: Callable[[str], bool], timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=0.2).rstrip("\n")
            except queue.Empty:
                continue
            self.seen.append(line)
            if wanted(line):
                return line
        pytest.fail(f"no such line within {timeout} s: {self.seen[-15:]}")


def _studio(rig: TableRig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studio.cli", *args],
        env=rig.env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_a_manager_watching_through_studio_proxy_sees_a_journal_fault_that_status_shows(
    tmp_path: Path,
) -> None:
    manager = str(tmp_path / "keys" / "shift-manager.key_secret")
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        table = rig.start()
        restricted = f"ipc://{tmp_path}/proxy-res"
        with _restricted_proxy(rig, f"ipc://{tmp_path}/proxy", restricted):
            watch = _watch(rig, "--endpoint", restricted, "--key", manager)
            # A JSON reader on the table's own stream keeps envelopes alone on stdout.
            as_json = _watch(rig, "--json", "--key", manager)
            try:
                lines = _Lines(watch)
                first = lines.until(lambda line: line.startswith("watching"))
                assert first == f"watching table T01: restricted stream {restricted}"
                assert lines.until(lambda _: True).startswith("now: running")
                # A round's end is signed and said through the proxy, to a watcher and to a
                # keeper of checkpoints alike.
                lines.until(lambda line: line.startswith("notice checkpoint [restricted] at "))
                anchors = tmp_path / "anchors.jsonl"
                kept = _studio(
                    rig,
                    "journal",
                    "anchors",
                    "--endpoint",
                    restricted,
                    "--count",
                    "1",
                    "--out",
                    str(anchors),
                )
                assert "kept 1 checkpoint(s) of table T01" in kept.stdout, kept.stderr
                lines.until(lambda line: " card_dealt [restricted]: " in line)
                # The running table may write no byte past the journal's current size.
                wal = rig.journal.with_name(rig.journal.name + "-wal")
                limit = max(p.stat().st_size for p in (rig.journal, wal) if p.exists()) + 1
                resource.prlimit(table.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
                try:
                    alarm = lines.until(lambda line: line.startswith("notice journal_alarm"))
                    assert "[restricted, not journalled]" in alarm and "NOT WRITABLE" in alarm
                    # Nothing can be journalled, yet whoever asks reads paused, and why.
                    words = _studio(rig, "status")
                    assert words.returncode == 1, words.stdout + words.stderr
                    assert "state     PAUSED" in words.stdout
                    assert "(not journalled) journal_unwritable at journal" in words.stdout
                    assert "to resume the journal cannot be written: free space" in words.stdout
                    view = json.loads(_studio(rig, "status", "--json", "--key", manager).stdout)
                    fault = view["incidents"][-1]
                    assert (fault["kind"], fault["journalled"]) == ("journal_unwritable", False)
                    assert "cannot write" in fault["detail"] or "too large" in fault["detail"]
                    address = metrics_address(rig)
                    with urllib.request.urlopen(f"{address}/metrics", timeout=5) as answer:
                        page = answer.read().decode()
                    assert 'studio_journal_unwritable{table="T01"} 1.0' in page
                    assert 'studio_journal_failures_total{table="T01"} 1.0' in page
                    assert 'studio_paused{table="T01"} 1.0' in page
                    joined = _studio(rig, "watch", "--count", "0").stdout.splitlines()
                    assert joined[1].startswith("now: PAUSED, "), joined
                    assert "incident journal_unwritable (not journalled)" in joined[1]
                finally:
                    resource.prlimit(
                        table.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY,) * 2
                    )
                back = lines.until(lambda line: line.startswith("notice journal_alarm"))
                assert "journal writable again after" in back
                # Now on record: an ordinary incident, and the table stays paused for a manager.
                lines.until(
                    lambda line: "incident_reported" in line and "journal_unwritable" in line
                )
                after = _studio(rig, "status", "--json")
                assert after.returncode == 1
                kinds = [
                    (i["kind"], i["journalled"]) for i in json.loads(after.stdout)["incidents"]
                ]
                assert ("journal_unwritable", True) in kinds
                assert ("journal_unwritable", False) not in kinds
            finally:
                for proc in (watch, as_json):
                    proc.send_signal(signal.SIGINT)
                try:
                    out, err = _finish(as_json)
                finally:
                    _finish(watch)
    assert all("type" in json.loads(line) for line in out.splitlines()), out[-2000:]
    assert "notice journal_alarm [restricted, not journalled]" in err, err[-2000:]


def test_a_restricted_proxy_without_its_keys_is_one_line(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "studio.cli", "proxy", "--frontend", f"ipc://{tmp_path}/p"]
    command += ["--restricted-upstream", f"ipc://{tmp_path}/res", "--keys", str(tmp_path / "none")]
    command += ["--restricted-frontend", f"ipc://{tmp_path}/pr"]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.count("\n") == 1 and "table.key_secret" in done.stderr, done.stderr
