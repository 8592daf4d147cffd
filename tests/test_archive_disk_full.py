"""The archive's disk fills up mid-run: a clear error, then every event once when space returns.

The events table lives in a tablespace on a small tmpfs (mounting needs root; otherwise the test
skips with the reason); WAL stays on the cluster's own disk, as on a server whose data volume
fills. Space returns by remounting the tmpfs larger.
"""

from __future__ import annotations

import logging
import os
import pwd
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import psycopg
import pytest
from postgres_support import Cluster, archived_seqs, wait_for
from test_bus_support import Keys, TableRig, keys_fixture, mixed_events, no_leaks

from studio.archive.follow import Progress, follow
from studio.archive.migrate import migrate
from studio.bus import Subscriber

__all__ = ["keys_fixture", "no_leaks"]


@pytest.fixture
def small_disk() -> Iterator[Path]:
    if os.getuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = Path(tempfile.mkdtemp(prefix="studio-pg-full-"))
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        mount.rmdir()
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    try:
        nobody = pwd.getpwnam("nobody")
        os.chown(mount, nobody.pw_uid, nobody.pw_gid)
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
        mount.rmdir()


def test_a_full_disk_is_reported_and_nothing_is_lost_when_space_returns(
    keys: Keys, cluster: Cluster, small_disk: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        c.execute("DROP TABLESPACE IF EXISTS small")
        c.execute(f"CREATE TABLESPACE small LOCATION '{small_disk}'")
        migrate(c)
        c.execute("ALTER TABLE archive_event SET TABLESPACE small")
        c.execute("ALTER INDEX archive_event_pkey SET TABLESPACE small")
    events = mixed_events("T1", 3000)  # far more than 1 MiB of rows and index
    with TableRig(keys) as rig:
        for event in events:
            rig.emit(event)

        def subscribe(after: Mapping[str, int]) -> Subscriber:
            return rig.subscriber("restricted", after=dict(after))

        stop, progress = threading.Event(), Progress()
        worker = threading.Thread(
            target=follow,
            args=(cluster.dsn, subscribe, stop),
            kwargs={"gapless": True, "progress": progress, "retry": 0.2, "batch": 200},
        )
        with caplog.at_level(logging.ERROR, logger="studio.archive.follow"):
            worker.start()
            try:
                assert wait_for(lambda: progress.disk_full >= 1, 30.0)
                assert "the database's disk is full" in caplog.text
                assert 0 < len(archived_seqs(cluster.dsn)) < 3000
                subprocess.run(
                    ["mount", "-o", "remount,size=64m", str(small_disk)], check=True
                )  # space returns
                assert wait_for(lambda: len(archived_seqs(cluster.dsn)) >= 3000, 30.0)
            finally:
                stop.set()
                worker.join()
    assert archived_seqs(cluster.dsn) == list(range(1, 3001))
    assert progress.flags == []
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        c.execute("DROP TABLESPACE small")
