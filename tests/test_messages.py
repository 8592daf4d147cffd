"""The message vocabulary: inputs parse from their journal JSON, unknown fields are refused,
event bodies keep to their audiences, and `studio schema` documents everything."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError

from studio.cli import main
from studio.errors import InputError
from studio.messages import (
    EVENT_BODIES,
    EVENT_TYPES,
    INPUT_TYPES,
    SCHEMA_VERSION,
    CardDealt,
    CardDrawn,
    CardSeen,
    Command,
    DeviceStatus,
    Envelope,
    IncidentReported,
    Restarted,
    TableSettings,
    Tick,
    body_json,
    parse_input,
)

T = datetime(2026, 11, 29, 14, 32, 7, 250000, tzinfo=UTC)


@pytest.mark.parametrize(
    "inp",
    [
        CardDrawn(ts=T, card="AS", raw="02 41 53 03"),
        CardDrawn(ts=T, card=None),
        CardSeen(ts=T, zone="dealer-2", face="down"),
        CardSeen(ts=T, zone="player-1", face="up", card="TD"),
        CardSeen(ts=T, zone="player-2", face="up"),  # face up, but the camera cannot read it
        DeviceStatus(ts=T, device="camera", status="fault", detail="no frames"),
        Command(
            ts=T, actor="m3", role="shift_manager", command="correct_card", position="p", card="x"
        ),
        Tick(ts=T),
        Restarted(ts=T),
    ],
)
def test_every_input_round_trips_through_its_journal_json(inp: object) -> None:
    text = inp.model_dump_json()  # type: ignore[attr-defined]
    assert parse_input(text) == inp
    assert parse_input(text.encode()) == inp
    assert json.loads(text)["schema_version"] == SCHEMA_VERSION


def test_card_codes_are_canonical_and_times_utc() -> None:
    local = datetime(2026, 11, 29, 15, 32, 7, tzinfo=timezone(timedelta(hours=1)))
    inp = parse_input(CardDrawn(ts=local, card="10h").model_dump_json())
    assert isinstance(inp, CardDrawn)
    assert inp.card == "TH" and inp.ts == datetime(2026, 11, 29, 14, 32, 7, tzinfo=UTC)
    assert inp.ts.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("{", "Invalid JSON"),
        ('{"kind": "dance", "ts": "2026-11-29T14:32:07Z"}', "does not match any of the expected"),
        ('{"kind": "tick", "ts": "2026-11-29T14:32:07"}', "tick.ts"),
        ('{"kind": "tick", "ts": "2026-11-29T14:32:07Z", "extra": 1}', "tick.extra"),
        ('{"kind": "card_drawn", "ts": "2026-11-29T14:32:07Z", "card": "1X"}', "unknown card"),
        ('{"kind": "card_seen", "ts": "2026-11-29T14:32:07Z", "zone": "a", "face": "down",'
         ' "card": "AS"}', "face"),
        ('{"kind": "command", "ts": "2026-11-29T14:32:07Z", "actor": "a", "role": "boss",'
         ' "command": "resume"}', "command.role"),
        ('{"ts": "2026-11-29T14:32:07Z"}', "kind"),
    ],
)  # fmt: skip
def test_malformed_inputs_raise_one_clear_input_error(text: str, where: str) -> None:
    with pytest.raises(InputError, match="bad input") as caught:
        parse_input(text)
    assert where in str(caught.value)
    assert "\n" not in str(caught.value)


def test_envelopes_refuse_unknown_fields_and_naive_times() -> None:
    good = {
        "table": "T01",
        "seq": 1,
        "game_number": None,
        "ts": T,
        "audience": "public",
        "type": "round_opened",
        "body": {},
        "schema_version": 1,
    }
    Envelope.model_validate(good)
    with pytest.raises(ValidationError):
        Envelope.model_validate({**good, "secret": 1})
    with pytest.raises(ValidationError):
        Envelope.model_validate({**good, "ts": T.replace(tzinfo=None)})
    with pytest.raises(ValidationError):
        Envelope.model_validate({**good, "audience": "vip"})


def test_restricted_only_bodies_cannot_be_made_public() -> None:
    incident = IncidentReported(
        incident=1,
        kind="duplicate_card",
        position=None,
        cards=["AS"],
        device=None,
        raw="",
        detail="",
    )
    with pytest.raises(ValueError, match="may not be public"):
        body_json(incident, "public")
    assert body_json(incident, "restricted")["cards"] == ["AS"]
    dealt = CardDealt(position="dealer-2", face="down", number=7, card=None)
    assert body_json(dealt, "public")["card"] is None


def test_event_type_names_are_unique_snake_case_past_tense() -> None:
    assert len(EVENT_TYPES) == len(EVENT_BODIES)
    for name in EVENT_TYPES:
        assert name == name.lower() and " " not in name
        last = name.split("_")[-1]
        assert last.endswith("ed") or last in ("dealt", "result"), name


def test_settings_refuse_unknown_fields_games_and_procedures() -> None:
    assert TableSettings(game="caribbean-stud", procedure="late").rules().options == {
        "procedure": "late"
    }
    for bad in (
        {"game": "blackjack"},
        {"game": "ultimate-holdem", "procedure": "late"},
        {"game": "caribbean-stud", "variant": "classic", "procedure": "sideways"},
        {"game": "caribbean-stud", "betting_seconds": 5, "yellow_seconds": 5},
        {"game": "caribbean-stud", "colour": "green"},
    ):
        with pytest.raises(ValidationError):
            TableSettings(**bad)  # type: ignore[arg-type]


def test_studio_schema_writes_every_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "schema.json"
    assert main(["schema", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["schema_version"] == SCHEMA_VERSION
    assert set(doc["envelope"]["properties"]) == set(Envelope.model_fields)
    kinds = {m.model_fields["kind"].default for m in INPUT_TYPES}
    assert set(doc["inputs"]) == kinds
    assert set(doc["events"]) == set(EVENT_TYPES)
    assert doc["events"]["incident_reported"]["x-audiences"] == ["restricted"]
    assert doc["inputs"]["command"]["additionalProperties"] is False
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == doc


def test_studio_schema_reports_an_unwritable_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", "--out", str(tmp_path / "no" / "such" / "dir.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("studio schema: cannot write") and err.count("\n") == 1
