"""Kill the table at any moment, restart it: nothing lost, nothing duplicated, chain intact.

Every table (`studio run`, `studio simulate`, a recovery's restart) writes an input and its
events in one fsynced transaction (`RecordedTable.step`), so its own writes can no longer leave
an input without its events. What a crash can still leave on disk, and what these tests make:

* a transaction that never committed (the process died inside it): SQLite reads the journal as
  it was before it. In process the crash is placed at the COMMIT itself; on a real file the
  WAL is cut in the middle of the last transaction's commit frame;
* a transaction that committed, and nothing after it;
* a journal written by an earlier version, which committed each input and then its events in a
  second commit: one whose process died between the two ends in an input without its events,
  and the journal must still recover whole. Such a journal is built here explicitly, with the
  journal's own two-commit API, in the records earlier versions wrote;
* a real `studio simulate` process killed with SIGKILL at random moments.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import studio.simulation
from studio.controller import TableController
from studio.journal import Journal, recover, verify
from studio.journal.recorder import replay
from studio.messages import TableSettings
from studio.simulation import START, FaultRates, simulate

FAULTS = FaultRates.parse("duplicate=0.03,unreadable=0.03,out-of-turn=0.1,device=0.02")
SETTINGS = TableSettings(game="ultimate-holdem")
CRASHES = ["before-commit", "after-commit", "two-commits"]
"""Where the process dies at the chosen input (see the module docstring)."""


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


class _CommitNeverRuns:
    """A connection whose COMMIT never runs: the process dies inside its transaction.

    The journal then rolls the transaction back on its way out, which leaves the file as a
    process that died there leaves it: SQLite never reads WAL frames without a commit frame
    (`test_a_wal_cut_mid_write_loses_only_the_unfinished_transaction` cuts a real one).
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql == "COMMIT":
            raise Crash
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _crashing_journal(at_input: int, where: str) -> type[Journal]:
    class CrashingJournal(Journal):
        dying = False

        def _db(self) -> Any:
            conn = super()._db()
            return _CommitNeverRuns(conn) if self.dying else conn

        def append_input(
            self,
            data: Mapping[str, Any],
            *,
            events: Sequence[Mapping[str, Any]] = (),
            bodies: Sequence[str] | None = None,
        ) -> Any:
            crashing = self.input_count + 1 == at_input
            if where == "two-commits":
                # What earlier versions wrote: the input in its own durable commit, then its
                # events in a second one (the records are the same, only the commits differ).
                stored = super().append_input(data)
                if crashing:
                    raise Crash
                self.append_events(events, bodies=bodies)
                return stored
            self.dying = crashing and where == "before-commit"
            stored = super().append_input(data, events=events, bodies=bodies)
            if crashing:
                raise Crash
            return stored

    return CrashingJournal


@pytest.mark.parametrize("where", CRASHES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_crash_around_the_commit_loses_and_duplicates_nothing(
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
        assert journal.input_count == (at_input - 1 if where == "before-commit" else at_input)
        last = journal.last_input()
        assert last is not None
        stored_after_last = sum(1 for r in journal.records(after=last.id))
        _, missing = replay(journal, TableController(SETTINGS))
    if where == "two-commits":
        # The torn tail an earlier version could leave: the input, none of its events.
        assert stored_after_last == 0 and missing, "the old journal must end torn"
    else:
        assert missing == [], "one transaction per input: never an input without its events"

    summary = simulate(path, SETTINGS, rounds=3, seed=seed, faults=FAULTS)

    after = _chain(path)
    assert after[: len(before)] == before, "records written before the crash must stay as they were"
    assert summary.injected == summary.incidents
    _assert_whole(path, SETTINGS)
    with Journal(path, readonly=True) as journal:
        statuses = {n: journal.round_events(n)[-1].data()["type"] for n in journal.game_numbers()}
    assert set(statuses.values()) <= {"round_result", "round_voided"}, statuses


def _commit_frames(wal: bytes) -> tuple[int, list[int]]:
    """The page size and the offsets of the commit frames of a WAL file's current transactions.

    The WAL format (sqlite.org/fileformat.html, "WAL File Format"): a 32-byte header with the
    page size and two salts, then frames of a 24-byte header and one page; a frame whose second
    header word (the database size after commit) is not zero ends a transaction. Frames with
    other salts are left over from before the WAL was last restarted.
    """
    page_size = struct.unpack(">I", wal[8:12])[0]
    salts = wal[16:24]
    frames: list[int] = []
    offset = 32
    while offset + 24 + page_size <= len(wal) and wal[offset + 8 : offset + 16] == salts:
        if struct.unpack(">I", wal[offset + 4 : offset + 8])[0]:
            frames.append(offset)
        offset += 24 + page_size
    return page_size, frames


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
    where=st.sampled_from(CRASHES),
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


def test_a_wal_cut_mid_write_loses_only_the_unfinished_transaction(tmp_path: Path) -> None:
    live = tmp_path / "live"
    live.mkdir()
    path = live / "table.journal"
    simulate(path, SETTINGS, rounds=1, seed=4, faults=FAULTS)
    # A second connection left open keeps the closing writer from checkpointing its WAL into
    # the file and deleting it: the WAL stays on disk as a crash would leave it.
    keeper = sqlite3.connect(path)
    try:
        keeper.execute("SELECT COUNT(*) FROM records").fetchone()
        for part in live.iterdir():
            part.chmod(0o600)
        simulate(path, SETTINGS, rounds=2, seed=4, faults=FAULTS)
        crashed = tmp_path / "crashed"
        crashed.mkdir()
        for name in ("table.journal", "table.journal-wal"):
            shutil.copy2(live / name, crashed / name)
    finally:
        keeper.close()
    full = _chain(crashed / "table.journal")
    with Journal(crashed / "table.journal", readonly=True) as journal:
        last = journal.last_input()
        assert last is not None
    wal_path = crashed / "table.journal-wal"
    wal = wal_path.read_bytes()
    page_size, commits = _commit_frames(wal)
    assert len(commits) >= 2, "the WAL must hold the run's last transactions"
    # The disk stopped halfway through the last transaction's commit frame.
    with wal_path.open("r+b") as file:
        file.truncate(commits[-1] + 24 + page_size // 2)

    cut = _chain(crashed / "table.journal")
    assert cut == full[: last.id - 1], "only the last input and its events, together, are gone"
    with Journal(crashed / "table.journal", readonly=True) as journal:
        _, missing = replay(journal, TableController(SETTINGS))
    assert missing == []
    summary = simulate(crashed / "table.journal", SETTINGS, rounds=1, seed=4, faults=FAULTS)
    assert _chain(crashed / "table.journal")[: len(cut)] == cut
    assert summary.injected == summary.incidents
    _assert_whole(crashed / "table.journal", SETTINGS)
