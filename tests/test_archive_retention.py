"""Retention against a real PostgreSQL: old rounds exported with their hashes, removed, restored."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from postgres_support import Cluster

from studio.archive.migrate import migrate
from studio.archive.store import Conn, store, verify_table
from studio.bus.wire import WireEvent, to_event
from studio.cli import main

OLD = datetime.now(UTC) - timedelta(days=40)


def event(seq: int, game: str | None, ts: datetime) -> WireEvent:
    return to_event(
        {
            "table": "T01",
            "seq": seq,
            "game_number": game,
            "ts": ts.isoformat(),
            "audience": "public",
            "type": "note_added",
            "body": {"seq": seq},
        }
    )


@pytest.fixture
def conn(cluster: Cluster) -> Iterator[Conn]:
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        migrate(c)
        # Round 1 wholly old; round 2 opened old but ends young (it must stay whole); round 3 new.
        events = [event(s, "T01-1", OLD + timedelta(minutes=s)) for s in range(1, 4)]
        events += [
            event(4, "T01-2", OLD + timedelta(minutes=4)),
            event(5, "T01-2", datetime.now(UTC)),
        ]
        events += [event(6, "T01-3", datetime.now(UTC))]
        store(c, events)
        yield c


def snapshot(conn: Conn) -> list[tuple[object, ...]]:
    return conn.execute("SELECT * FROM archive_event ORDER BY table_id, seq").fetchall()


def test_export_removes_old_rounds_and_import_restores_them_exactly(
    conn: Conn, cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(conn)
    # Round 2 began 40 days ago but its last event is young: the cutoff never splits a round.
    argv = ["retention", "export", "--archive", cluster.dsn, "--older-than-days", "30"]
    assert main([*argv, "--dir", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.jsonl.gz"))
    assert [f.name for f in files] == ["T01-000000000001-000000000003.jsonl.gz"]
    sha = (tmp_path / (files[0].name + ".sha256")).read_text().split()[0]
    assert sha in capsys.readouterr().out
    assert [r[1] for r in snapshot(conn)] == [4, 5, 6]
    assert verify_table(conn, "T01") is None  # the remaining chain still checks
    assert main(["recall", "--archive", cluster.dsn, "T01-1"]) == 2  # gone from the database
    capsys.readouterr()
    assert main(["retention", "import", "--archive", cluster.dsn, "--file", str(files[0])]) == 0
    assert snapshot(conn) == before
    assert verify_table(conn, "T01") is None


def test_an_edited_file_is_refused(
    conn: Conn, cluster: Cluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["retention", "export", "--archive", cluster.dsn, "--older-than-days", "30"]
    assert main([*argv, "--dir", str(tmp_path)]) == 0
    path = next(tmp_path.glob("*.jsonl.gz"))
    original = gzip.decompress(path.read_bytes())
    text = original.replace(b'{"seq": 2,', b'{"seq": 9,')
    assert text != original
    path.write_bytes(gzip.compress(text, mtime=0))
    assert main(["retention", "import", "--archive", cluster.dsn, "--file", str(path)]) == 2
    assert "is not the recorded" in capsys.readouterr().err
    assert [r[1] for r in snapshot(conn)] == [4, 5, 6]
