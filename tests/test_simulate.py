"""`studio simulate`: whole rounds through the real controller and journal, faults by rate."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from studio.cli import main
from studio.controller import TableController
from studio.errors import ConfigurationError, InputError
from studio.journal import Journal, recover, verify
from studio.journal.recall import recall_round
from studio.journal.recorder import bind_settings
from studio.messages import TableSettings, Tick
from studio.simulation import INCIDENT_OF, START, FaultRates, SimulationSummary, simulate

FAULTS = FaultRates.parse(
    "duplicate=0.04,unreadable=0.04,out-of-turn=0.15,mismatch=0.04,device=0.03"
)
TABLES = [
    pytest.param(TableSettings(game="caribbean-stud", camera=True), id="stud-hidden-camera"),
    pytest.param(
        TableSettings(game="caribbean-stud", variant="classic", procedure="late"), id="stud-late"
    ),
    pytest.param(TableSettings(game="ultimate-holdem", camera=True), id="holdem-camera"),
    pytest.param(TableSettings(game="ultimate-holdem"), id="holdem"),
    pytest.param(
        TableSettings(game="caribbean-stud", camera=True, card_source="camera"),
        id="stud-hidden-camera-only",
    ),
    pytest.param(
        TableSettings(
            game="caribbean-stud",
            variant="classic",
            procedure="late",
            camera=True,
            card_source="camera",
        ),
        id="stud-late-camera-only",
    ),
    pytest.param(
        TableSettings(game="ultimate-holdem", camera=True, card_source="camera"),
        id="holdem-camera-only",
    ),
]


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    # These tests check logic, not the disk: on tmpfs a durable commit costs nothing, so the
    # suite stays quick on a shared machine (test_journal.py pins the durability settings).
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=base, prefix="studio-sim-") as name:
        yield Path(name)


def _events(path: Path) -> Iterator[dict[str, Any]]:
    with Journal(path, readonly=True) as journal:
        for record in journal.records():
            if record.kind == "event":
                yield record.data()


def _replays_exactly(path: Path, settings: TableSettings) -> None:
    """A fresh controller fed the journal's inputs rebuilds every stored event, in order."""
    with Journal(path) as journal:
        before = journal.head_id
        report = recover(journal, TableController(settings), now=START)
        assert report.restored == 0
        assert report.events == journal.last_event_seq - len(report.restarted)
        assert journal.head_id == before + 1 + len(report.restarted)
        assert verify(journal).ok


def _no_early_secrets(path: Path, settings: TableSettings) -> None:
    """No public event names a face-down card before its reveal.

    A discarded duplicate of a face-down card is left to its own (xfail) test below. A
    camera-only table knows a face-down value only when it is turned, so the values its
    `card_revealed` events name are the secrets before them too.
    """
    down = {d.position for d in settings.rules().deals if d.face.value == "down"}
    turned: dict[str | None, dict[str, str]] = {}
    for event in _events(path):
        if event["type"] == "card_revealed":
            turned.setdefault(event["game_number"], {})[event["body"]["position"]] = event["body"][
                "card"
            ]
    hidden: dict[str, str] = {}
    for event in _events(path):
        body = event["body"]
        if event["type"] == "round_opened":
            hidden = dict(turned.get(event["game_number"], {}))
        if event["audience"] == "restricted":
            if event["type"] == "card_dealt" and body["position"] in down:
                hidden[body["position"]] = body["card"]
            continue
        if event["type"] == "card_revealed":
            hidden.pop(body["position"], None)
            continue
        if event["type"] == "card_discarded":
            continue
        text = json.dumps(body)
        for position, card in hidden.items():
            assert f'"{card}"' not in text, (position, event)


def _results_are_sound(path: Path, settings: TableSettings) -> None:
    """Every result has each position's card, all distinct, as dealt and recalled."""
    positions = set(settings.rules().positions)
    with Journal(path, readonly=True) as journal:
        for number in journal.game_numbers():
            recalled = recall_round(journal, number)
            if recalled["status"] != "completed":
                continue
            cards = recalled["result"]["positions"]
            assert set(cards) == positions
            assert len(set(cards.values())) == len(cards)
            assert recalled["positions"] == cards


def test_a_table_that_checks_each_rounds_deck_gets_a_fresh_one_every_round(
    tmp_path: Path,
) -> None:
    # The simulated dealer shuffles after every round and announces it (`new_deck`) before the
    # next round opens: no round opens on a dealt deck, and each round has its own deck.
    settings = TableSettings(game="caribbean-stud", camera=True, new_deck_every_round=True)
    path = tmp_path / "table.journal"
    summary = simulate(path, settings, rounds=6, seed=3)
    assert (summary.rounds_completed, summary.rounds_voided) == (6, 0)
    assert summary.incidents == {}
    decks = [e["body"]["deck"] for e in _events(path) if e["type"] == "round_opened"]
    assert len(decks) == 6 and None not in decks and len(set(decks)) == 6


@pytest.mark.parametrize("settings", TABLES)
def test_without_faults_every_round_completes(tmp_path: Path, settings: TableSettings) -> None:
    path = tmp_path / "table.journal"
    summary = simulate(path, settings, rounds=12, seed=7)
    assert (summary.rounds_completed, summary.rounds_voided) == (12, 0)
    assert summary.incidents == {} and summary.injected == {}
    assert [e["seq"] for e in _events(path)] == list(range(1, summary.events + 1))
    _results_are_sound(path, settings)
    _no_early_secrets(path, settings)
    _replays_exactly(path, settings)


@pytest.mark.parametrize("settings", TABLES)
@pytest.mark.parametrize("manager", ["resume", "void"])
def test_every_injected_fault_and_nothing_else_pauses(
    tmp_path: Path, settings: TableSettings, manager: str
) -> None:
    path = tmp_path / "table.journal"
    summary = simulate(path, settings, rounds=25, seed=11, faults=FAULTS, manager=manager)  # type: ignore[arg-type]
    assert summary.injected == summary.incidents
    assert sum(summary.incidents.values()) > 5
    assert summary.rounds_completed + summary.rounds_voided == 25
    if manager == "resume":
        assert summary.rounds_voided == 0
    else:
        assert summary.rounds_voided > 0
    if not settings.camera:
        assert "camera_mismatch" not in summary.incidents
    _results_are_sound(path, settings)
    _no_early_secrets(path, settings)
    _replays_exactly(path, settings)


@pytest.mark.parametrize("kind", ["duplicate", "unreadable", "out-of-turn", "mismatch", "device"])
@pytest.mark.parametrize(
    ("game", "source"), [("caribbean-stud", "shoe"), ("ultimate-holdem", "camera")]
)
def test_each_fault_alone_causes_only_its_incident(
    tmp_path: Path, kind: str, game: str, source: str
) -> None:
    settings = TableSettings(game=game, camera=True, card_source=source)  # type: ignore[arg-type]
    faults = FaultRates.parse(f"{kind}=0.3")
    summary = simulate(tmp_path / "table.journal", settings, rounds=6, seed=2, faults=faults)
    assert set(summary.incidents) == {INCIDENT_OF[kind]}
    assert summary.injected == summary.incidents
    assert summary.rounds_completed == 6


def test_a_seed_reproduces_a_run(tmp_path: Path) -> None:
    settings = TableSettings(game="caribbean-stud", camera=True)
    runs = [
        simulate(tmp_path / f"{i}.journal", settings, rounds=5, seed=3, faults=FAULTS)
        for i in range(2)
    ]
    assert runs[0] == runs[1]
    bodies = [[r.body for r in Journal(tmp_path / f"{i}.journal").records()] for i in range(2)]
    assert bodies[0] == bodies[1]


def test_an_existing_journal_is_continued(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    settings = TableSettings(game="ultimate-holdem")
    first = simulate(path, settings, rounds=3, seed=1)
    second = simulate(path, settings, rounds=4, seed=1)
    assert (first.rounds_completed, second.rounds_completed) == (3, 4)
    with Journal(path, readonly=True) as journal:
        assert len(journal.game_numbers()) == 7
        assert verify(journal).ok
    with pytest.raises(ConfigurationError, match="other settings"):
        simulate(path, TableSettings(game="caribbean-stud"), rounds=1, seed=1)


def test_fault_rates_parse_strictly() -> None:
    rates = FaultRates.parse("out-of-turn=0.5, device=0.25")
    assert (rates.out_of_turn, rates.device, rates.duplicate) == (0.5, 0.25, 0.0)
    assert rates.any and not FaultRates.parse("").any
    for bad in ("warp=0.1", "duplicate", "duplicate=x", "device=1.5", "duplicate=0.6,mismatch=0.6"):
        with pytest.raises(InputError):
            FaultRates.parse(bad)


def test_the_command_prints_the_json_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.journal"
    argv = ["simulate", "--game", "ultimate-holdem", "--rounds", "4", "--seed", "5"]
    argv += ["--journal", str(path), "--faults", "unreadable=0.2,device=0.05", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"rounds_completed", "rounds_voided", "incidents", "events"}
    assert out["rounds_completed"] == 4
    assert out["events"] == sum(1 for _ in _events(path))
    assert main(["journal", "verify", str(path)]) == 0
    assert main([*argv[:-3], "--manager", "void"]) == 0
    assert "4 rounds completed" in capsys.readouterr().out


def test_the_command_simulates_a_camera_only_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.journal"
    argv = ["simulate", "--game", "ultimate-holdem", "--rounds", "3", "--seed", "5"]
    argv += ["--journal", str(path), "--card-source", "camera", "--faults", "duplicate=0.2"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rounds_completed"] == 3
    with Journal(path, readonly=True) as journal:
        assert bind_settings(journal, None).card_source == "camera"
    assert not [
        e
        for e in _events(path)
        if e["type"] == "card_dealt"
        and e["audience"] == "restricted"
        and e["body"]["face"] == "down"
    ]
    assert main([*argv, "--no-camera"]) == 2
    assert 'card_source "camera" needs a camera' in capsys.readouterr().err


def test_the_command_refuses_bad_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["simulate", "--rounds", "1", "--seed", "1", "--journal", str(tmp_path / "j")]
    assert main([*base, "--game", "ultimate-holdem", "--procedure", "late"]) == 2
    assert "procedure" in capsys.readouterr().err
    assert main([*base, "--game", "caribbean-stud", "--variant", "vegas"]) == 2
    # Pydantic's "Value error, " prefix is no part of the reason.
    assert capsys.readouterr().err.startswith("studio simulate: unknown variant 'vegas'")
    with pytest.raises(SystemExit):
        main([*base, "--game", "ultimate-holdem", "--faults", "warp=1"])
    assert "bad fault" in capsys.readouterr().err


def test_summary_text() -> None:
    summary = SimulationSummary(rounds_completed=2, events=10)
    summary.incidents["duplicate_card"] += 1
    assert summary.text() == "2 rounds completed, 0 voided, 10 events; incidents: duplicate_card 1"


def test_a_discarded_duplicate_of_a_face_down_card_stays_secret() -> None:
    from datetime import timedelta

    from studio.messages import CardDrawn, Command, Tick

    table = TableController(TableSettings(game="ultimate-holdem"))
    clock = START
    events = table.handle(Command(ts=clock, actor="d", role="dealer", command="start_round"))
    clock += timedelta(seconds=21)
    events += table.handle(Tick(ts=clock))
    for code in ("2C", "3C", "4C", "5C"):
        clock += timedelta(seconds=1)
        events += table.handle(CardDrawn(ts=clock, card=code))
    clock += timedelta(seconds=16)
    events += table.handle(Tick(ts=clock))
    clock += timedelta(seconds=1)
    events += table.handle(CardDrawn(ts=clock, card="4C"))  # dealer-1's face-down card, again
    events += table.handle(
        Command(ts=clock, actor="m", role="shift_manager", command="discard_last_card")
    )
    assert any(e.type == "card_discarded" for e in events)
    public = [json.dumps(e.body) for e in events if e.audience == "public"]
    assert not any('"4C"' in text for text in public)


def test_a_journal_written_before_card_source_existed_loads_as_a_shoe_table(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.journal"
    settings = TableSettings(game="ultimate-holdem", camera=True)
    old = settings.model_dump(mode="json")
    del old["card_source"]
    with Journal(path) as journal:
        journal.set_meta("settings", json.dumps(old))
    assert simulate(path, settings, rounds=2, seed=1).rounds_completed == 2
    with Journal(path, readonly=True) as journal:
        assert bind_settings(journal, None) == settings
        assert verify(journal).ok
    _replays_exactly(path, settings)


def test_the_betting_light_turns_yellow_at_its_own_time(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    simulate(path, TableSettings(game="caribbean-stud"), rounds=2, seed=3)
    lights = [e for e in _events(path) if e["type"] == "betting_light_changed"]
    opened = [e for e in _events(path) if e["type"] == "round_opened"]
    assert [e["body"]["light"] for e in lights] == ["green", "yellow", "red"] * 2
    for light in lights:
        if light["body"]["light"] == "yellow":
            round_of = next(o for o in opened if o["game_number"] == light["game_number"])
            assert light["ts"] == round_of["body"]["yellow_at"]
            assert light["ts"] < next(
                e["ts"]
                for e in lights
                if e["game_number"] == light["game_number"] and e["body"]["light"] == "red"
            )


def test_the_command_refuses_another_runs_journal_unless_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.journal"
    argv = ["simulate", "--game", "caribbean-stud", "--rounds", "2", "--journal", str(path)]
    assert main([*argv, "--seed", "1"]) == 0
    assert main([*argv, "--seed", "1"]) == 0  # its own run continues (a restart after a kill)
    capsys.readouterr()
    assert main([*argv, "--seed", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "another run" in err and "--append" in err
    with Journal(path, readonly=True) as journal:
        before = journal.input_count
    assert main([*argv, "--seed", "2", "--append"]) == 0
    with Journal(path, readonly=True) as journal:
        assert journal.input_count > before
    # A live table's journal carries no simulation's mark: the same refusal.
    live = tmp_path / "live.journal"
    with Journal(live) as journal:
        journal.set_meta("settings", TableSettings(game="caribbean-stud").model_dump_json())
        journal.append_input(Tick(ts=datetime(2026, 1, 1, tzinfo=UTC)).model_dump(mode="json"))
    assert main([*argv[:-1], str(live), "--seed", "1"]) == 2
    assert "a live table" in capsys.readouterr().err


def test_a_long_simulation_shows_progress_off_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("studio.commands.progress.LINE_EVERY", 0.0)
    argv = ["simulate", "--game", "caribbean-stud", "--rounds", "3", "--seed", "1"]
    assert main([*argv, "--journal", str(tmp_path / "j")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("simulate: 3/3 rounds (100%)"), lines
