"""The archive loop against a real table stream and a real PostgreSQL, with faults."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping

import psycopg
import pytest
from postgres_support import Cluster, remove_cluster, start_cluster
from test_bus_support import Keys, TableRig, keys_fixture, mixed_events, no_leaks

from studio.archive.follow import Progress, follow
from studio.bus import Subscriber

__all__ = ["keys_fixture", "no_leaks"]


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    running = start_cluster()
    yield running
    remove_cluster(running)


def _stored(dsn: str) -> list[int]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("SELECT seq FROM archive_event ORDER BY seq").fetchall()
    return [int(r[0]) for r in rows]


def _wait_for(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)


def _run_archive(
    rig: TableRig, dsn: str, stop: threading.Event, progress: Progress
) -> threading.Thread:
    def subscribe(after: Mapping[str, int]) -> Subscriber:
        return rig.subscriber("restricted", after=dict(after))

    thread = threading.Thread(
        target=follow,
        args=(dsn, subscribe, stop),
        kwargs={"gapless": True, "retry": 0.2, "progress": progress},
    )
    thread.start()
    return thread


def test_every_event_once_across_an_archive_restart_and_a_postgres_restart(
    keys: Keys, cluster: Cluster
) -> None:
    events = mixed_events("T1", 300)
    with TableRig(keys) as rig:
        for event in events[:100]:
            rig.emit(event)
        stop, progress = threading.Event(), Progress()
        thread = _run_archive(rig, cluster.dsn, stop, progress)
        _wait_for(lambda: len(_safe(cluster.dsn)) >= 100)
        stop.set()
        thread.join()
        # The archive is down while the table goes on.
        for event in events[100:200]:
            rig.emit(event)
        stop, progress = threading.Event(), Progress()
        thread = _run_archive(rig, cluster.dsn, stop, progress)
        _wait_for(lambda: len(_safe(cluster.dsn)) >= 200)
        cluster.stop()  # PostgreSQL goes away mid-run...
        for event in events[200:]:
            rig.emit(event)
        time.sleep(0.5)
        cluster.start()  # ...and comes back: the archive reconnects and resumes.
        _wait_for(lambda: len(_safe(cluster.dsn)) >= 300)
        stop.set()
        thread.join()
    assert _stored(cluster.dsn) == list(range(1, 301))
    assert progress.reconnects >= 1
    assert progress.flags == []


def _safe(dsn: str) -> list[int]:
    try:
        return _stored(dsn)
    except psycopg.Error:
        return []
