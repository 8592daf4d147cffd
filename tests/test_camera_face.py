"""A card whose index cannot tell its suit is read on its face's larger symbols, and only then."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from camera_support import deck_profile

from calibration.deck import flatten_card
from drivers.camera.classify import MIN_SHARPNESS, GlyphScore, IndexClassifier, IndexRead
from drivers.camera.detect import CardOutline, card_threshold
from drivers.camera.face_ink import PAPER_GROUND, find_face_ink
from drivers.camera.recognizer import CardRecognizer, corner_window
from drivers.camera.synthetic.designs import CLASSIC, JUMBO, CardDesign
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import Card

DESIGNS = {"classic": CLASSIC, "jumbo": JUMBO}


def _flat(code: str, design: str) -> np.ndarray:
    return flatten_card(render_reference(Card.parse(code), DESIGNS[design]))


def _index(classifier: IndexClassifier, flat: np.ndarray) -> tuple[GlyphScore, GlyphScore]:
    deck = classifier._deck
    found = classifier.scores(corner_window(flat, deck.index_window))
    assert found is not None
    return found[0], found[1]


@pytest.mark.parametrize(
    ("design", "code"), [("jumbo", "7S"), ("jumbo", "AC"), ("classic", "9S"), ("jumbo", "8C")]
)
def test_the_face_confirms_the_suit_the_index_guessed_and_refutes_the_other(
    design: str, code: str
) -> None:
    profile, templates = deck_profile(design)
    assert profile.deck is not None
    classifier = IndexClassifier(profile.deck, templates)
    flat = _flat(code, design)
    rank, suit = _index(classifier, flat)
    assert classifier.read_face(flat, rank, suit).code == code
    twin = {"S": "C", "C": "S"}[code[1]]
    assert classifier.read_face(flat, rank, GlyphScore(None, 0.9, 0.1, candidate=twin)).code is None


def test_a_face_too_soft_for_a_spade_or_with_another_cards_index_on_it_reads_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    profile, templates = deck_profile("classic")
    assert profile.deck is not None
    classifier = IndexClassifier(profile.deck, templates)
    flat = _flat("2S", "classic")
    rank, suit = _index(classifier, flat)
    assert classifier.read_face(flat, rank, suit).code == "2S"
    # Pips blurred below the sharpness a spade needs (`MIN_SHARPNESS`), where blurred clubs
    # pass for spades: they still look like spades, and are refused for it.
    soft = cv2.GaussianBlur(flat, (0, 0), 3.2)
    assert all(ink.sharpness < 5.6 for ink in find_face_ink(soft, profile.deck.index_window))
    assert classifier.read_face(soft, rank, suit).code is None
    monkeypatch.setitem(MIN_SHARPNESS, "S", 0.0)
    assert classifier.read_face(soft, rank, suit).code == "2S"
    monkeypatch.undo()
    # A red index of a card lying across this one's face leans to another suit.
    covered = flat.copy()
    diamond = corner_window(_flat("AD", "classic"), profile.deck.index_window)
    h, w = diamond.shape[:2]
    covered[120 : 120 + h, 60 : 60 + w] = diamond
    assert classifier.read_face(covered, rank, suit).code is None


def _card_frame(code: str, design: CardDesign) -> tuple[np.ndarray, CardOutline]:
    scene = Scene(
        width=1280,
        height=720,
        table_to_image=np.array([[2.0, 0, 640], [0, 2.0, 360], [0, 0, 1]], np.float64),
        design=design,
        cards=[PlacedCard(Card.parse(code), 0, 0, 8)],
    )
    rendered = render_scene(scene)
    corners = rendered.cards[0].corners.astype(np.float32)
    contour = corners.reshape(-1, 1, 2).astype(np.int32)
    return rendered.image, CardOutline(corners, contour, partial=False)


def test_a_whole_card_whose_corners_refuse_the_suit_is_read_on_its_face(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    profile, templates = deck_profile("jumbo")
    rec = CardRecognizer(profile, templates, reader="templates")
    frame, outline = _card_frame("7S", JUMBO)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    thr = card_threshold(gray)
    rank = GlyphScore("7", 0.95, 0.6, 0.1, "7", height=30)
    doubt = GlyphScore(None, 0.95, 0.2, 0.01, "S", height=17)

    def corners(*reads: IndexRead) -> None:
        answers = list(reads)
        monkeypatch.setattr(rec._classifier, "read", lambda _w, guessed=False: answers.pop(0))

    refused = IndexRead(None, 0.9, None, rank, doubt)
    corners(refused, refused)
    reading = rec._read(frame, gray, thr, outline)
    assert reading is not None and reading.code == "7S"
    # The network, unsure of the same soft index, may doubt the black suit, not the rank.
    corners(IndexRead(None, 0.9, "7C", rank, doubt), refused)
    reading = rec._read(frame, gray, thr, outline)
    assert reading is not None and reading.code == "7S"
    corners(IndexRead(None, 0.9, "8S", rank, doubt), refused)
    reading = rec._read(frame, gray, thr, outline)
    assert reading is not None and reading.code is None
    # Corners disagreeing on the rank: no.
    other = IndexRead(None, 0.9, None, GlyphScore("8", 0.95, 0.6, 0.1, "8", height=30), doubt)
    corners(refused, other)
    reading = rec._read(frame, gray, thr, outline)
    assert reading is not None and reading.code is None
    # A covered card: only symbols wholly in view count (its centre symbol spans 35-65% of it).
    c = outline.corners
    for shown, seen in ((0.6, None), (0.75, "7S")):
        strip = np.array([c[0], c[1], c[1] + shown * (c[2] - c[1]), c[0] + shown * (c[3] - c[0])])
        covered = CardOutline(c, strip.reshape(-1, 1, 2).astype(np.int32), partial=True)
        corners(refused)
        reading = rec._read(frame, gray, thr, covered)
        assert reading is not None and reading.code == seen


def test_a_heart_whose_colour_is_in_doubt_never_takes_a_black_suit_from_foreign_ink() -> None:
    # A dimmed heart's index guessed a spade; a spade index lay across its face. The hearts,
    # scored only against black suits, fitted none and were skipped: the spade decided "5S".
    profile, templates = deck_profile("jumbo")
    assert profile.deck is not None
    classifier = IndexClassifier(profile.deck, templates)
    spade = corner_window(_flat("AS", "jumbo"), profile.deck.index_window)
    for code in ("5H", "4D"):
        flat = _flat(code, "jumbo").astype(np.float32)
        grey = cv2.cvtColor(flat.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
        dim = np.clip(0.38 * flat + 0.62 * grey[..., None], 0, 255).astype(np.uint8)
        rank, suit = _index(classifier, dim)
        assert suit.key is None and suit.candidate == "S"  # the index's colour is in doubt
        for y, x in ((120, 60), (130, 75), (180, 80)):
            covered = dim.copy()
            h, w = spade.shape[:2]
            covered[y : y + h, x : x + w] = spade
            assert classifier.read_face(covered, rank, suit).code is None


def test_a_pip_the_index_window_cuts_is_left_out_not_read_as_a_smaller_shape() -> None:
    profile, _ = deck_profile("classic")
    assert profile.deck is not None
    # The classic nine's top-left and bottom-right pips reach into the deck's index windows:
    # cut there, a spade is narrower and can fit a club, so it must not be offered as a symbol.
    inks = find_face_ink(_flat("9S", "classic"), profile.deck.index_window)
    widths = sorted(ink.box[2] for ink in inks)
    assert len(inks) == 7
    assert widths[-1] - widths[0] <= 1


def test_a_spade_in_colour_doubt_is_not_refused_for_a_diamond_that_fits_it_either_way_up() -> None:
    profile, templates = deck_profile("classic")
    assert profile.deck is not None
    classifier = IndexClassifier(profile.deck, templates)

    def tinted(code: str) -> np.ndarray:
        # A reddish cast on the ink (its colour in doubt) and motion blur: turned over, the soft
        # spade fits a diamond almost as well as a spade, and a diamond fits the same either way.
        flat = _flat(code, "classic").astype(np.float32)
        flat[..., 2] += 55.0 * (flat.mean(axis=2) < 128)
        soft = cv2.GaussianBlur(np.clip(flat, 0, 255).astype(np.uint8), (0, 0), 1.0)
        return cv2.filter2D(soft, -1, np.full((1, 5), 0.2, np.float32))

    spade = tinted("9S")
    shares = [ink.redness for ink in find_face_ink(spade, profile.deck.index_window)]
    assert all(0.15 <= share <= 0.35 for share in shares)
    rank, suit = _index(classifier, _flat("9S", "classic"))
    assert classifier.read_face(spade, rank, suit).code == "9S"
    for code, guess in (("9D", "S"), ("9S", "C"), ("9S", "D")):
        doubt = GlyphScore(None, 0.9, 0.1, candidate=guess, height=suit.height)
        assert classifier.read_face(tinted(code), rank, doubt).code is None


def test_a_proposals_face_is_read_only_where_the_deck_prints_the_ranks_symbols() -> None:
    profile, templates = deck_profile("classic")
    assert profile.deck is not None
    classifier = IndexClassifier(profile.deck, templates)
    layouts = profile.deck.face_layouts
    flat = _flat("9S", "classic")
    rank, suit = _index(classifier, flat)
    assert classifier.read_face(flat, rank, suit, layout=layouts["9"]).code == "9S"
    # Seen from its other index corner, the face is the same layout turned half a circle.
    assert classifier.read_face(flat[::-1, ::-1], rank, suit, layout=layouts["9"]).code == "9S"
    # Another rank's layout, or a face shifted under the outline (the outline on one card, the
    # face partly another's), or a face half covered, is not this card's face.
    assert classifier.read_face(flat, rank, suit, layout=layouts["8"]).code is None
    shifted = np.full_like(flat, 255)
    shifted[:, 30:] = flat[:, :-30]
    assert classifier.read_face(shifted, rank, suit).code == "9S"
    assert classifier.read_face(shifted, rank, suit, layout=layouts["9"]).code is None
    covered = flat.copy()
    covered[140:, 100:] = 255
    assert classifier.read_face(covered, rank, suit).code == "9S"
    assert classifier.read_face(covered, rank, suit, layout=layouts["9"]).code is None


@pytest.mark.parametrize("design", ["classic", "jumbo"])
def test_a_blurred_court_club_is_never_read_as_a_spade_from_its_pictures_symbol(
    design: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The picture's symbol lies on a coloured panel: measured against the paper, a blurred rim
    # over the panel passes for ink and fills a club's lobes. It may decide a red suit only.
    profile, templates = deck_profile(design)
    assert profile.deck is not None
    classifier = IndexClassifier(profile.deck, templates)
    window = profile.deck.index_window
    assert all(ink.ground < 0.2 for ink in find_face_ink(_flat("7S", design), window))

    def spades_read() -> int:
        count = 0
        for code in ("KC", "QC", "JC"):
            flat = _flat(code, design)
            rank, suit = _index(classifier, flat)
            doubt = GlyphScore(None, 0.9, 0.1, candidate="S", height=suit.height)
            for blur in (5.0, 6.0):
                soft = cv2.GaussianBlur(flat, (0, 0), blur)
                read = classifier.read_face(soft, rank, doubt).code
                assert read in (None, rank.key + "S")
                count += read is not None
        return count

    assert spades_read() == 0
    monkeypatch.setattr("drivers.camera.classify.PAPER_GROUND", 1.0)
    assert spades_read() > 0
    monkeypatch.undo()
    flat = _flat("KD", design)
    assert max(ink.ground for ink in find_face_ink(flat, window)) > PAPER_GROUND
    rank, suit = _index(classifier, flat)
    assert classifier.read_face(flat, rank, suit).code == "KD"


def test_a_court_card_under_a_pip_where_its_picture_symbol_was_is_not_read_by_that_pip() -> None:
    # A review's scene: a two of spades lies across a king of clubs, one of its pips right where
    # the king's picture symbol is; only the king's far index shows, and blur merges the two
    # into one region. The picture symbol, on its panel, decides no black suit, so courts get
    # no layout, and a proposal's face is never read for them.
    profile, templates = deck_profile("classic")
    assert profile.deck is not None
    assert not set("JQK") & set(profile.deck.face_layouts)
    recognizer = CardRecognizer(profile, templates, reader="templates")
    h = np.array([[180 / 88, 0, 320], [0, 180 / 88, 240], [0, 0, 1.0]])
    cards = [PlacedCard(Card.parse("KC"), 0, 0, 0), PlacedCard(Card.parse("2S"), 0, -0.47 * 88, 0)]
    for seed in range(4):
        scene = Scene(
            640, 480, h, CLASSIC, cards=cards, blur_sigma=2.0, motion_angle=30.0, seed=seed
        )
        codes = {r.code for r in recognizer.recognize(render_scene(scene).image)}
        assert codes <= {"KC", "2S", None}
