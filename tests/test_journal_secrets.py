"""The journal holds face-down cards: only its owner reads it, and a failed write says so."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from studio.errors import JournalError
from studio.journal import Journal


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_a_new_journal_and_its_wal_are_the_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    old = os.umask(0o022)
    try:
        with Journal(path) as journal:
            journal.append_input({"kind": "shoe", "card": "AS"})
            wal, shm = path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")
            assert wal.exists() and shm.exists()
            assert (_mode(path), _mode(wal), _mode(shm)) == (0o600, 0o600, 0o600)
    finally:
        os.umask(old)


@pytest.mark.parametrize("part", ["", "-wal"])
def test_a_journal_others_can_read_is_refused_with_the_fix(tmp_path: Path, part: str) -> None:
    path = tmp_path / "table.sqlite"
    with Journal(path) as journal:
        journal.append_input({"kind": "shoe", "card": "AS"})
    leaky = path.with_name(path.name + part)
    leaky.touch()
    leaky.chmod(0o644)
    with pytest.raises(JournalError, match=r"other users can read .*chmod 600"):
        Journal(path)
    # Reading one's own journal (recall, verify) is not refused.
    with Journal(path, readonly=True) as journal:
        assert journal.input_count == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as a second user")
def test_a_second_user_cannot_read_a_live_journal() -> None:
    folder = Path(tempfile.mkdtemp(prefix="studio-secret-"))
    try:
        folder.chmod(0o755)
        path = folder / "table.sqlite"
        public = folder / "notice.txt"
        public.write_text("anyone may read this\n")
        public.chmod(0o644)
        other = pwd.getpwnam("nobody")

        def peek(part: Path) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                ["cat", str(part)],
                user=other.pw_uid,
                group=other.pw_gid,
                capture_output=True,
                text=True,
                check=False,
            )

        # The second user reaches the folder: what stops them is the journal's own mode.
        assert peek(public).returncode == 0
        with Journal(path) as journal:
            journal.append_input({"kind": "shoe", "card": "KH"})
            for part in (path, path.with_name(path.name + "-wal")):
                seen = peek(part)
                assert seen.returncode != 0 and "Permission denied" in seen.stderr
    finally:
        shutil.rmtree(folder)


_FILL = """
import resource, signal, sys
from studio.errors import JournalError
from studio.journal import Journal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
journal = Journal(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
try:
    for i in range(100_000):
        journal.append_input({"kind": "shoe", "raw": "x" * 500, "i": i})
except JournalError as err:
    print("journal error:", err)
    sys.exit(3)
"""


def test_a_write_past_the_file_size_limit_is_a_journal_error(tmp_path: Path) -> None:
    path = tmp_path / "table.sqlite"
    run = subprocess.run(
        [sys.executable, "-c", _FILL, str(path)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 3, run.stderr
    assert "cannot write" in run.stdout
    assert "Traceback" not in run.stderr
    # What was committed before the failure is still a whole, readable journal.
    with Journal(path, readonly=True) as journal:
        assert journal.input_count > 0


_LIMITED = (
    "import os, resource, signal, sys; "
    "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
    "resource.setrlimit(resource.RLIMIT_FSIZE, (150_000, 150_000)); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)
"""Run the rest of argv under a 150 kB file-size limit. A fresh interpreter sets it and execs:
a `preexec_fn` would run Python in a fork of this test process, which may hold other threads'
locks (JAX's, once a test has trained a deck)."""


def test_simulate_on_a_full_journal_says_so_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    run = subprocess.run(
        [
            *(sys.executable, "-c", _LIMITED, "-m", "studio.cli", "simulate"),
            *("--game", "caribbean-stud"),
            *("--rounds", "500", "--seed", "3", "--journal", str(path)),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0
    assert "cannot write" in run.stderr and "Traceback" not in run.stderr, run.stderr
