"""Kill the table at any moment, restart it: nothing lost, nothing duplicated, chain intact.

Two kinds of crash: a real `studio simulate` process killed with SIGKILL at random moments, and
in-process crashes placed exactly between the journal write of an input and the storing of its
events (or right after them), at random inputs.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import studio.simulation
from studio.controller import TableController
from studio.journal import Journal, recover, verify
from studio.messages import TableSettings
from studio.simulation import START, FaultRates, simulate

FAULTS = FaultRates.parse("duplicate=0.03,unreadable=0.03,out-of-turn=0.1,device=0.02")
SETTINGS = TableSettings(game="ultimate-holdem")


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    # A process crash (not a power cut) is what is simulated: the page cache survives it, so
    # tmpfs shows the same recovery at no fsync cost on a shared machine.
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=base, prefix="studio-crash-") as name:
        yield Path(name)


class Crash(BaseException):
    """The process dies: nothing after this point runs (not an Exception: nobody catches it)."""


def _chain(path: Path) -> list[tuple[int, str]]:
    with Journal(path, readonly=True) as journal:
        return [(r.id, r.hash) for r in journal.records()]


def _assert_whole(path: Path, settings: TableSettings) -> None:
    """Verify OK, gapless events, every input's events stored once, replay equal."""
    with Journal(path, readonly=True) as journal:
        report = verify(journal)
        assert report.ok, report.problem
        kinds = [(r.kind, r.seq) for r in journal.records()]
    events = [seq for kind, seq in kinds if kind == "event"]
    assert events == list(range(1, len(events) + 1))
    with Journal(path) as journal:
        replay = recover(journal, TableController(settings), now=START)
    assert replay.restored == 0, "a finished run must leave no events to restore"


def _crashing_journal(at_input: int, where: str) -> type[Journal]:
    class CrashingJournal(Journal):
        def append_events(self, events: Any, **kw: Any) -> Any:
            if self.input_count == at_input and where == "before-events":
                raise Crash
            stored = super().append_events(events, **kw)
            if self.input_count == at_input and where == "after-events":
                raise Crash
            return stored

    return CrashingJournal


@pytest.mark.parametrize("where", ["before-events", "after-events"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_crash_around_the_event_store_loses_and_duplicates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, seed: int
) -> None:
    path = tmp_path / "table.journal"
    at_input = random.Random(seed).randrange(5, 400)
    with monkeypatch.context() as patch:
        patch.setattr(studio.simulation, "Journal", _crashing_journal(at_input, where))
        with pytest.raises(Crash):
            simulate(path, SETTINGS, rounds=50, seed=seed, faults=FAULTS)
    before = _chain(path)
    with Journal(path, readonly=True) as journal:
        assert journal.input_count == at_input
        torn = journal.last_input()
        assert torn is not None
        stored_after_torn = sum(1 for r in journal.records(after=torn.id))
    assert (stored_after_torn == 0) == (where == "before-events")

    summary = simulate(path, SETTINGS, rounds=3, seed=seed, faults=FAULTS)

    after = _chain(path)
    assert after[: len(before)] == before, "records written before the crash must stay as they were"
    assert summary.injected == summary.incidents
    _assert_whole(path, SETTINGS)
    with Journal(path, readonly=True) as journal:
        statuses = {n: journal.round_events(n)[-1].data()["type"] for n in journal.game_numbers()}
    assert set(statuses.values()) <= {"round_result", "round_voided"}, statuses


GAMES = [
    TableSettings(game="caribbean-stud", camera=True),
    TableSettings(game="caribbean-stud", procedure="late"),
    TableSettings(game="ultimate-holdem", camera=True),
    TableSettings(game="ultimate-holdem"),
]


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    table=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    at_input=st.integers(1, 300),
    where=st.sampled_from(["before-events", "after-events"]),
    manager=st.sampled_from(["resume", "void"]),
)
def test_a_crash_after_any_input_is_recovered_whole(
    table: TableSettings, seed: int, at_input: int, where: str, manager: str
) -> None:
    faults = FaultRates.parse("duplicate=0.03,unreadable=0.03,out-of-turn=0.1,device=0.02")
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=base, prefix="studio-crash-") as name:
        path = Path(name) / "table.journal"
        original = studio.simulation.Journal
        studio.simulation.Journal = _crashing_journal(at_input, where)  # type: ignore[misc]
        try:
            with pytest.raises(Crash):
                simulate(path, table, rounds=40, seed=seed, faults=faults, manager=manager)  # type: ignore[arg-type]
        finally:
            studio.simulation.Journal = original  # type: ignore[misc]
        before = _chain(path)
        summary = simulate(path, table, rounds=1, seed=seed, faults=faults, manager=manager)  # type: ignore[arg-type]
        assert _chain(path)[: len(before)] == before
        assert summary.injected == summary.incidents
        _assert_whole(path, table)


def _wait_for_records(path: Path, more_than: int, proc: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"simulate ended early: {proc.stderr.read() if proc.stderr else ''!r}")
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                count = db.execute("SELECT COUNT(*) FROM records").fetchone()[0]
            db.close()
        except sqlite3.Error:
            count = 0
        if count > more_than:
            return int(count)
        time.sleep(0.02)
    pytest.fail("simulate wrote nothing for a minute")


def test_sigkill_at_random_moments_then_restart(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    rng = random.Random(2026)
    argv = [sys.executable, "-m", "studio.cli", "simulate", "--game", "ultimate-holdem"]
    argv += ["--seed", "9", "--journal", str(path), "--faults", "unreadable=0.05,device=0.02"]
    seen = 0
    chains: list[list[tuple[int, str]]] = []
    for _ in range(3):
        proc = subprocess.Popen([*argv, "--rounds", "100000"], stderr=subprocess.PIPE)
        try:
            seen = _wait_for_records(path, seen + 5, proc)
            time.sleep(rng.uniform(0.0, 0.3))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            err = proc.stderr.read() if proc.stderr is not None else b""
            if proc.stderr is not None:
                proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL, f"simulate ended by itself: {err!r}"
        chains.append(_chain(path))
        seen = len(chains[-1])
    done = subprocess.run(
        [*argv, "--rounds", "2", "--json"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    final = _chain(path)
    for chain in chains:
        assert final[: len(chain)] == chain
    _assert_whole(path, TableSettings(game="ultimate-holdem", camera=True))
