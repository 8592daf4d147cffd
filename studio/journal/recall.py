"""Game recall: whole rounds rebuilt from the journal's stored events.

Regulators require the recall of at least the last ten rounds; the journal keeps every round, so
any round can be recalled. A recalled round is a JSON object (a contract other tools read):

    {"game_number", "game", "variant", "status": "completed" | "voided" | "in-progress",
     "positions": {position: card code}, "result", "incidents", "events"}

`positions` are the cards on record (restricted view: face-down values included) after every
correction and discard; `result` is the `round_result` body (None until there is one);
`incidents` are the `incident_reported` bodies in order; `events` are every event of the round,
public and restricted, in its envelope, in sequence order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from studio.errors import InputError, JournalError
from studio.journal.chain import Record
from studio.journal.store import Journal

RecalledRound = dict[str, Any]
"""One recalled round in its JSON shape (see the module docstring)."""


def recall_round(journal: Journal, game_number: str) -> RecalledRound:
    """The round `game_number`; raises `InputError` when the journal has no such round.

    Raises `JournalError` for an event record whose content does not match its hash: a recall
    must never show an edited card as the one on record.
    """
    events = [_checked(journal, record) for record in journal.round_events(game_number)]
    if not events:
        raise InputError(f"{journal.path}: no round {game_number!r} in the journal")
    return build_round(game_number, events)


def _checked(journal: Journal, record: Record) -> dict[str, Any]:
    if record.digest() != record.hash:
        raise JournalError(
            f"{journal.path}: {record.label()} does not match its hash (record edited); "
            f"run `studio journal verify {journal.path}`"
        )
    return record.data()


def recall_last(journal: Journal, count: int) -> list[RecalledRound]:
    """The last `count` rounds, oldest first; raises `InputError` for a count below 1."""
    if count < 1:
        raise InputError(f"--last needs a count of at least 1, got {count}")
    return [recall_round(journal, number) for number in journal.game_numbers()[-count:]]


def build_round(game_number: str, events: Sequence[dict[str, Any]]) -> RecalledRound:
    """Assemble a recalled round from its event envelopes (JSON form, in sequence order)."""
    game = variant = None
    positions: dict[str, str] = {}
    result: dict[str, Any] | None = None
    incidents: list[dict[str, Any]] = []
    status = "in-progress"
    for event in events:
        kind, body = event["type"], event["body"]
        if kind == "round_opened":
            game, variant = body.get("game"), body.get("variant")
        elif kind in ("card_dealt", "card_corrected") and body.get("card") is not None:
            positions[body["position"]] = body["card"]
        elif kind == "card_discarded" and event["audience"] == "restricted":
            if body.get("position") is not None:
                positions.pop(body["position"], None)
        elif kind == "card_revealed":
            positions[body["position"]] = body["card"]
        elif kind == "incident_reported":
            incidents.append(body)
        elif kind == "round_result":
            result, status = body, "completed"
            positions.update(body.get("positions", {}))
        elif kind == "round_voided":
            status = "voided"
    return {
        "game_number": game_number,
        "game": game,
        "variant": variant,
        "status": status,
        "positions": positions,
        "result": result,
        "incidents": incidents,
        "events": list(events),
    }


def _when(ts: str) -> str:
    # The date is already in the game number; milliseconds are what a dealer's timing needs.
    return datetime.fromisoformat(ts).strftime("%H:%M:%S.%f")[:-3]


def _detail(body: dict[str, Any]) -> str:
    parts = []
    for key, value in body.items():
        if key == "judgement" or value in (None, "", [], {}):
            continue
        text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
        parts.append(f"{key}={text}")
    return " ".join(parts)


def format_round(recalled: RecalledRound) -> str:
    """A recalled round as text for a person: header, cards, incidents, result, timeline."""
    lines = [
        f"{recalled['game_number']}  {recalled['game']} {recalled['variant']}  "
        f"{recalled['status']}",
        "  cards: "
        + ("  ".join(f"{pos} {card}" for pos, card in recalled["positions"].items()) or "(none)"),
    ]
    for incident in recalled["incidents"]:
        lines.append(f"  incident: {_detail(incident)}")
    result = recalled["result"]
    if result is not None:
        lines.append(f"  result: {json.dumps(result.get('judgement'), separators=(',', ':'))}")
    lines.append("  timeline:")
    for event in recalled["events"]:
        audience = "R" if event["audience"] == "restricted" else " "
        lines.append(
            f"    {event['seq']:>7} {_when(event['ts'])} {audience} {event['type']} "
            f"{_detail(event['body'])}".rstrip()
        )
    return "\n".join(lines)
