"""How soon the table confirms cards at rest: the accounting `bench/felt_camera.py --split` uses.

Real OpenCV on rendered frames of a felt in the studio envelope (glare left out: these tests are
about the counting, not the reader). A card read is confirmed only after the table's agreeing
frames; a card the camera never sees counts as never confirmed; a card seen as another one is a
wrong confirmation and never a confirmation; a slow read stretches every frame's period. The
bench itself prints its figures and one JSON line of the documented shape.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from calibration.profile import CalibrationProfile, DeckTemplates
from drivers.camera.reading import CardReading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.stability import FRAMES_REQUIRED
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.envelopes import STUDIO
from drivers.camera.synthetic.felt import Felt, FeltLayout, felt_profile
from drivers.camera.synthetic.still_table import (
    DOWN,
    CardConfirmation,
    ConfirmationFigures,
    RoundWatch,
    StillCamera,
    late_cause,
)
from studio.cards import Card

ROOT = Path(__file__).resolve().parents[1]
ZONES = ("a", "b", "c")
CALM = replace(STUDIO, glares=(0, 0))


@lru_cache(maxsize=1)
def _setup() -> tuple[FeltLayout, CalibrationProfile, DeckTemplates]:
    layout = FeltLayout.build([list(ZONES)], JUMBO, size=(1920, 1080), card_px=230.0)
    profile, templates = felt_profile(layout)
    return layout, profile, templates


def _deal(cost: float, window: int = 8) -> tuple[list[CardConfirmation], list[str], int]:
    """Lay AS in sight at a, KD out of sight at b, 2C at c where 7H lies; confirm all three.

    Every read is reported as costing `cost` CPU seconds. Returns the confirmations, the wrong
    confirmations and the frames read.
    """
    layout, profile, templates = _setup()
    recognizer = CardRecognizer(profile, templates)
    camera = StillCamera(layout, CALM, np.random.default_rng(5))
    felt = Felt(seed=5)
    felt.place("a", Card.parse("AS"), face_up=True)
    felt.place("c", Card.parse("7H"), face_up=True)
    watch = RoundWatch(ZONES, fps=30.0, window=window)
    watch.lay("a", Card.parse("AS"), face_up=True)
    watch.lay("b", Card.parse("KD"), face_up=True)
    watch.lay("c", Card.parse("2C"), face_up=True)
    frames: list[list[CardReading]] = []

    def read() -> tuple[list[CardReading], float]:
        frames.append(recognizer.recognize(camera.frame(felt.view()[1])))
        return frames[-1], cost

    return watch.confirm(ZONES, "laid", read), watch.wrongs, len(frames)


def test_a_card_is_confirmed_after_the_agreeing_frames_and_the_others_never() -> None:
    cards, wrongs, read = _deal(cost=0.01)
    a, b, c = cards
    assert (a.zone, a.code, a.kind) == ("a", "AS", "laid")
    assert a.frames is not None and FRAMES_REQUIRED <= a.frames <= 8
    assert a.seconds == pytest.approx(a.frames / 30.0)
    # Out of sight: never confirmed. Seen as another card: a wrong confirmation, never a confirmed
    # one.
    assert (b.frames, b.seconds) == (None, None)
    assert (c.frames, c.seconds) == (None, None)
    assert len(wrongs) == 1 and wrongs[0].startswith("c: 2C") and "7H" in wrongs[0]
    assert read == 8  # the window was used up waiting for b and c
    figures = ConfirmationFigures.of(cards, len(wrongs), 0.5)
    assert (figures.cards, figures.laid, figures.revealed) == (3, 3, 0)
    assert figures.within_target == pytest.approx(1 / 3, abs=1e-4)
    assert figures.never_confirmed == 2 and figures.wrong_confirmations == 1
    # Two cards of three never confirmed: the median and beyond are "never" (None), not a time.
    assert figures.p50_s is None and figures.p99_s is None and figures.max_s is None


def test_a_read_slower_than_the_camera_stretches_every_frame() -> None:
    cards, _, _ = _deal(cost=0.25, window=4)
    a = cards[0]
    assert a.frames is not None and a.seconds is not None
    assert a.seconds == pytest.approx(a.frames * 0.25)
    figures = ConfirmationFigures.of(cards[:1], 0, 0.5)
    # Three agreeing frames of 0.25 s: over the half second, so none within the target.
    assert figures.within_target == 0.0 and figures.never_confirmed == 0
    assert figures.p50_s == figures.max_s == round(a.seconds, 3)


def test_the_bench_prints_the_figures_beside_the_target_and_a_json_line() -> None:
    args = ["--split", "tuning", "--designs", "1", "--rounds", "1", "--game", "caribbean-stud"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "felt_camera.py"), *args, "--window", "4", "--json"],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert any("(target 100%)" in line and "(target 0)" in line for line in lines)
    out = json.loads(lines[-1])
    # Caribbean Stud lays ten cards, four of them face down, turned at the reveal.
    assert (out["rounds_total"], out["designs"], out["cards"]) == (1, 1, 14)
    assert (out["laid"], out["revealed"]) == (10, 4)
    assert out["target"] == {"within_seconds": 0.5, "within_target": 1.0, "wrong": 0}
    assert out["frames_required"] == FRAMES_REQUIRED
    assert out["frames_read"] >= FRAMES_REQUIRED * 11  # ten lays and one reveal, each waited on
    assert 0.0 <= out["within_target"] <= 1.0
    assert 0 <= out["never_confirmed"] <= out["cards"]
    for key in ("p50_s", "p99_s", "max_s", "wrong_confirmations", "calibration_failures"):
        assert key in out
    assert out["reader"] == "still" and 0 <= out["frames_reused"] <= out["frames_read"]
    assert sum(out["late_causes"].values()) == round(out["cards"] * (1 - out["within_target"]))
    assert list(out["per_design"]) == ["gen-1000"]
    assert out["per_design"]["gen-1000"]["cards"] == 14


def _card(views: tuple[str, ...], frames: int | None, expected: str = "AS") -> CardConfirmation:
    seconds = None if frames is None else frames / 10.0
    return CardConfirmation("a", "AS", "laid", frames, seconds, expected, views)


def test_a_late_card_is_classed_by_what_its_zone_showed_frame_by_frame() -> None:
    assert late_cause(_card(("AS",) * 3, 3), 0.5) is None  # in time: nothing to explain
    assert late_cause(_card(("AS",) * 3, 3), 0.2) == "slow"  # right at once, frames too slow
    assert late_cause(_card(("-", "?", "AS", "AS", "AS"), 5), 0.4) == "late_first"
    assert late_cause(_card(("AS", "?", "AS", "AS", "AS", "AS"), 6), 0.5) == "unstable"
    assert late_cause(_card(("AS", "-", "AS", "?"), None), 0.5) == "unstable"
    assert late_cause(_card(("?", "AH", "?"), None), 0.5) == "wrong"
    assert late_cause(_card(("-", "AS@b", "AS@none"), None), 0.5) == "elsewhere"
    assert late_cause(_card(("-", "?", "*"), None), 0.5) == "unknown"
    assert late_cause(_card(("-", "-", "-"), None), 0.5) == "unseen"
    # A card laid face down is confirmed by its back, and a face read there is another view.
    assert late_cause(_card(("down",) * 3, 3, expected=DOWN), 0.5) is None
    assert late_cause(_card(("AS", "AS"), None, expected=DOWN), 0.5) == "wrong"


def test_the_watch_records_each_frames_view_of_a_waited_zone() -> None:
    cards, _, read = _deal(cost=0.01)
    a, b, c = cards
    # Confirmed: its views stop at the confirming frame, the last ones agreeing on its code.
    assert a.expected == "AS" and a.frames is not None and len(a.views) == a.frames
    assert a.views[-FRAMES_REQUIRED:] == ("AS",) * FRAMES_REQUIRED
    # Out of sight: nothing there in any frame; seen as another card: that card's code.
    assert b.views == ("-",) * read and late_cause(b, 0.5) == "unseen"
    assert "7H" in c.views and late_cause(c, 0.5) == "wrong"
