"""`studio watch` on a real table: the state first, each event once in words, silences, proxies."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_e2e_proxy import studio_proxy
from test_e2e_support import TableRig, table_rig

from studio.commands.words import RENDERERS, describe
from studio.journal import Journal
from studio.messages import EVENT_TYPES, TableSettings
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


def _watch(rig: TableRig, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "studio.cli", "watch", *args],
        env=rig.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
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
    events = lines[2:]
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
            _finish(watch, 10)
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
