"""`studio settle`: the command-line contract other tools depend on."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from studio.cli import main

CS = [
    "settle", "--game", "caribbean-stud", "--variant", "live",
    "--player", "AS KS QS JS TS", "--dealer", "2C 3D 4H 5S 7C",
    "--bet", "ante=10", "--bet", "bonus=5", "--bet", "jackpot=1", "--decision", "call",
]  # fmt: skip
UTH = [
    "settle", "--game", "ultimate-holdem", "--player", "AS KS", "--board", "QS JS TS 2C 3D",
    "--dealer", "9H 9D", "--bet", "ante=10", "--bet", "trips=5",
    "--decision", "preflop=check", "--decision", "flop=play2x",
]  # fmt: skip


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    result: dict[str, Any] = json.loads(out)
    return result


def test_caribbean_example(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(CS, capsys)
    assert r["bets"] == {
        "ante": {"stake": 10, "outcome": "win", "returned": 20},
        "bonus": {"stake": 5, "outcome": "win", "returned": 5005},
        "jackpot": {
            "stake": 1, "outcome": "win", "returned": 0, "progressive": True, "share": None
        },
        "call": {"stake": 20, "outcome": "push", "returned": 20},
    }  # fmt: skip
    assert (r["total_stake"], r["total_returned"]) == (36, 5045)
    assert r["player_hand"] == "Royal flush"
    assert r["dealer_hand"] == "High card, seven-five-four-three-two"
    assert r["dealer_qualifies"] is False
    assert r["jackpot_review"] is False


def test_holdem_example(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json(UTH, capsys)
    assert {k: v["returned"] for k, v in r["bets"].items()} == {
        "ante": 20, "blind": 5010, "trips": 255, "play": 40,
    }  # fmt: skip
    assert r["bets"]["play"]["stake"] == 20
    assert r["dealer_qualifies"] is True
    assert r["dealer_hand"] == "One pair, nines"


def test_jackpot_share_and_void(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_json([*CS, "--jackpot-pool", "1000", "--jackpot-bets", "3"], capsys)
    assert r["bets"]["jackpot"]["returned"] == 333.33
    assert r["total_returned"] == 5045 + 333.33
    r = run_json([*CS, "--void"], capsys)
    assert r["void"] is True and r["jackpot_review"] is True
    assert r["total_returned"] == r["total_stake"] == 36
    assert {b["outcome"] for b in r["bets"].values()} == {"refund"}


def test_text_output_names_the_hands_and_total(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(UTH) == 0
    out = capsys.readouterr().out
    assert "Royal flush" in out and "5325" in out


@pytest.mark.parametrize(
    "change",
    [
        ["--player", "AS KS QS JS 2C"],  # 2C twice (also the dealer's)
        ["--player", "AS KS QS JS"],
        ["--bet", "insurance=5"],
        ["--bet", "bonus=-5"],
        ["--bet", "bonus=lots"],
        ["--decision", "raise"],
        ["--decision", "fold"],  # a second decision for the one window
        ["--board", "2H 3H 4H 5H 6H"],
        ["--jackpot-pool", "1000"],
        ["--variant", "classic"],  # the classic variant has no Jackpot bet
        ["--game", "baccarat"],
    ],
)
def test_bad_input_exits_2_with_one_line(
    change: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*CS, *change, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("studio settle: ")


def test_play_twice_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*UTH, "--decision", "river=play1x"]) == 2
    assert "already placed" in capsys.readouterr().err


def test_batch_keeps_order_and_goes_on_after_a_bad_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {
        "game": "ultimate-holdem", "player": "AS KS", "board": "QS JS TS 2C 3D",
        "dealer": "9H 9D", "bets": {"ante": 10, "trips": 5},
        "decisions": ["preflop=check", "flop=play2x"],
    }  # fmt: skip
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({**good, "player": "AS AS"}),
        json.dumps({**good, "colour": "red"}),
        json.dumps({**good, "void": True, "decisions": []}),
    ]
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["settle", "--batch", str(path)]) == 0
    results = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(results) == 5
    assert results[0]["total_returned"] == 5325
    assert [r.get("line") for r in results[1:4]] == [2, 3, 4]
    assert all("error" in r for r in results[1:4])
    assert results[4]["total_returned"] == 25 and results[4]["void"] is True


def test_batch_from_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    request = {
        "game": "caribbean-stud", "variant": "classic", "player": "AS KS QS JS TS",
        "dealer": "2C 3D 4H 5S 7C", "bets": {"ante": 100, "bonus": 100}, "decisions": [],
    }  # fmt: skip
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(request) + "\n"))
    assert main(["settle", "--batch", "-"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["path"] == "call"  # a classic royal cannot fold, so it is called
    assert result["total_returned"] == 200 + 100_100 + 200


def test_missing_batch_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["settle", "--batch", str(tmp_path / "absent.jsonl")]) == 2
    assert capsys.readouterr().out == ""


def test_the_installed_command(tmp_path: Path) -> None:
    studio = Path(sys.executable).parent / "studio"
    done = subprocess.run([str(studio), *CS, "--json"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total_returned"] == 5045


def test_batch_line_that_is_not_utf8_is_that_lines_error(tmp_path: Path) -> None:
    request = json.dumps({
        "game": "caribbean-stud", "player": "AS KS QS JS TS", "dealer": "2C 3D 4H 5S 7C",
        "bets": {"ante": 10}, "decisions": ["call"],
    }).encode()  # fmt: skip
    data = request + b"\n" + b'{"game": "caribbean-stud\xe9"}\n' + request + b"\n"
    path = tmp_path / "requests.jsonl"
    path.write_bytes(data)
    studio = str(Path(sys.executable).parent / "studio")
    for argv, stdin in (([str(path)], None), (["-"], data)):
        done = subprocess.run(
            [studio, "settle", "--batch", *argv], input=stdin, capture_output=True, check=False
        )
        assert done.returncode == 0, done.stderr
        results = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(results) == 3
        assert results[1]["line"] == 2 and "UTF-8" in results[1]["error"]
        assert results[0] == results[2] and results[0]["total_returned"] > 0
