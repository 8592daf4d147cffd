"""`studio recognize --debug DIR`: each frame drawn for a technician, the output unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from camera_support import deck_profile

from calibration.profile import TableCalibration, Zone, save_profile
from drivers.camera.overlay import FACE_DOWN, READ, ZONE
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.reference import write_reference_deck
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from drivers.camera.synthetic.splits import SPLITS
from studio.cards import Card
from studio.cli import main


def _view(px_per_mm: float = 2.4) -> np.ndarray:
    return np.array([[px_per_mm, 0, 640], [0, px_per_mm, 360], [0, 0, 1.0]])


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    profile, templates = deck_profile("jumbo")
    table = TableCalibration(
        image_to_table=np.linalg.inv(_view()).tolist(),
        method="points",
        image_size=(1280, 720),
        residual_mm=0.0,
    )
    zone = Zone(name="player1", polygon=[(-30, -65), (70, -65), (70, 65), (-30, 65)])
    profile = profile.model_copy(update={"table": table, "zones": [zone]})
    save_profile(tmp_path / "p", profile, templates)
    cards = (
        PlacedCard(Card.parse("AS"), 20, 0, 10),
        PlacedCard(Card.parse("TD"), -130, 0, 0, False),
    )
    scene = Scene(width=1280, height=720, table_to_image=_view(), design=JUMBO, cards=cards)
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), render_scene(scene).image)
    return tmp_path / "p", image


def _count(image: np.ndarray, colour: tuple[int, int, int]) -> int:
    return int((image == np.array(colour, np.uint8)).all(axis=2).sum())


def test_debug_writes_each_frame_with_outlines_and_zones_and_keeps_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile, image = _setup(tmp_path)
    args = ["recognize", "--profile", str(profile), str(image), str(image), "--json"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    debug = tmp_path / "debug" / "new"
    assert main([*args, "--debug", str(debug)]) == 0
    assert capsys.readouterr().out == plain
    cards = json.loads(plain.splitlines()[0])["cards"]
    assert {c["code"] for c in cards} == {"AS", None}
    assert {c["zone"] for c in cards if c["code"] == "AS"} == {"player1"}
    written = sorted(p.name for p in debug.iterdir())
    assert written == ["0000-frame.png", "0001-frame.png"]
    original = cv2.imread(str(image))
    drawn = cv2.imread(str(debug / written[0]))
    assert drawn.shape == original.shape
    # The read card's outline and the zone are drawn in their colours, which the frame lacks.
    assert _count(original, READ) == 0 and _count(drawn, READ) > 200
    assert _count(original, ZONE) == 0 and _count(drawn, ZONE) > 200
    quad = np.array(next(c["corners"] for c in cards if c["code"] == "AS"))
    mid = np.round((quad[0] + quad[1]) / 2).astype(int)
    patch = drawn[mid[1] - 2 : mid[1] + 3, mid[0] - 2 : mid[0] + 3]
    assert _count(patch, READ) > 0


def test_debug_into_a_file_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile, image = _setup(tmp_path)
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    code = main(["recognize", "--profile", str(profile), str(image), "--debug", str(blocker)])
    err = capsys.readouterr().err
    assert code != 0
    assert "--debug" in err and "Traceback" not in err


def test_a_deck_never_tuned_on_calibrates_reads_and_is_drawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As a studio would: its own deck's 52 references (a test-split design, which nothing in the
    # code was chosen on) through `studio calibrate deck`, then a frame through `recognize`.
    design = deckgen.design(SPLITS["test"][1])
    write_reference_deck(tmp_path / "cards", design, "scan")
    profile = tmp_path / "p"
    args = ["calibrate", "deck", "--images", str(tmp_path / "cards"), "--out", str(profile)]
    assert main(args) == 0, capsys.readouterr().err
    sheet = cv2.imread(str(profile / "index_sheet.png"))
    assert sheet is not None and float(sheet.std()) > 20
    cards = (
        PlacedCard(Card.parse("QS"), 0, 0, 8),
        PlacedCard(Card.parse("7H"), 110, 10, -12),
        PlacedCard(Card.parse("2C"), -120, 0, 0, False),
    )
    scene = Scene(width=1280, height=720, table_to_image=_view(), design=design, cards=cards)
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), render_scene(scene).image)
    capsys.readouterr()
    debug = tmp_path / "debug"
    recognize = ["recognize", "--profile", str(profile), str(image), "--json"]
    assert main([*recognize, "--debug", str(debug)]) == 0
    read = json.loads(capsys.readouterr().out.splitlines()[0])["cards"]
    assert sorted(c["code"] for c in read if c["code"]) == ["7H", "QS"]
    assert [c["face_down"] for c in read if not c["code"]] == [True]
    drawn = cv2.imread(str(debug / "0000-frame.png"))
    original = cv2.imread(str(image))
    # Both read cards' outlines are drawn in the read colour; the back's in its grey.
    assert _count(original, READ) == 0 and _count(drawn, READ) > 400
    assert _count(original, FACE_DOWN) < _count(drawn, FACE_DOWN)
