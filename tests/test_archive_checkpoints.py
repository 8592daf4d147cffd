"""The archive stores the tables' signed checkpoints and flags one that does not match its events.

A real table stream (publisher, replay service, CURVE) and a real PostgreSQL (the module's
cluster): the checkpoints ride the restricted stream as notices, as `studio run` sends them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
from postgres_support import Cluster, wait_for
from test_bus_support import Keys, TableRig, keys_fixture, mixed_events, no_leaks

from studio.archive.follow import Progress, follow
from studio.bus import Subscriber
from studio.bus.wire import to_event
from studio.journal.anchors import CheckpointSigner
from studio.journal.chain import EVENTS_GENESIS, event_link
from studio.messages.notices import Checkpoint

__all__ = ["keys_fixture", "no_leaks"]


def _events_head(events: list[dict[str, Any]]) -> str:
    head = EVENTS_GENESIS
    for event in events:
        head = event_link(head, to_event(event).payload)
    return head


def _checkpoint(
    signer: CheckpointSigner, table: str, records: int, seq: int, head: str
) -> Checkpoint:
    return signer.sign(
        Checkpoint(
            table=table,
            ts=datetime.now(UTC),
            records=records,
            head=f"{records:064x}",
            last_seq=seq,
            events_head=head,
            reason="round_end",
            key="0" * 64,
            signature="0" * 128,
        )
    )


def _rows(dsn: str, table: str) -> tuple[list[tuple[Any, ...]], list[str]]:
    with psycopg.connect(dsn) as conn:
        kept = conn.execute(
            "SELECT records, last_seq, matched FROM archive_checkpoint WHERE table_id = %s"
            " ORDER BY records",
            (table,),
        ).fetchall()
        flags = conn.execute(
            "SELECT detail FROM archive_flag WHERE table_id = %s AND kind = 'checkpoint'"
            " ORDER BY id",
            (table,),
        ).fetchall()
    return [tuple(r) for r in kept], [str(f[0]) for f in flags]


def test_checkpoints_are_stored_and_a_mismatch_is_flagged(
    keys: Keys, cluster: Cluster, tmp_path: Path
) -> None:
    table = "CK1"
    events = mixed_events(table, 30)
    signer = CheckpointSigner.load_or_create(tmp_path)
    (tmp_path / "impostor").mkdir()
    impostor = CheckpointSigner.load_or_create(tmp_path / "impostor")
    with TableRig(keys, table) as rig:

        def subscribe(after: Mapping[str, int]) -> Subscriber:
            return rig.subscriber("restricted", after=dict(after))

        stop, progress = threading.Event(), Progress()
        thread = threading.Thread(
            target=follow,
            args=(cluster.dsn, subscribe, stop),
            kwargs={"gapless": True, "retry": 0.2, "progress": progress},
        )
        thread.start()
        try:
            for event in events[:20]:
                rig.emit(event)
            assert wait_for(lambda: progress.stored >= 20, 20.0)
            good = _checkpoint(signer, table, 40, 20, _events_head(events[:20]))
            rig.publisher.publish_notice(good)
            # A checkpoint ahead of what is stored waits for its events, then matches.
            ahead = _checkpoint(signer, table, 60, 30, _events_head(events))
            rig.publisher.publish_notice(ahead)
            assert wait_for(lambda: len(_rows(cluster.dsn, table)[0]) == 2, 20.0)
            for event in events[20:]:
                rig.emit(event)
            # The table's journal no longer holds what the archive stored (a rewritten round).
            rewritten = _checkpoint(signer, table, 70, 30, _events_head(events[:29]))
            rig.publisher.publish_notice(rewritten)
            # Another key for the same table, and the same record count with another head.
            rig.publisher.publish_notice(_checkpoint(impostor, table, 80, 30, good.events_head))
            rig.publisher.publish_notice(
                _checkpoint(signer, table, 40, 21, _events_head(events[:21]))
            )
            assert wait_for(lambda: len(_rows(cluster.dsn, table)[1]) == 3, 20.0)
        finally:
            stop.set()
            thread.join()
    kept, flags = _rows(cluster.dsn, table)
    assert kept == [(40, 20, True), (60, 30, True), (70, 30, False)]
    # Stored and checked in whatever batches the stream made: the order of the flags may vary.
    for said in (
        "chains events 1..30",
        "another key than the table's",
        "two checkpoints of record 40 disagree",
    ):
        assert sum(said in flag for flag in flags) == 1, flags
    assert [f.kind for f in progress.flags] == ["checkpoint"] * 3
