"""The JSON Schema `studio schema` writes is strict enough for a consumer that has only it.

A third-party validator (`jsonschema`) holds every envelope of simulated rounds of both games
(faults, resumes, voids, a camera) against the schema's `envelope`, and every bad example
below, each something our table never sends, is refused by the schema and by Python alike
(`check_event` for envelopes, the body models for bodies, `Heartbeat` for heartbeats).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from copy import deepcopy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from studio.bus.wire import heartbeat_frames
from studio.cards import DECK, parse_cards
from studio.errors import InputError
from studio.games import GAMES, get_rules, judge, variants
from studio.games.judgement import seat
from studio.journal import Journal
from studio.messages import (
    EVENT_TYPES,
    SCHEMA_VERSION,
    CardDealt,
    Envelope,
    Heartbeat,
    RoundResult,
    TableSettings,
    body_json,
    check_event,
    json_schema,
)
from studio.messages.names import CARD_CODE_PATTERN, POSITIONS
from studio.simulation import FaultRates, simulate

NODE_DIR = Path(__file__).resolve().parent / "node"
SCHEMA = json_schema()
ENVELOPE = Draft202012Validator(SCHEMA["envelope"])
HEARTBEAT = Draft202012Validator(SCHEMA["heartbeat"])
FAULTS = FaultRates(duplicate=0.04, unreadable=0.04, out_of_turn=0.1, mismatch=0.04, device=0.03)
T = "2026-11-29T14:32:07.250000Z"


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    # Logic, not the disk: on tmpfs a durable commit costs nothing on the shared machine.
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=base, prefix="studio-schema-") as name:
        yield Path(name)


def test_every_schema_in_the_document_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA["envelope"])
    Draft202012Validator.check_schema(SCHEMA["heartbeat"])
    for body in SCHEMA["events"].values():
        Draft202012Validator.check_schema(body)


def test_the_envelope_has_one_branch_per_event_type_chosen_by_type() -> None:
    envelope = SCHEMA["envelope"]
    assert envelope["discriminator"]["propertyName"] == "type"
    assert set(envelope["discriminator"]["mapping"]) == set(EVENT_TYPES)
    assert len(envelope["oneOf"]) == len(EVENT_TYPES)
    assert envelope["properties"]["type"]["enum"] == list(EVENT_TYPES)
    assert set(envelope["required"]) == set(Envelope.model_fields)
    assert envelope["properties"]["schema_version"]["const"] == SCHEMA_VERSION
    for name, body in SCHEMA["events"].items():
        branch = envelope["$defs"][envelope["discriminator"]["mapping"][name].split("/")[-1]]
        audience = branch["properties"]["audience"]
        assert audience.get("enum", [audience.get("const")]) == body["x-audiences"]
        assert branch["properties"]["body"] == {"$ref": f"#/$defs/{body['title']}"}
        # Every field is always sent, so every field is required.
        assert set(body.get("required", [])) == set(body.get("properties", {}))


def test_positions_come_from_every_game_and_card_codes_from_the_deck() -> None:
    names = {p for g in GAMES for v in variants(g) for p in get_rules(g, v).positions}
    assert set(POSITIONS) == names
    assert SCHEMA["envelope"]["$defs"]["Position"]["enum"] == list(POSITIONS)
    assert SCHEMA["envelope"]["$defs"]["CardCode"]["title"] == "CardCode"
    deck = {card.code for card in DECK}
    all_codes = {r + s for r in "0123456789TJQKAZ" for s in "CDHSXcdhs"}
    assert {c for c in all_codes if re.fullmatch(CARD_CODE_PATTERN, c)} == deck


def _envelope(type_: str, body: dict[str, Any], audience: str = "public") -> dict[str, Any]:
    return {
        "table": "T01",
        "seq": 7,
        "game_number": "T01-20261129-143207",
        "ts": T,
        "audience": audience,
        "type": type_,
        "body": body,
        "schema_version": SCHEMA_VERSION,
    }


DEALT_UP = {"position": "player-1", "face": "up", "number": 1, "card": "AS"}
DEALT_DOWN = {"position": "dealer-2", "face": "down", "number": 7, "card": None}
HAND = {"description": "pair of aces", "category": "one-pair", "code": 1234}
JUDGEMENT = {
    "game": "caribbean-stud",
    "variant": "live",
    "player": HAND,
    "dealer": HAND,
    "dealer_qualifies": True,
    "side_bets": {"jackpot": {"outcome": "lose", "returned": 0}},
    "paths": {"call": {"ante": {"outcome": "push", "returned": 1}}, "fold": {}},
    "refused": {},
}
GOOD = [
    _envelope("card_dealt", DEALT_UP),
    _envelope("card_dealt", DEALT_DOWN),
    _envelope("card_dealt", {**DEALT_DOWN, "card": "KD"}, "restricted"),
    _envelope("round_result", {"positions": {"player-1": "AS"}, "judgement": JUDGEMENT}),
    _envelope("deck_changed", {"deck": "T01-deck-20261129-143207"}),
]


@pytest.mark.parametrize("data", GOOD, ids=lambda d: d["type"])
def test_good_examples_pass_the_schema_and_python(data: dict[str, Any]) -> None:
    ENVELOPE.validate(data)
    check_event(Envelope.model_validate(data))


def _with(change: Callable[[dict[str, Any]], object]) -> Callable[[], dict[str, Any]]:
    def make() -> dict[str, Any]:
        data = deepcopy(GOOD[0])
        change(data)
        return data

    return make


def _result(change: Callable[[dict[str, Any]], object]) -> Callable[[], dict[str, Any]]:
    def make() -> dict[str, Any]:
        data = deepcopy(GOOD[3])
        change(data["body"]["judgement"])
        return data

    return make


BAD: dict[str, Callable[[], dict[str, Any]]] = {
    "unknown type": _with(lambda d: d.update(type="card_danced")),
    "body of another type": _with(lambda d: d.update(type="round_opened")),
    "any object as body": lambda: _envelope("round_opened", {"anything": 1}),
    "missing body field": _with(lambda d: d["body"].pop("number")),
    "unknown body field": _with(lambda d: d["body"].update(secret="AS")),
    "position player_1": _with(lambda d: d["body"].update(position="player_1")),
    "card ZZ": _with(lambda d: d["body"].update(card="ZZ")),
    "card not canonical": _with(lambda d: d["body"].update(card="as")),
    "number 0": _with(lambda d: d["body"].update(number=0)),
    "public face-down card value": lambda: _envelope("card_dealt", {**DEALT_DOWN, "card": "KD"}),
    "restricted card_dealt without card": lambda: _envelope("card_dealt", DEALT_DOWN, "restricted"),
    "restricted card_corrected without card": lambda: _envelope(
        "card_corrected",
        {"position": "player-1", "face": "up", "card": None, "previous": "AS"},
        "restricted",
    ),
    "restricted-only type in public": lambda: _envelope(
        "rescan_started", {"positions": ["player-1"]}
    ),
    "public-only type restricted": lambda: _envelope(
        "deck_changed", {"deck": "T01-deck-20261129-143207"}, "restricted"
    ),
    "no schema_version": _with(lambda d: d.pop("schema_version")),
    "another schema_version": _with(lambda d: d.update(schema_version=SCHEMA_VERSION + 1)),
    "judgement any object": lambda: _envelope(
        "round_result", {"positions": {"player-1": "AS"}, "judgement": {"anything": 1}}
    ),
    "judgement without paths": _result(lambda j: j.pop("paths")),
    "judgement unknown path": _result(lambda j: j["paths"].update(raise_={})),
    "judgement float return": _result(lambda j: j["side_bets"]["jackpot"].update(returned=0.5)),
    "judgement unknown outcome": _result(
        lambda j: j["side_bets"]["jackpot"].update(outcome="maybe")
    ),
    "judgement unknown category": _result(lambda j: j["player"].update(category="pair")),
    "result position unknown": lambda: _envelope(
        "round_result", {"positions": {"seat-9": "AS"}, "judgement": JUDGEMENT}
    ),
}


@pytest.mark.parametrize("make", list(BAD.values()), ids=list(BAD))
def test_what_the_table_never_sends_is_refused_by_the_schema_and_python(
    make: Callable[[], dict[str, Any]],
) -> None:
    data = make()
    assert not ENVELOPE.is_valid(data)
    if "schema_version" not in data:
        return  # Python's `Envelope` fills in the current version: the schema alone refuses it.
    with pytest.raises((InputError, ValidationError)):
        check_event(Envelope.model_validate(data))


def test_ajv_as_the_node_consumer_uses_it_agrees(tmp_path: Path) -> None:
    """Another validator in another language reads the schema the same way."""
    node = shutil.which("node")
    if node is None or not (NODE_DIR / "node_modules" / "ajv").is_dir():
        pytest.skip("node or its npm packages missing: npm ci --prefix tests/node")
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA))
    examples = GOOD + [make() for make in BAD.values()]
    result = subprocess.run(
        [node, str(NODE_DIR / "validate.mjs"), str(schema), "envelope"],
        input="".join(json.dumps(e) + "\n" for e in examples),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    verdicts = result.stdout.splitlines()
    assert verdicts[: len(GOOD)] == ["ok"] * len(GOOD)
    for name, verdict in zip(BAD, verdicts[len(GOOD) :], strict=True):
        assert verdict.startswith("invalid"), name


def test_body_models_refuse_unknown_positions_and_card_codes() -> None:
    with pytest.raises(ValidationError, match="position"):
        CardDealt(position="player_1", face="up", number=1, card="AS")
    with pytest.raises(ValidationError, match="card"):
        CardDealt(position="player-1", face="up", number=1, card="ZZ")
    with pytest.raises(ValidationError, match="judgement"):
        RoundResult(positions={"player-1": "AS"}, judgement={"anything": 1})
    # The controller's one gate to the public stream refuses a face-down card's value too.
    secret = CardDealt(position="dealer-2", face="down", number=7, card="KD")
    with pytest.raises(ValueError, match="face-down"):
        body_json(secret, "public")
    assert body_json(secret, "restricted")["card"] == "KD"


@pytest.mark.parametrize(
    ("game", "groups", "expect"),
    [
        # A royal flush: the progressive Jackpot, and the 5+1 Bonus judged on its own hand.
        (
            "caribbean-stud",
            {"player": "AS KS QS JS TS", "dealer": "2C 3D 4H 5S 7C"},
            ['"progressive": true', '"hand": {'],
        ),
        # A straight flush: a fixed Jackpot prize "for one".
        (
            "caribbean-stud",
            {"player": "9S 8S 7S 6S 5S", "dealer": "2C 3D 4H AS 7C"},
            ['"fixed_prize": 2500'],
        ),
        # A flush pays the Blind 3:2: a figure that is not whole, sent as "5/2".
        (
            "ultimate-holdem",
            {"player": "AH KH", "dealer": "5C 6D", "board": "2H 7H 9H 3C 4D"},
            ['"returned": "5/2"'],
        ),
    ],
    ids=["royal-flush", "straight-flush", "holdem-flush"],
)
def test_judgements_with_their_optional_keys_fit_the_judgement_schema(
    game: str, groups: dict[str, str], expect: list[str]
) -> None:
    rules = get_rules(game)
    cards = seat(rules, {name: parse_cards(text) for name, text in groups.items()})
    judgement = judge(rules, cards).to_json()
    body = RoundResult(positions={p: c.code for p, c in cards.items()}, judgement=judgement)
    assert body.judgement == judgement  # still the plain dict `to_json()` made
    ENVELOPE.validate(_envelope("round_result", body_json(body, "public")))
    text = json.dumps(judgement)
    assert all(part in text for part in expect), text


def test_a_heartbeat_as_the_bus_sends_it_is_in_the_schema() -> None:
    for now in (None, datetime(2026, 11, 29, 12, 0, tzinfo=UTC)):
        _topic, payload, position = heartbeat_frames("T01", 41, now)
        beat = json.loads(payload)
        HEARTBEAT.validate(beat)
        assert Heartbeat.model_validate_json(payload).last_seq == int(position) == 41
    good = {"table": "T01", "last_seq": 0, "ts": T}
    for bad in ({"seq": 1}, {"last_seq": -1}, {"last_seq": "41"}, {"table": ""}):
        assert not HEARTBEAT.is_valid({**good, **bad}), bad
        with pytest.raises(ValidationError):
            Heartbeat.model_validate_json(json.dumps({**good, **bad}))
    for key in good:
        missing = {k: v for k, v in good.items() if k != key}
        assert not HEARTBEAT.is_valid(missing)


@pytest.mark.parametrize(
    ("settings", "manager"),
    [
        (TableSettings(game="caribbean-stud", camera=True), "resume"),
        (TableSettings(game="caribbean-stud", variant="classic", procedure="late"), "void"),
        (TableSettings(game="ultimate-holdem", camera=True), "void"),
        (TableSettings(game="ultimate-holdem"), "resume"),
        (TableSettings(game="ultimate-holdem", camera=True, card_source="camera"), "resume"),
    ],
    ids=[
        "stud-camera-resume",
        "stud-classic-late-void",
        "holdem-camera-void",
        "holdem-resume",
        "holdem-camera-only-resume",
    ],
)
def test_every_envelope_of_simulated_rounds_validates(
    tmp_path: Path, settings: TableSettings, manager: str
) -> None:
    path = tmp_path / "table.journal"
    # 30 rounds of seed 5 show every envelope type and audience that 100 showed in each of these
    # tables; each envelope costs about 12 ms of schema validation, so 100 took 50 s a table.
    simulate(path, settings, rounds=30, seed=5, faults=FAULTS, manager=manager)  # type: ignore[arg-type]
    seen: set[tuple[str, str]] = set()
    with Journal(path, readonly=True) as journal:
        for record in journal.records():
            if record.kind != "event":
                continue
            data = record.data()
            errors = list(ENVELOPE.iter_errors(data))
            assert not errors, (data, errors[0].message)
            check_event(Envelope.model_validate(data))
            seen.add((data["type"], data["audience"]))
    # Varied enough to mean something: both audiences of a card, results, pauses, a rescan.
    types = {t for t, _ in seen}
    assert {("card_dealt", "public"), ("card_dealt", "restricted")} <= seen
    assert {"round_result", "round_paused", "incident_reported"} <= types
    if manager == "resume":
        assert {"round_resumed", "card_discarded", "command_accepted"} <= types
    else:
        assert "round_voided" in types
