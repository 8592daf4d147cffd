"""`studio recall`: whole rounds from the journal, as text and in the JSON contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from studio.cli import main
from studio.journal import Journal

GAME = "T01-20261129-100000"
TS = "2026-11-29T10:00:00Z"


def _event(seq: int, type_: str, body: dict[str, Any], audience: str = "public") -> dict[str, Any]:
    return {
        "table": "T01",
        "seq": seq,
        "game_number": GAME if type_ != "device_health_changed" else None,
        "ts": TS,
        "audience": audience,
        "type": type_,
        "body": body,
        "schema_version": 1,
    }


R = "restricted"
ROUND = [
    ("round_opened", {"game": "ultimate-holdem", "variant": "live", "game_number": GAME}, "public"),
    ("card_dealt", {"position": "player-1", "face": "up", "number": 1, "card": "AS"}, "public"),
    ("card_dealt", {"position": "dealer-1", "face": "down", "number": 2, "card": None}, "public"),
    ("card_dealt", {"position": "dealer-1", "face": "down", "number": 2, "card": "KH"}, R),
    ("card_dealt", {"position": "flop-1", "face": "up", "number": 3, "card": "2C"}, "public"),
    ("card_discarded", {"position": "flop-1", "card": "2C"}, "restricted"),
    ("round_paused", {"incident": 1, "kind": "duplicate_card", "notice": "n"}, "public"),
    ("incident_reported", {"incident": 1, "kind": "duplicate_card", "cards": ["2C"]}, R),
    ("command_accepted", {"command": "resume", "actor": "sm-7", "role": "shift_manager"}, R),
]  # fmt: skip


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    path = tmp_path / "table.journal"
    with Journal(path) as journal:
        journal.append_events([_event(i + 1, t, b, a) for i, (t, b, a) in enumerate(ROUND)])
        journal.append_events([_event(10, "device_health_changed", {"device": "shoe"})])
    return path


def test_recall_json_is_the_contract(
    journal_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["recall", "--journal", str(journal_path), GAME, "--json"]) == 0
    [recalled] = json.loads(capsys.readouterr().out)
    assert set(recalled) == {
        "game_number", "game", "variant", "status", "positions", "result", "incidents", "events"
    }  # fmt: skip
    assert recalled["game_number"] == GAME
    assert (recalled["game"], recalled["variant"], recalled["status"]) == (
        "ultimate-holdem",
        "live",
        "in-progress",
    )
    assert recalled["positions"] == {"player-1": "AS", "dealer-1": "KH"}
    assert recalled["result"] is None
    assert [i["kind"] for i in recalled["incidents"]] == ["duplicate_card"]
    assert [e["seq"] for e in recalled["events"]] == list(range(1, 10))


def test_recall_text_and_last(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recall", "--journal", str(journal_path), "--last", "10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{GAME}  ultimate-holdem live  in-progress")
    assert "player-1 AS" in out
    assert "actor=sm-7" in out


def test_recall_errors(
    journal_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["recall", "--journal", str(journal_path), "T01-nope"]) == 2
    assert "no round 'T01-nope'" in capsys.readouterr().err
    assert main(["recall", "--journal", str(journal_path), "--last", "0"]) == 2
    assert main(["recall", "--journal", str(tmp_path / "missing"), "--last", "1"]) == 2
    with pytest.raises(SystemExit):
        main(["recall", "--journal", str(journal_path), GAME, "--last", "1"])
