"""The console's recall keeps what each role may see apart: a face-down card never turned (a
voided round) and a manager's note are in the restricted recall only; counts go to the dealer on
duty."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from studio.console.history import RoundBook
from studio.messages import Envelope

_seq = itertools.count(1)
GAME = "T01-1"


def _event(event_type: str, audience: str, **body: Any) -> Envelope:
    return Envelope(
        table="T01",
        seq=next(_seq),
        game_number=GAME,
        ts=datetime(2026, 12, 4, 23, 0, tzinfo=UTC),
        audience=audience,  # type: ignore[arg-type]
        type=event_type,
        body=body,
    )


def test_a_voided_rounds_face_down_card_and_the_managers_note_stay_restricted() -> None:
    book = RoundBook()
    book.dealer = "bob"
    ts = "2026-12-04T23:00:00+00:00"
    for event in (
        _event(
            "round_opened",
            "public",
            game_number=GAME,
            game="caribbean-stud",
            variant="live",
            procedure=None,
            yellow_at=ts,
            closes_at=ts,
        ),
        _event("card_dealt", "public", position="player-1", face="up", number=1, card="AS"),
        _event("card_dealt", "restricted", position="player-1", face="up", number=1, card="AS"),
        _event("card_dealt", "public", position="dealer-2", face="down", number=2, card=None),
        _event("card_dealt", "restricted", position="dealer-2", face="down", number=2, card="KH"),
        _event("round_paused", "public", incident=1, kind="unreadable_card"),
        _event(
            "incident_reported",
            "restricted",
            incident=1,
            kind="unreadable_card",
            position="player-2",
            cards=[],
            device="shoe",
            raw="",
            detail="KH at dealer-2",
        ),
        _event(
            "command_accepted",
            "restricted",
            command="void",
            actor="alice via console",
            role="shift_manager",
            position=None,
            card=None,
            note="dealer-2 was the KH",
        ),
        _event(
            "round_voided",
            "public",
            jackpot_compensation=False,
            incidents=[1],
            reason="voided by the shift manager",
        ),
    ):
        book.add(event)
    [record] = book.rounds
    assert record.cards == {"player-1": "AS", "dealer-2": "KH"}
    assert record.public_cards == {"player-1": "AS"}
    assert "KH" not in " ".join(record.decisions + record.public_incidents)
    assert record.commands == ["void by alice via console (dealer-2 was the KH)"]
    assert record.public_incidents == ["unreadable_card"]
    assert record.outcome.startswith("voided")
    counts = book.counts["bob"]
    assert (counts.rounds, counts.voids, dict(counts.incidents)) == (1, 1, {"unreadable_card": 1})


def test_the_recall_keeps_the_last_ten_rounds_in_order() -> None:
    book = RoundBook()
    ts = "2026-12-04T23:00:00+00:00"
    games = [f"T01-{n}" for n in range(1, 13)]
    for game in games:
        book.add(
            _event(
                "round_opened",
                "public",
                game_number=game,
                game="caribbean-stud",
                variant="live",
                procedure=None,
                yellow_at=ts,
                closes_at=ts,
            )
        )
    assert [r.game_number for r in book.rounds] == games[-10:]
