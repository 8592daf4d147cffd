"""Card outlines moved onto the paper's edge (`drivers.camera.outline_fit`), on rendered frames."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from drivers.camera.detect import card_threshold, detect_cards, long_side
from drivers.camera.outline_fit import fit_outline
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import DESIGNS, Design
from drivers.camera.synthetic.faces import render_face
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


def test_a_large_card_reads_once_with_its_corners_on_the_paper() -> None:
    # A large card falls apart into strips; the reading's corners are the paper's (the JSON
    # contract's corners) and its strips add no unknown card beside it.
    recognizer = CardRecognizer(*deck_profile("jumbo"))
    truth = _quad(480, 320, 380, 0.2)
    image = _frame(DESIGNS["jumbo"], Card.parse("QD"), truth, 0.7, 5)
    readings = recognizer.recognize(image)
    assert [r.code for r in readings] == ["QD"]
    assert _off(np.array(readings[0].corners), truth) < 0.01
