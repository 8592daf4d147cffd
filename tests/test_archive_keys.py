"""A table replaced by one with another key: refused (flagged, nothing stored) until allowed."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import psycopg
import pytest
from postgres_support import Cluster, archived_seqs, wait_for
from test_bus_support import Keys, TableRig, keys_fixture, mixed_events, no_leaks

from studio.archive.follow import Progress, follow
from studio.archive.migrate import migrate
from studio.bus import KeyPair, Subscriber
from studio.cli import main

__all__ = ["keys_fixture", "no_leaks"]


@pytest.fixture
def dsn(cluster: Cluster) -> Iterator[str]:
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        migrate(c)
        # T1 was archived before under another machine's key.
        old = KeyPair.generate().public.decode()
        c.execute("INSERT INTO archive_table_key (table_id, key) VALUES ('T1', %s)", (old,))
    yield cluster.dsn


def test_a_table_with_another_key_is_refused_until_allowed(
    keys: Keys, dsn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = mixed_events("T1", 50)
    new_key = keys.server.public.decode()
    with TableRig(keys) as rig:
        for event in events:
            rig.emit(event)

        def subscribe(after: Mapping[str, int]) -> Subscriber:
            return rig.subscriber("restricted", after=dict(after))

        stop, progress = threading.Event(), Progress()
        worker = threading.Thread(
            target=follow,
            args=(dsn, subscribe, stop),
            kwargs={"gapless": True, "progress": progress, "keys": {"T1": new_key}, "recheck": 0.2},
        )
        worker.start()
        try:
            assert wait_for(lambda: bool(progress.flags), 20.0)
            time.sleep(1.0)  # the table's events have reached the archive by now...
            assert archived_seqs(dsn) == []  # ...and none was stored
            assert [f.kind for f in progress.flags] == ["key"]
            with psycopg.connect(dsn) as conn:
                kinds = [r[0] for r in conn.execute("SELECT kind FROM archive_flag")]
            assert kinds == ["key"]
            # The operator checks the new table's public key file and allows it.
            key_file = tmp_path / "T1.key"
            key_file.write_text(f'metadata\ncurve\n    public-key = "{new_key}"\n')
            assert (
                main(["archive-allow", "--dsn", dsn, "--table", "T1", "--key", str(key_file)]) == 0
            )
            assert f"T1 allowed with key {new_key}" in capsys.readouterr().out
            assert wait_for(lambda: len(archived_seqs(dsn)) >= 50, 20.0)
        finally:
            stop.set()
            worker.join()
    assert archived_seqs(dsn) == list(range(1, 51))  # nothing lost, nothing twice
