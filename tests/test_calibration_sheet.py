"""`studio calibrate deck` shows its progress and writes the index sheet of the 52 crops."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import corner_training
from calibration.index_sheet import CELL_HEIGHT, index_sheet
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.reference import write_reference_deck
from drivers.camera.synthetic.splits import SPLITS
from studio.cards import DECK
from studio.cli import main
from studio.commands import progress

RED = np.array([0, 0, 220])


def red_pixels(image: np.ndarray) -> int:
    """Pixels of the sheet's "does not read back" red."""
    return int((np.abs(image.astype(int) - RED).max(axis=2) <= 10).sum())


@pytest.fixture
def fresh_training(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No model of any deck cached (in the process or on disk): calibration trains for real,
    and progress lines come at every step instead of every few seconds."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(corner_training, "_CACHE", {})
    monkeypatch.setattr(progress, "LINE_EVERY", 0.0)


@pytest.mark.usefixtures("fresh_training")
def test_calibrating_a_new_deck_shows_progress_and_its_sheet_shows_what_it_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_reference_deck(tmp_path / "cards", deckgen.design(SPLITS["test"][0]), "scan")
    sheet_path = tmp_path / "sheet.png"
    args = ["calibrate", "deck", "--images", str(tmp_path / "cards"), "--out", str(tmp_path / "p")]
    code = main([*args, "--sheet", str(sheet_path)])
    out, err = capsys.readouterr()
    # Off a terminal: plain lines per stage, rendering and training the reader, then checking.
    assert "calibrate deck: render:" in err and "windows" in err
    assert "calibrate deck: train:" in err and "epochs" in err
    assert "calibrate deck: check: 52/52 cards (100%)" in err
    assert err.index("render:") < err.index("train:") < err.index("check:")
    # The sheet is written either way, and frames in red exactly what the command reports.
    sheet = cv2.imread(str(sheet_path))
    assert sheet is not None
    if code == 0:
        assert str(sheet_path) in out and red_pixels(sheet) == 0
    else:
        assert code == 2 and f"(see {sheet_path})" in err and red_pixels(sheet) > 0
        assert not (tmp_path / "p").exists()


def test_calibrate_deck_writes_the_index_sheet_beside_the_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_reference_deck(tmp_path / "cards", JUMBO, "scan")
    args = ["calibrate", "deck", "--images", str(tmp_path / "cards"), "--out", str(tmp_path / "p")]
    assert main(args) == 0
    out = capsys.readouterr().out
    sheet = cv2.imread(str(tmp_path / "p" / "index_sheet.png"))
    assert sheet is not None and str(tmp_path / "p" / "index_sheet.png") in out
    # Four suits by thirteen ranks of crops, none framed as misread.
    assert sheet.shape[0] > 4 * CELL_HEIGHT and sheet.shape[1] > 13 * 40
    assert red_pixels(sheet) == 0
    assert float(sheet.std()) > 20  # crops of ink on paper, not a blank page


def test_sheet_goes_where_sheet_says_and_a_bad_name_is_refused_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_reference_deck(tmp_path / "cards", JUMBO, "scan")
    cards = ["calibrate", "deck", "--images", str(tmp_path / "cards")]
    assert main([*cards, "--out", str(tmp_path / "p"), "--sheet", str(tmp_path / "s.txt")]) == 2
    err = capsys.readouterr().err
    assert "--sheet" in err and ".png" in err and "Traceback" not in err
    assert "check" not in err and not (tmp_path / "p").exists()
    assert main([*cards, "--out", str(tmp_path / "p"), "--sheet", str(tmp_path / "s.png")]) == 0
    assert cv2.imread(str(tmp_path / "s.png")) is not None
    assert not (tmp_path / "p" / "index_sheet.png").exists()


def test_sheet_frames_a_misread_or_missing_crop_in_red() -> None:
    crop = np.full((60, 40, 3), 250, np.uint8)
    cv2.putText(crop, "A", (8, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
    codes = [c.code for c in DECK]
    crops = {code: crop for code in codes}
    right = {code: code for code in codes}
    assert red_pixels(index_sheet(crops, right)) == 0
    misread = red_pixels(index_sheet(crops, {**right, "AS": "8S"}))
    unread = red_pixels(index_sheet(crops, {**right, "AS": None}))
    missing = red_pixels(index_sheet({c: v for c, v in crops.items() if c != "AS"}, right))
    assert misread > 4 * CELL_HEIGHT and unread > 4 * CELL_HEIGHT and missing > 0


def test_stage_report_writes_one_report_per_stage() -> None:
    stream = io.StringIO()
    with progress.StageReport("job", units={"a": "cards"}, stream=stream, every=0.0) as report:
        for k in range(1, 4):
            report("a", k, 3)
        report("b", 1, 1)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("job: a: 2/3 cards")
    assert any(line.startswith("job: a: 3/3 cards (100%)") for line in lines)
    assert lines[-1].startswith("job: b: 1/1 it (100%)")
