"""A throwaway PostgreSQL cluster for tests: initdb and pg_ctl in a temporary directory.

The cluster listens on a Unix socket inside its own directory only (no TCP port at all), runs as
the current user or, when the tests run as root (CI), as `nobody`, who gets the directory. It
can be stopped and started again mid-test (the fault tests do), and is removed at the end.
With no PostgreSQL binaries on the machine the tests that need it skip with the reason.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest


def _bin_dir() -> Path | None:
    """Debian keeps initdb and pg_ctl in /usr/lib/postgresql/N/bin, off the PATH; newest first."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    return Path(versions[0]).parent if versions else None


class Cluster:
    """One running cluster; `dsn` connects to its `postgres` database over the socket."""

    def __init__(self, root: Path, bindir: Path, user: pwd.struct_passwd | None) -> None:
        self.root = root
        self.data = root / "data"
        self.socket_dir = root / "socket"
        self._bin = bindir
        self._user = user
        self.role = user.pw_name if user else pwd.getpwuid(os.getuid()).pw_name

    @property
    def dsn(self) -> str:
        return f"host={self.socket_dir} port=5432 user={self.role} dbname=postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(self._bin / args[0]), *args[1:]]
        subprocess.run(
            cmd,
            check=True,
            capture_output=True,
            user=self._user.pw_uid if self._user else None,
            group=self._user.pw_gid if self._user else None,
            cwd=self.root,
        )

    def init(self) -> None:
        self.socket_dir.mkdir()
        if self._user:
            for path in (self.root, self.socket_dir):
                os.chown(path, self._user.pw_uid, self._user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", self.role, "--no-sync")

    def start(self) -> None:
        # listen_addresses='' : no TCP at all, only the socket in our own directory.
        options = f"-c listen_addresses='' -k {self.socket_dir} -c fsync=off -p 5432"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-w",
            "-l",
            str(self.root / "log"),
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")


def start_cluster() -> Cluster:
    """Make and start a cluster, or skip the calling test with the reason it cannot."""
    bindir = _bin_dir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    user = pwd.getpwnam("nobody") if os.getuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="studio-pg-"))
    cluster = Cluster(root, bindir, user)
    try:
        cluster.init()
        cluster.start()
    except (subprocess.CalledProcessError, OSError) as exc:
        shutil.rmtree(root, ignore_errors=True)
        detail = (
            exc.stderr.decode(errors="replace")
            if isinstance(exc, subprocess.CalledProcessError) and exc.stderr
            else str(exc)
        )
        pytest.skip(f"could not start a PostgreSQL cluster: {detail.strip()}")
    return cluster


def remove_cluster(cluster: Cluster) -> None:
    """Stop the cluster (if it runs) and delete its directory."""
    with contextlib.suppress(subprocess.CalledProcessError):  # already stopped by the test
        cluster.stop("immediate")
    shutil.rmtree(cluster.root, ignore_errors=True)


def archived_seqs(dsn: str) -> list[int]:
    """Every sequence number the archive holds, in order (duplicates would show twice)."""
    import psycopg

    with psycopg.connect(dsn) as conn:
        return [int(r[0]) for r in conn.execute("SELECT seq FROM archive_event ORDER BY seq")]


def wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    """Poll `predicate` every 0.1 s until it holds (True) or `timeout` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False
