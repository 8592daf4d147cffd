"""The table's own messages built without revalidation on a card's path, and what still refuses.

On every card's way to the streams the runtime builds the card's input from the shoe driver's
typed reading (`to_input`), the controller builds its envelopes and `card_dealt` bodies
(`emit`, `announce`), and the journal writes the input's and events' JSON from their fields
(`input_json`, `event_json`, `body_json`), all without the models' validation or dump. These
tests hold each of them equal to what validation and the models' dump make, and show that a
message from outside (the journal's text, a stream frame, a command) is still validated and a
malformed one refused.
"""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from test_controller_kit import CONFIGS, bench, shuffled

from drivers.shoe.adapter import to_input
from drivers.shoe.readings import CardRead, Delivery
from studio.bus.wire import WireEvent, encode_event, event_frames, parse_frames, to_event
from studio.cards import DECK, Card
from studio.errors import InputError
from studio.journal import Journal, RecordedTable
from studio.journal.chain import canonical_json
from studio.journal.recorder import bind_settings, event_json, input_json
from studio.messages import CardDrawn, Envelope, Tick, parse_input
from studio.messages.events import EVENT_TYPES, CardDealt, body_json
from studio.messages.trusted import trusted, trusted_model

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

times = st.datetimes(
    min_value=datetime(1971, 1, 1),
    max_value=datetime(2200, 1, 1),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(-timedelta(hours=5))]),
)
texts = st.text(max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)


def _validated(envelope: Envelope) -> Envelope:
    return Envelope.model_validate(envelope.model_dump())


@PROPS
@given(config=st.sampled_from(CONFIGS), camera=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_the_controllers_envelopes_are_what_validation_makes(
    config: dict[str, Any], camera: bool, seed: int
) -> None:
    b = bench(config, camera=camera)
    deck = shuffled(seed)
    b.play_round(deck)
    # A duplicate, an unreadable card and a resume add incidents and pauses to the history.
    b.start()
    b.step(b.settings.betting_seconds + 0.5)
    b.draw(deck[0].code)
    b.draw(deck[0].code)
    b.draw(None, raw="02 3F 3F 03")
    b.cmd("resume")
    assert b.of_type("card_dealt")
    for envelope in b.events:
        validated = _validated(envelope)
        assert validated == envelope
        # Byte for byte what the journal stores and the streams carry, and the models' own JSON.
        assert event_json(envelope) == canonical_json(validated.model_dump(mode="json"))
        assert envelope.model_dump_json() == validated.model_dump_json()
        assert EVENT_TYPES[envelope.type].model_validate(envelope.body).model_dump(mode="json") == (
            envelope.body
        )
        assert event_json(envelope) == canonical_json(envelope.model_dump(mode="json"))


@PROPS
@given(config=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1))
def test_a_journalled_round_stores_and_sends_the_bytes_the_validated_path_makes(
    config: dict[str, Any], seed: int
) -> None:
    # The runtime's way: each card's input made from the shoe driver's reading (`to_input`),
    # applied and journalled by `RecordedTable.step`, each event sent as the journal's text.
    b = bench(config)
    sent: list[WireEvent] = []
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "t.journal") as journal:
        bind_settings(journal, b.settings)
        table = RecordedTable(journal, b.ctl)

        def feed(inp: Any) -> list[Envelope]:
            if isinstance(inp, CardDrawn) and inp.card is not None:
                reading = CardRead(Card.parse(inp.card), "E0", b"\x02\x10\x03", 7, 1)
                inp = to_input(Delivery(reading, 0.0, inp.ts), mono=1234.5)
            stored = table.step(inp)
            b.inputs.append(inp)
            b.events.extend(event.envelope for event in stored)
            sent.extend(encode_event(event.envelope, event.body) for event in stored)
            return [event.envelope for event in stored]

        b.feed = feed  # type: ignore[method-assign]
        b.play_round(shuffled(seed))
        records = list(journal.records())
    assert any(r.kind == "input" and '"card_drawn"' in r.body for r in records)
    for record in records:
        if record.kind == "input":
            validated = parse_input(record.body).model_dump(mode="json")
        else:
            validated = Envelope.model_validate_json(record.body).model_dump(mode="json")
        assert canonical_json(validated) == record.body
    for wire in sent:
        message = parse_frames(event_frames(wire, 0))
        assert message.event is not None and message.event.envelope == wire.envelope
        again = Envelope.model_validate_json(wire.payload).model_dump(mode="json")
        assert wire.payload == canonical_json(again).encode()


@PROPS
@given(
    ts=times,
    seq=st.integers(1, 2**40),
    game=st.none() | texts,
    audience=st.sampled_from(["public", "restricted"]),
    body=st.dictionaries(texts, json_values, max_size=4),
)
def test_event_json_is_the_models_dump_as_canonical_json(
    ts: datetime, seq: int, game: str | None, audience: str, body: dict[str, Any]
) -> None:
    envelope = Envelope.model_validate(
        {
            "table": "T01",
            "seq": seq,
            "game_number": game,
            "ts": ts,
            "audience": audience,
            "type": "card_dealt",
            "body": body,
        }
    )
    assert event_json(envelope) == canonical_json(envelope.model_dump(mode="json"))
    # Not in UTC, or a body the JSON module cannot take as it stands: the model dumps it.
    odd = Envelope.model_construct(**{**dict(envelope), "ts": ts})
    assert event_json(odd) == canonical_json(odd.model_dump(mode="json"))
    dated = Envelope.model_construct(**{**dict(envelope), "body": {"at": ts}})
    assert event_json(dated) == canonical_json(dated.model_dump(mode="json"))


@PROPS
@given(
    card=st.sampled_from(DECK),
    ts=times,
    mono=st.none() | st.floats(0, 1e9, allow_nan=False),
    raw=st.binary(max_size=12),
    seq=st.integers(0, 0xFFFF),
)
def test_a_card_read_becomes_the_input_validation_makes(
    card: Any, ts: datetime, mono: float | None, raw: bytes, seq: int
) -> None:
    delivery = Delivery(CardRead(card, "E0", raw, seq, 1), 0.0, ts)
    made = to_input(delivery, mono=mono)
    assert isinstance(made, CardDrawn)
    validated = CardDrawn(ts=ts, card=card.code, raw=raw.hex(), mono=mono)
    assert made == validated
    assert made.ts.utcoffset() == timedelta(0)
    assert input_json(made) == validated.model_dump(mode="json")
    assert parse_input(canonical_json(input_json(made))) == validated


@PROPS
@given(ts=times, card=st.none() | st.sampled_from(DECK), detail=texts, raw=texts)
def test_input_json_is_the_models_dump(ts: datetime, card: Any, detail: str, raw: str) -> None:
    drawn = CardDrawn(ts=ts, card=card.code if card else None, raw=raw, detail=detail, mono=1.5)
    assert input_json(drawn) == drawn.model_dump(mode="json")
    tick = Tick(ts=ts)
    assert input_json(tick) == tick.model_dump(mode="json")


def test_body_json_of_a_card_is_the_models_dump_and_still_checks_the_audience() -> None:
    up = CardDealt(position="player-1", face="up", number=1, card="AS")
    assert body_json(up, "public") == up.model_dump(mode="json")
    down = CardDealt.model_construct(position="dealer-1", face="down", number=2, card="KH")
    with pytest.raises(ValueError, match="face-down card carries no card"):
        body_json(down, "public")
    assert body_json(down, "restricted") == {
        "position": "dealer-1",
        "face": "down",
        "number": 2,
        "card": "KH",
    }


@pytest.mark.parametrize("audience", ["public", "restricted"])
@pytest.mark.parametrize("face", ["up", "down"])
@pytest.mark.parametrize("card", ["AS", None])
def test_the_controllers_card_dealt_pairs_are_held_to_the_bodys_audience_rules(
    audience: Any, face: str, card: str | None
) -> None:
    body = CardDealt.model_construct(position="player-1", face=face, number=1, card=card)
    assert CardDealt.problem_of(audience, face, card) == body.audience_problem(audience)


class _Aliased(BaseModel):
    value: int = Field(alias="v")


def test_trusted_builds_only_a_model_it_can_build_whole() -> None:
    with pytest.raises(TypeError, match="cannot be built"):
        trusted_model(_Aliased)
    stamp = datetime(2026, 12, 5, 5, 0, tzinfo=UTC)
    with pytest.raises(TypeError, match="are not its own"):
        trusted(Tick, {"ts": stamp})  # the defaults too, or it is not the validated message
    made = trusted(Tick, {"ts": stamp, "schema_version": 1, "mono": None, "kind": "tick"})
    assert made == Tick(ts=stamp)
    assert made.model_dump_json() == Tick(ts=stamp).model_dump_json()


# -- what comes from outside is still validated ---------------------------------------------------

GOOD_INPUT = {"kind": "card_drawn", "ts": "2026-12-05T05:00:00Z", "card": "AS", "raw": "02"}


@pytest.mark.parametrize(
    "change",
    [
        {"card": "ZZ"},
        {"card": "1S"},
        {"ts": "2026-12-05T05:00:00"},
        {"surprise": 1},
        {"mono": "soon"},
    ],
    ids=["unknown card", "no such rank", "naive time", "unknown field", "mono not a number"],
)
def test_a_malformed_input_from_the_journal_or_a_command_is_refused(
    change: dict[str, Any],
) -> None:
    assert isinstance(parse_input(json.dumps(GOOD_INPUT)), CardDrawn)
    with pytest.raises(InputError):
        parse_input(json.dumps({**GOOD_INPUT, **change}))


GOOD_ENVELOPE = {
    "table": "T01",
    "seq": 3,
    "game_number": "G1",
    "ts": "2026-12-05T05:00:00Z",
    "audience": "public",
    "type": "card_dealt",
    "body": {"position": "player-1", "face": "up", "number": 1, "card": "AS"},
    "schema_version": 1,
}


@pytest.mark.parametrize(
    "change",
    [
        {"type": "Card-Dealt"},
        {"seq": 0},
        {"ts": "2026-12-05T05:00:00"},
        {"audience": "everyone"},
        {"extra": True},
        {"table": ""},
    ],
    ids=["bad type", "seq 0", "naive time", "bad audience", "unknown field", "no table"],
)
def test_a_malformed_envelope_from_a_stream_is_refused(change: dict[str, Any]) -> None:
    good = json.dumps(GOOD_ENVELOPE).encode()
    assert parse_frames([b"T01.card_dealt", good, b"2"]).event is not None
    bad = json.dumps({**GOOD_ENVELOPE, **change}).encode()
    with pytest.raises(InputError):
        to_event(bad)
    with pytest.raises(InputError):
        parse_frames([b"T01.card_dealt", bad, b"2"])
