"""The archive against a real PostgreSQL: migrations, exactly-once storage, chain checks, recall."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from postgres_support import Cluster

from studio.archive.migrate import migrate, migrations
from studio.archive.recall import recall_last, recall_round
from studio.archive.store import Conn, positions, store, verify_table
from studio.bus.wire import WireEvent, to_event
from studio.errors import InputError, JournalError


@pytest.fixture
def conn(cluster: Cluster) -> Iterator[Conn]:
    with psycopg.connect(cluster.dsn, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS t WITH (FORCE)")
        admin.execute("CREATE DATABASE t")
    with psycopg.connect(cluster.dsn.replace("dbname=postgres", "dbname=t")) as c:
        c.autocommit = True
        migrate(c)
        yield c


T0 = datetime(2026, 1, 1, tzinfo=UTC)


def event(table: str, seq: int, game: str | None = None, **body: object) -> WireEvent:
    return to_event(
        {
            "table": table,
            "seq": seq,
            "game_number": game,
            "ts": (T0 + timedelta(seconds=seq)).isoformat(),
            "audience": "public",
            "type": "note_added" if not body else "incident_reported",
            "body": body or {"seq": seq},
        }
    )


def test_migrations_apply_once_in_order(conn: Conn) -> None:
    assert migrate(conn) == []  # already applied by the fixture: nothing twice
    versions = [
        r[0]
        for r in conn.execute(
            "SELECT version FROM archive_migration WHERE component = %s ORDER BY 1",
            ("studio.archive",),
        )
    ]
    assert versions == [m.version for m in migrations()]


def test_a_replayed_batch_is_stored_once(conn: Conn) -> None:
    batch = [event("T01", s) for s in range(1, 6)] + [event("T02", s) for s in range(1, 4)]
    first = store(conn, batch)
    again = store(conn, [*batch[2:], event("T01", 6)])
    assert (first.written, first.duplicates) == (8, 0)
    assert (again.written, again.duplicates) == (1, 6)
    assert again.flags == ()
    count = conn.execute("SELECT count(*) FROM archive_event").fetchone()
    assert count is not None and count[0] == 9
    where = positions(conn)
    assert (where["T01"].last_seq, where["T02"].last_seq) == (6, 3)
    assert verify_table(conn, "T01") is None


def test_a_different_event_under_a_stored_key_is_flagged(conn: Conn) -> None:
    store(conn, [event("T01", 1), event("T01", 2)])
    other = to_event({**event("T01", 2).envelope.model_dump(mode="json"), "body": {"x": 1}})
    result = store(conn, [other])
    assert [f.kind for f in result.flags] == ["conflict"]
    stored = conn.execute("SELECT payload FROM archive_event WHERE seq = 2").fetchone()
    assert stored is not None and stored[0] == event("T01", 2).payload.decode()


def test_a_jump_on_the_full_stream_is_a_gap(conn: Conn) -> None:
    result = store(conn, [event("T01", 1), event("T01", 3)], gapless=True)
    assert [(f.kind, f.seq) for f in result.flags] == [("gap", 3)]
    flagged = conn.execute("SELECT kind FROM archive_flag").fetchall()
    assert flagged == [("gap",)]


def test_an_edited_row_breaks_the_chain(conn: Conn) -> None:
    store(conn, [event("T01", s, "T01-1") for s in range(1, 4)])
    conn.execute("UPDATE archive_event SET payload = replace(payload, '2', '9') WHERE seq = 2")
    flag = verify_table(conn, "T01")
    assert flag is not None and flag.seq == 2
    with pytest.raises(JournalError, match="seq 2"):
        recall_round(conn, "T01-1")


def test_recall_by_game_and_last(conn: Conn) -> None:
    store(conn, [event("T01", 1, "T01-1"), event("T01", 2, "T01-2"), event("T01", 3, "T01-3")])
    assert [e["seq"] for e in recall_round(conn, "T01-2")["events"]] == [2]
    assert [r["game_number"] for r in recall_last(conn, "T01", 2)] == ["T01-2", "T01-3"]
    with pytest.raises(InputError, match="no round"):
        recall_round(conn, "T09-1")
