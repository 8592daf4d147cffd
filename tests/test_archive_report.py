"""`studio report --archive`: rounds, voids and incidents per table and dealer, from PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from postgres_support import Cluster

from studio.archive.migrate import migrate
from studio.archive.store import store
from studio.bus.wire import WireEvent, to_event
from studio.cli import main

T0 = datetime(2026, 12, 1, 10, tzinfo=UTC)


class Table:
    """Writes one table's events with gapless seqs, a second apart."""

    def __init__(self, table: str) -> None:
        self.table, self.seq = table, 0

    def event(
        self, game: str | None, type_: str, audience: str = "public", **body: object
    ) -> WireEvent:
        self.seq += 1
        return to_event(
            {
                "table": self.table,
                "seq": self.seq,
                "game_number": game,
                "ts": (T0 + timedelta(minutes=self.seq)).isoformat(),
                "audience": audience,
                "type": type_,
                "body": body,
            }
        )

    def round(
        self, game: str, dealer: str | None, incidents: list[str], void: bool
    ) -> list[WireEvent]:
        events = [self.event(game, "round_opened", game_number=game)]
        if dealer is not None:
            events.append(
                self.event(game, "command_accepted", "restricted", actor=dealer, role="dealer")
            )
        for number, kind in enumerate(incidents, start=1):
            # The public pause and the restricted detail both name the incident: counted once.
            events.append(self.event(game, "round_paused", incident=number, kind=kind))
            events.append(
                self.event(game, "incident_reported", "restricted", incident=number, kind=kind)
            )
        if void:
            events.append(self.event(game, "round_voided", refunded=[]))
        return events


@pytest.fixture
def dsn(cluster: Cluster) -> Iterator[str]:
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        migrate(c)
        t1, t2 = Table("T01"), Table("T02")
        events = t1.round("T01-1", "alice", ["camera_mismatch"], void=True)
        events += t1.round("T01-2", "bob", [], void=False)
        events += t2.round("T02-1", "alice", ["deal_timeout", "camera_mismatch"], void=False)
        events += t2.round("T02-2", None, [], void=False)
        store(c, events)
        late = Table("T03")
        late.seq = 10_000  # opened a week later: outside the period
        store(c, late.round("T03-1", "carol", [], void=True))
    yield cluster.dsn


PERIOD = ["--from", "2026-12-01T00:00", "--to", "2026-12-02T00:00+00:00"]


def report(capsys: pytest.CaptureFixture[str], dsn: str, *form: str) -> str:
    assert main(["report", "--archive", dsn, *PERIOD, *form]) == 0
    return capsys.readouterr().out


def test_json_counts_per_table_and_dealer(dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    got = json.loads(report(capsys, dsn, "--json"))
    assert got["tables"] == [
        {"key": "T01", "rounds": 2, "voids": 1, "incidents": {"camera_mismatch": 1}},
        {
            "key": "T02",
            "rounds": 2,
            "voids": 0,
            "incidents": {"camera_mismatch": 1, "deal_timeout": 1},
        },
    ]
    assert got["dealers"] == [
        {"key": "-", "rounds": 1, "voids": 0, "incidents": {}},
        {
            "key": "alice",
            "rounds": 2,
            "voids": 1,
            "incidents": {"camera_mismatch": 2, "deal_timeout": 1},
        },
        {"key": "bob", "rounds": 1, "voids": 0, "incidents": {}},
    ]


def test_csv_has_a_column_per_kind(dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = list(csv.reader(io.StringIO(report(capsys, dsn, "--csv"))))
    assert rows[0] == [
        "by",
        "key",
        "rounds",
        "voids",
        "incidents_camera_mismatch",
        "incidents_deal_timeout",
    ]
    assert ["table", "T02", "2", "0", "1", "1"] in rows
    assert ["dealer", "alice", "2", "1", "2", "1"] in rows
    assert len(rows) == 6


def test_text_for_people_and_bad_periods(dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = report(capsys, dsn)
    assert "T01                    2      1  camera_mismatch 1" in text
    assert "bob                    1      0  none" in text
    assert main(["report", "--archive", dsn, "--from", "yesterday", "--to", "2026-12-02"]) == 2
    assert "ISO 8601" in capsys.readouterr().err
    assert main(["report", "--archive", dsn, "--from", "2026-12-02", "--to", "2026-12-01"]) == 2
    assert "after --from" in capsys.readouterr().err
