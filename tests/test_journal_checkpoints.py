"""A journal checkpointed between rounds: its WAL stays bounded and a kill loses nothing committed.

`Journal(path, checkpoint_between_rounds=True)` (the table's) moves SQLite's checkpoints out of
the appends to `checkpoint()`, which the table calls after a round's end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from journal_support import journal_event

from studio.journal import Journal
from studio.journal.verify import verify

ROUND_INPUTS = 15
"""About a Caribbean Stud round's inputs, each its own fsynced commit."""


def _play_round(journal: Journal, seq: int) -> int:
    for _ in range(ROUND_INPUTS):
        events = [journal_event(s, {"pad": "x" * 600}) for s in range(seq, seq + 3)]
        journal.append_input({"kind": "tick", "ts": "2026-01-01T00:00:00Z"}, events=events)
        seq += 3
    return seq


def test_the_wal_stays_at_one_rounds_size_over_many_rounds(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    wal = path.with_name(path.name + "-wal")
    with Journal(path, checkpoint_between_rounds=True) as journal:
        seq = _play_round(journal, 1)
        assert journal.checkpoint()
        first_round = wal.stat().st_size
        # 200 rounds write about 3,000 pages in all, past SQLite's default checkpoint (1,000).
        for _ in range(200):
            size_before = path.stat().st_size
            seq = _play_round(journal, seq)
            # No checkpoint ran inside the round's commits: the database file was not written.
            assert path.stat().st_size == size_before
            assert journal.checkpoint()
        # Bounded by a round's writes (a deeper index writes a few more pages), not the run's.
        assert wal.stat().st_size <= 2 * first_round
        stored = journal.last_event_seq
    assert stored == seq - 1
    with Journal(path, readonly=True) as back:
        assert back.input_count == 201 * ROUND_INPUTS
        assert verify(back).ok


def test_no_checkpoint_runs_inside_the_appends_of_a_long_round(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    with Journal(path, checkpoint_between_rounds=True) as journal:
        seq = _play_round(journal, 1)
        journal.checkpoint()
        size_before = path.stat().st_size
        # 40 rounds' appends without an end between them: past SQLite's default of 1,000 pages,
        # where a checkpoint would have run inside one of these commits.
        for _ in range(40):
            seq = _play_round(journal, seq)
        assert path.with_name(path.name + "-wal").stat().st_size > 1_000 * 4096
        assert path.stat().st_size == size_before
        assert journal.checkpoint()
        assert path.stat().st_size > size_before


WRITER = """
import sys
from studio.journal import Journal
from test_journal_checkpoints import _play_round
with Journal(sys.argv[1], checkpoint_between_rounds=True) as journal:
    seq = 1
    for n in range(10_000):
        seq = _play_round(journal, seq)
        if n % 2 == 0:
            journal.checkpoint()
        print(journal.input_count, flush=True)
"""


def test_a_killed_table_leaves_every_committed_input_readable(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), str(Path(__file__).parent)]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        # Killed mid-way, with rounds in its WAL that no checkpoint copied yet.
        committed = [int(proc.stdout.readline()) for _ in range(5)][-1]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with Journal(path, readonly=True) as back:
        assert back.input_count >= committed
        assert back.last_event_seq == back.input_count * 3
        assert verify(back).ok
