"""Deck references in the forms outside decks come in calibrate as our own scans do.

Card packages and studios give PNGs with an alpha channel (transparent rounded corners, a
transparent margin), a white margin or a thin outline round the card, thumbnails, JPEG, or a
photograph on a light ground (`drivers/camera/synthetic/reference_forms.py` draws each from a
design's flat render). Each is flattened as the design's own cropped scan is, calibrates, and
reads the deck on the table; a form the card cannot be found on is refused by name.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.deck import (
    CANON_SIZE,
    calibrate_deck,
    flatten_card,
    read_reference,
    reference_images,
)
from calibration.errors import DeckCalibrationError
from calibration.profile import CalibrationProfile
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.deckgen import FONTS
from drivers.camera.synthetic.designs import Design
from drivers.camera.synthetic.faces import Image
from drivers.camera.synthetic.reference import render_reference
from drivers.camera.synthetic.reference_forms import FORMS, write_form
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import DECK, Card

pytestmark = pytest.mark.skipif(
    not all(f.path.is_file() for f in FONTS), reason="Debian font packages not installed"
)

SEED = 1000
"""A tuning design: a jumbo index inset from a printed border line."""


def _flat(folder: Path, form: str, index: int) -> Image:
    """Card `DECK[index]` of design `SEED` written in `form`, read and flattened as calibration
    does."""
    writer = FORMS[form][1]
    assert writer is not None
    card = DECK[index]
    suffix, image = writer(card, deckgen.design(SEED), index)
    path = folder / f"{card.code}{suffix}"
    folder.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), image)
    return flatten_card(read_reference(path), card.code)


def _scan_flat(folder: Path, index: int) -> Image:
    """The same card's flat from the baseline form, the scan `bench/camera.py` calibrates from."""
    card = DECK[index]
    path = folder / f"scan-{card.code}.png"
    cv2.imwrite(str(path), render_reference(card, deckgen.design(SEED), "scan", index))
    return flatten_card(read_reference(path), card.code)


def _drift(a: Image, b: Image) -> float:
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).mean())


@pytest.mark.parametrize("form", ["alpha-black", "alpha-white", "alpha-margin"])
def test_transparent_corners_and_margins_read_as_the_cropped_scan(
    tmp_path: Path, form: str
) -> None:
    # Read as colour alone, the transparent margin (black under it) was taken for a photograph's
    # dark ground and the card flattened 18 grey levels off its scan; cropped and filled with
    # the card's paper, it is the scan but for the sensor noise in its corners.
    for index in (0, 22, 47):
        assert _drift(_flat(tmp_path / form, form, index), _scan_flat(tmp_path, index)) < 0.5


@pytest.mark.parametrize("form", ["white-margin", "outline-margin", "tilt-light"])
def test_a_card_on_a_white_margin_or_light_ground_is_found_on_it(tmp_path: Path, form: str) -> None:
    # The whole canvas was taken for a cropped card (35-47 grey levels off the scan's flat).
    for index in (3, 30, 51):
        assert _drift(_flat(tmp_path / form, form, index), _scan_flat(tmp_path, index)) < 10


@pytest.mark.parametrize("seed", [1000, 1001, 1002])
def test_a_cropped_scan_with_printed_border_lines_stays_cropped(seed: int) -> None:
    # Its border lines (none, one, two) are not a card's edge on a ground of its own paper.
    design = deckgen.design(seed)
    writer = FORMS["thumb-250"][1]
    assert writer is not None
    for index in (0, 40):
        _, image = writer(DECK[index], design, index)
        flat = flatten_card(image)
        assert np.array_equal(flat, cv2.resize(image, CANON_SIZE, interpolation=cv2.INTER_AREA))


def test_a_wholly_transparent_reference_is_refused_by_name(tmp_path: Path) -> None:
    write_form(tmp_path, deckgen.design(SEED), "alpha-black")
    cv2.imwrite(str(tmp_path / "7D.png"), np.zeros((600, 430, 4), np.uint8))
    with pytest.raises(DeckCalibrationError, match=r"7D\.png: the image is wholly transparent"):
        calibrate_deck(tmp_path)


def _reads(design: Design, folder: Path) -> list[list[str | None]]:
    """Calibrate from `folder` and read three lone cards of `design` on the table."""
    deck, templates = calibrate_deck(folder)
    assert deck.cards_used == 52
    assert deck.card_aspect == pytest.approx(88 / 63, abs=0.01)
    recognizer = CardRecognizer(CalibrationProfile(deck=deck), templates)
    view = np.array([[2.2, 0, 960], [0, 2.2, 540], [0, 0, 1.0]])
    out = []
    for code, angle in (("QD", 20.0), ("5S", 200.0), ("TH", 95.0)):
        scene = Scene(
            width=1920, height=1080, table_to_image=view, design=design,
            cards=(PlacedCard(Card.parse(code), 10.0, -5.0, angle),),
        )  # fmt: skip
        out.append([r.code for r in recognizer.recognize(render_scene(scene).image)])
    return out


def test_a_deck_of_alpha_padded_small_and_jpeg_references_calibrates_and_reads(
    tmp_path: Path,
) -> None:
    # One deck mixing the forms (a deck is one training: one per form would cost the suit's
    # time, not its reach): PNGs with a transparent margin, white margins, thumbnails, JPEG.
    design = deckgen.design(SEED)
    forms = ("alpha-margin", "white-margin", "thumb-250", "jpeg-80")
    for form in forms:
        write_form(tmp_path / form, design, form)
    for i, card in enumerate(DECK):
        form = forms[i % len(forms)]
        (source,) = (tmp_path / form).glob(f"{card.code}.*")
        source.rename(tmp_path / source.name)
    assert _reads(design, tmp_path) == [["QD"], ["5S"], ["TH"]]


_WORDS = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def _in_words(code: str) -> str:
    return f"{_WORDS.get(code[0], code[0])}_of_{_SUITS[code[1]]}"


def test_cards_named_in_words_are_found_and_an_art_variant_is_refused(tmp_path: Path) -> None:
    write_form(tmp_path, deckgen.design(SEED), "scan")
    for card in DECK:
        (tmp_path / f"{card.code}.png").rename(tmp_path / f"{_in_words(card.code)}.png")
    (tmp_path / "black_joker.png").write_bytes(b"")  # a package's jokers are no card
    found = reference_images(tmp_path)
    assert found["AS"].name == "ace_of_spades.png" and found["TH"].name == "10_of_hearts.png"
    assert found["QD"].name == "queen_of_diamonds.png" and found["7C"].name == "7_of_clubs.png"
    # Packages give some courts twice, in two arts: which one is the deck's is the studio's call.
    (tmp_path / "jack_of_hearts2.png").write_bytes(b"")
    with pytest.raises(
        DeckCalibrationError, match=r"card JH is given twice \(jack_of_hearts\.png, jack_of_hearts2"
    ):
        reference_images(tmp_path)
    # A card named both ways is given twice too.
    (tmp_path / "jack_of_hearts2.png").unlink()
    (tmp_path / "AS.png").write_bytes(b"")
    with pytest.raises(DeckCalibrationError, match="card AS is given twice"):
        reference_images(tmp_path)
