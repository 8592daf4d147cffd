"""Card outlines moved onto the paper's edge (`drivers.camera.outline_fit`), on rendered frames:
firm outlines fitted whole, guessed ones anchored on the paper's corner."""

from __future__ import annotations

from functools import cache
from typing import Any
from unittest.mock import patch

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.camera import outline_fit
from drivers.camera.detect import card_threshold, detect_cards
from drivers.camera.outline import long_side
from drivers.camera.outline_fit import fit_corner, fit_corners, fit_outline, fit_outlines
from drivers.camera.reading import ReadingSource
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import DESIGNS, Design
from drivers.camera.synthetic.envelopes import ENVELOPES, HARSH
from drivers.camera.synthetic.faces import render_face
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import render_scene
from studio.cards import Card
from tests.camera_support import deck_profile


def _frame(design: Design, card: Card, quad: np.ndarray, blur: float, seed: int) -> np.ndarray:
    """One face-up card warped onto green felt at `quad`, defocused by `blur`, with noise."""
    face, alpha = render_face(card, design, 600)
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    size = (960, 640)
    felt = np.zeros((size[1], size[0], 3), np.float32)
    felt[:] = (40, 110, 30)
    warped = cv2.warpPerspective(face, m, size).astype(np.float32)
    cover = cv2.warpPerspective(alpha.astype(np.float32) / max(1, alpha.max()), m, size)[..., None]
    out = felt * (1 - cover) + warped * cover
    out = cv2.GaussianBlur(out, (0, 0), blur)
    out += np.random.default_rng(seed).normal(0, 3, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def _quad(cx: float, cy: float, height: float, turn: float) -> np.ndarray:
    width = height * 63 / 88
    c, s = np.cos(turn), np.sin(turn)
    pts = np.array([[-width, -height], [width, -height], [width, height], [-width, height]]) / 2
    return pts @ np.array([[c, s], [-s, c]]) + [cx, cy]


def _off(found: np.ndarray, truth: np.ndarray) -> float:
    """The largest corner distance, either way up, as a share of the card's height."""
    best = min(float(np.linalg.norm(np.roll(found, -k, 0) - truth, axis=1).max()) for k in range(4))
    return best / long_side(truth)


@pytest.mark.parametrize(("seed", "blur"), [(1001, 0.6), (1016, 1.5), (1002, 1.0)])
def test_a_found_outline_is_moved_onto_the_paper_edge(seed: int, blur: float) -> None:
    # Tuning designs: 1001 and 1016 print a double border line inside the paper, 1002 none.
    design = deckgen.design(seed)
    truth = _quad(480, 320, 240, 0.3)
    image = _frame(design, Card.parse("7S"), truth, blur, seed)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    (outline,) = detect_cards(gray, frame=image).outlines
    # The mask's outline lies inside the paper (its corners on the rounding): the index
    # window cut through it is several per cent of the card off.
    assert _off(outline.corners, truth) > 0.02
    fitted = fit_outline(gray, outline.corners, card_threshold(gray))
    assert _off(fitted, truth) < 0.006


def test_a_side_with_no_paper_edge_keeps_the_card_size() -> None:
    # The right half of the card lies under a white sheet: its right side has no felt beyond
    # it, and moves out as far as the left side did.
    design = deckgen.design(1002)
    truth = _quad(480, 320, 240, 0.0)
    image = _frame(design, Card.parse("4H"), truth, 0.8, 3)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    inset = truth + np.array([[6, 6], [-6, 6], [-6, -6], [6, -6]])
    gray[:, int(truth[1, 0]) :] = 245
    fitted = fit_outline(gray, inset, card_threshold(gray))
    assert np.abs(fitted[[0, 3], 0] - truth[[0, 3], 0]).max() < 1.5
    assert np.abs(fitted[[1, 2], 0] - truth[[1, 2], 0]).max() < 1.5


def test_outlines_fitted_together_each_land_where_they_land_alone() -> None:
    # Two cards of different sizes (their profiles reach differently far) and a quad lying on
    # the felt: fitted in one batch, each comes out as it does alone, and both cards on their
    # paper.
    design = deckgen.design(1002)
    big, small = _quad(300, 320, 260, 0.3), _quad(720, 300, 150, -0.4)
    image = np.maximum(
        _frame(design, Card.parse("7S"), big, 0.8, 1),
        _frame(design, Card.parse("2D"), small, 0.8, 2),
    )
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    paper = card_threshold(gray)
    inset = np.array([[6, 6], [-6, 6], [-6, -6], [6, -6]])
    quads = np.array(
        [big + inset @ _turn(0.3), small + inset @ _turn(-0.4), _quad(800, 560, 90, 0)]
    )
    together = fit_outlines(gray, quads, paper)
    for quad, fitted in zip(quads, together, strict=True):
        np.testing.assert_allclose(fitted, fit_outline(gray, quad, paper), atol=1e-3)
    assert _off(together[0], big) < 0.006
    assert _off(together[1], small) < 0.01


def _turn(angle: float) -> np.ndarray:
    """Row vectors turned by `angle` (as `_quad` turns its corners)."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, s], [-s, c]])


def test_a_large_card_reads_once_with_its_corners_on_the_paper() -> None:
    # A large card falls apart into strips; the reading's corners are the paper's (the JSON
    # contract's corners) and its strips add no unknown card beside it.
    recognizer = CardRecognizer(*deck_profile("jumbo"))
    truth = _quad(480, 320, 380, 0.2)
    image = _frame(DESIGNS["jumbo"], Card.parse("QD"), truth, 0.7, 5)
    readings = recognizer.recognize(image)
    assert [r.code for r in readings] == ["QD"]
    assert _off(np.array(readings[0].corners), truth) < 0.01


def _window(quad: np.ndarray) -> np.ndarray:
    """The index window's corners (0.02-0.27 of the width, 0.02-0.33 of the height) of `quad`."""
    tl, tr, br, bl = quad
    uv = np.array([[0.02, 0.02], [0.27, 0.02], [0.27, 0.33], [0.02, 0.33]])
    u, v = uv[:, :1], uv[:, 1:]
    out: np.ndarray = (1 - u) * (1 - v) * tl + u * (1 - v) * tr + u * v * br + (1 - u) * v * bl
    return out


def _window_off(found: np.ndarray, truth: np.ndarray) -> float:
    return float(np.linalg.norm(_window(found) - _window(truth), axis=1).max()) / long_side(truth)


def _guess(truth: np.ndarray, size: float, turn_deg: float, inset: float) -> np.ndarray:
    """A guessed outline of the card at `truth`'s first corner, as the finder makes one: its
    corner `inset` px inside the paper on the rounding, turned by `turn_deg`, `size` times the
    card's size (the frame's card size, not this card's)."""
    across = (truth[1] - truth[0]) / np.linalg.norm(truth[1] - truth[0])
    down = (truth[3] - truth[0]) / np.linalg.norm(truth[3] - truth[0])
    a = np.radians(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corner = truth[0] + inset * (across + down)
    w = size * np.linalg.norm(truth[1] - truth[0])
    h = size * np.linalg.norm(truth[3] - truth[0])
    return np.array(
        [corner, corner + w * rot @ across, corner + w * rot @ across + h * rot @ down,
         corner + h * rot @ down]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("seed", "blur", "size"), [(1001, 0.6, 0.82), (1016, 1.5, 1.2), (1002, 1.2, 0.8)]
)
def test_a_guessed_outline_is_anchored_on_the_card_corner(
    seed: int, blur: float, size: float
) -> None:
    # A detected index corner's outline sits on the rounding, turned a little, with the
    # frame's card size: its index window is several per cent of the card off, more than the
    # reader takes. Anchored, it lies on the paper's corner and its size is the card's.
    design = deckgen.design(seed)
    truth = _quad(480, 320, 220, 0.4)
    image = _frame(design, Card.parse("9C"), truth, blur, seed)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    guess = _guess(truth, size, 3.0, 4.0)
    assert _window_off(guess, truth) > 0.04
    anchored = fit_corner(gray, guess, card_threshold(gray))
    assert _window_off(anchored, truth) < 0.01


def test_a_guessed_outline_whose_far_sides_are_covered_keeps_its_size() -> None:
    # A fan: the card's far sides lie under other cards (white here). Its corner is anchored
    # and its size stays the guessed one, which the far sides cannot correct.
    design = deckgen.design(1002)
    truth = _quad(480, 320, 220, 0.0)
    image = _frame(design, Card.parse("5D"), truth, 1.0, 4)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    middle = truth.mean(axis=0).astype(int)
    gray[middle[1] :, :] = 245
    gray[:, middle[0] :] = 245
    guess = _guess(truth, 0.95, 1.5, 3.0)
    anchored = fit_corner(gray, guess, card_threshold(gray))
    assert np.linalg.norm(anchored[0] - truth[0]) < 1.0
    sides = np.linalg.norm(anchored[[1, 3]] - anchored[0], axis=1)
    want = np.linalg.norm(guess[[1, 3]] - guess[0], axis=1)
    assert np.allclose(sides, want, rtol=1e-6)


def test_a_guess_with_no_paper_corner_stays_where_it_was() -> None:
    # A guess on felt (a bend of a chip's rim, a printed box) has no paper edge to move onto.
    gray = np.full((640, 960), 70, np.uint8)
    guess = _quad(480, 320, 220, 0.1)
    assert np.array_equal(fit_corner(gray, guess, 150.0), guess)


def test_a_blurred_card_in_a_pile_is_read_on_its_guess_anchored_on_the_paper() -> None:
    # A harsh scene (blur, motion, overlap) where the 9H is found only by guessed outlines,
    # each a few per cent of the card off its index: read on none of them, it is read on a
    # copy anchored on its paper corner, and nothing else is read that is not there.
    recognizer = CardRecognizer(*deck_profile("classic"))
    scene = random_scene(np.random.default_rng(30), HARSH, DESIGNS["classic"])
    frame = render_scene(scene)
    readings = recognizer.recognize(frame.image)
    codes = {r.code for r in readings if r.code is not None}
    assert "9H" in codes
    assert codes <= {t.code for t in frame.cards if t.face_up}
    nine = next(r for r in readings if r.code == "9H")
    assert nine.source in (ReadingSource.PROPOSAL, ReadingSource.CORNER)


def _plain_side_lines(*args: Any, **kwargs: Any) -> list[list[Any]]:
    """`_side_lines` as it was before `together` (every side fitted robustly when it must)."""
    kwargs.pop("together", None)
    return _SIDE_LINES(*args, **kwargs)


def _plain_map(start: np.ndarray, out: np.ndarray) -> np.ndarray:
    """`_map` as it was: the double-precision sum, then rounded to single."""
    plain: np.ndarray = (start + out).astype(np.float32)
    return plain


_SIDE_LINES = outline_fit._side_lines


@cache
def _scene_gray(envelope: str, seed: int) -> tuple[np.ndarray, float, tuple[np.ndarray, ...]]:
    """A rendered tuning-design scene: its grey frame, paper threshold, face-up cards' corners."""
    scene = random_scene(np.random.default_rng(seed), ENVELOPES[envelope], deckgen.design(1003))
    frame = render_scene(scene)
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    cards = tuple(np.asarray(t.corners, np.float64) for t in frame.cards if t.face_up)
    return gray, card_threshold(gray), cards


_GUESS = st.tuples(
    st.integers(0, 40),  # which card (modulo the face-up cards)
    st.sampled_from([0, 2]),  # at which index corner
    st.floats(0.7, 1.35),  # the guess's size, a share of the card's
    st.floats(-6.0, 6.0),  # its turn, degrees
    st.floats(-6.0, 10.0),  # its corner's inset, px
)


@settings(max_examples=25, deadline=None)
@given(
    envelope=st.sampled_from(["studio", "harsh"]),
    seed=st.integers(0, 2),
    guesses=st.lists(_GUESS, min_size=1, max_size=24),
    stray=st.lists(
        st.tuples(
            st.floats(100, 1800), st.floats(100, 1000), st.floats(90, 400), st.floats(0, 6.3)
        ),
        max_size=6,
    ),
)
def test_guesses_anchored_together_land_exactly_where_the_plain_fit_puts_them(
    envelope: str,
    seed: int,
    guesses: list[tuple[int, int, float, float, float]],
    stray: list[tuple[float, float, float, float]],
) -> None:
    # The fit that skips robust fits whose line would be thrown away, and rounds its sampling
    # coordinates as it adds them, moves every guess of a batch exactly as the plain fit
    # does: guesses near a scene's cards' index corners (some anchored, some not) and quads
    # anywhere in the frame (felt, other cards, off its edge).
    gray, paper, cards = _scene_gray(envelope, seed)
    quads = [
        _guess(np.roll(cards[k % len(cards)], -turn, axis=0), size, angle, inset)
        for k, turn, size, angle, inset in guesses
    ] + [_quad(cx, cy, h, a) for cx, cy, h, a in stray]
    batch = np.array(quads)
    fast = fit_corners(gray, batch, paper)
    with (
        patch.object(outline_fit, "_side_lines", _plain_side_lines),
        patch.object(outline_fit, "_map", _plain_map),
    ):
        plain = fit_corners(gray, batch, paper)
    assert np.array_equal(fast, plain)


@pytest.mark.parametrize("seed", [1033, 1001])
def test_a_side_lying_on_a_neighbour_is_not_fitted_onto_the_border_line(seed: int) -> None:
    # Tuning designs printing a border line 3% of the width inside the paper (1033 a single
    # one, 1001 a double one). The card's right side lies on a neighbour (paper beyond it, no
    # felt): the outermost dark step across that side is the border line, and fitting the side
    # there left both index windows 2.3% of the height inside the card (a 6 reads as a 9 on a
    # deck whose index sits tight to the edge). The side moves out as far as the left one did.
    design = deckgen.design(seed)
    truth = _quad(480, 320, 340, 0.0)
    image = _frame(design, Card.parse("6H"), truth, 0.8, 3)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    gray[:, int(np.ceil(truth[1, 0])) :] = 235
    inset = truth + np.array([[10, 10], [-10, 10], [-10, -10], [10, -10]])
    fitted = fit_outline(gray, inset, card_threshold(gray))
    assert np.abs(fitted[[0, 3], 0] - truth[[0, 3], 0]).max() < 1.5
    assert np.abs(fitted[[1, 2], 0] - truth[[1, 2], 0]).max() < 2.0
