"""Deck calibration learns both synthetic designs from rendered references and refuses bad sets."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.deck import calibrate_deck, flatten_card, learn_deck, read_reference
from calibration.errors import DeckCalibrationError, ProfileError
from calibration.profile import CalibrationProfile, load_profile, save_profile
from drivers.camera.classify import IndexClassifier
from drivers.camera.recognizer import corner_window
from drivers.camera.synthetic.designs import CLASSIC, DESIGNS, JUMBO
from drivers.camera.synthetic.reference import render_reference, write_reference_deck
from studio.cards import DECK, Card
from studio.cli import main


@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_deck_learns_index_window_and_colours(design: str) -> None:
    refs = {c.code: render_reference(c, DESIGNS[design], "scan", i) for i, c in enumerate(DECK)}
    deck, templates = learn_deck(refs)
    x0, y0, x1, y1 = deck.index_window
    assert 0 <= x0 < x1 <= 0.5 and 0 <= y0 < y1 <= 0.5
    assert sorted(deck.red_suits) == ["D", "H"]
    assert set(templates.ranks) == set("23456789TJQKA") and set(templates.suits) == set("CDHS")


def test_each_template_level_knows_its_sharpness(tmp_path: Path) -> None:
    refs = {c.code: render_reference(c, CLASSIC, "scan", i) for i, c in enumerate(DECK)}
    deck, templates = learn_deck(refs)
    assert len(deck.level_sharpness) == deck.levels == len(templates.ranks["A"])
    # The scan is the crispest level; the camera's looks soften with the card's size.
    seen = deck.level_sharpness[1:]
    assert deck.level_sharpness[0] > max(seen) and seen == sorted(seen)
    save_profile(tmp_path, CalibrationProfile(deck=deck), templates)
    loaded, _ = load_profile(tmp_path)
    assert loaded.deck is not None and loaded.deck.level_sharpness == deck.level_sharpness


def test_jumbo_index_window_is_larger_than_classic() -> None:
    def window_area(design: object) -> float:
        refs = {c.code: render_reference(c, design, "scan", i) for i, c in enumerate(DECK)}  # type: ignore[arg-type]
        x0, y0, x1, y1 = learn_deck(refs)[0].index_window
        return (x1 - x0) * (y1 - y0)

    assert window_area(JUMBO) > 1.5 * window_area(CLASSIC)


def test_cli_calibrates_from_photographs_and_profile_round_trips(tmp_path: Path) -> None:
    write_reference_deck(tmp_path / "cards", JUMBO, style="photo")
    assert (
        main(
            ["calibrate", "deck", "--images", str(tmp_path / "cards"), "--out", str(tmp_path / "p")]
        )
        == 0
    )
    profile, templates = load_profile(tmp_path / "p")
    assert profile.deck is not None and templates is not None
    assert profile.deck.cards_used == 52


def test_missing_card_is_named(tmp_path: Path) -> None:
    write_reference_deck(tmp_path, CLASSIC)
    (tmp_path / "QH.png").unlink()
    with pytest.raises(DeckCalibrationError, match="QH"):
        calibrate_deck(tmp_path)


def test_unreadable_card_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_reference_deck(tmp_path, CLASSIC)
    (tmp_path / "7D.png").write_bytes(b"not an image")
    assert main(["calibrate", "deck", "--images", str(tmp_path), "--out", str(tmp_path / "p")]) == 2
    assert "7D.png" in capsys.readouterr().err


def test_a_profile_stores_no_templates_and_one_that_has_them_still_loads_and_reads(
    tmp_path: Path,
) -> None:
    # Nothing reads the rank and suit templates since the templates reader was deleted: a new
    # profile holds none, and one written before (with a `templates/` folder of PNGs, even one
    # a card image was copied over) loads and reads its deck as before.
    cards, out = tmp_path / "cards", tmp_path / "p"
    write_reference_deck(cards, JUMBO, style="photo")
    assert main(["calibrate", "deck", "--images", str(cards), "--out", str(out)]) == 0
    assert not (out / "templates").exists()
    profile, _ = load_profile(out)
    assert profile.deck is not None
    old = out / "templates"
    old.mkdir()
    blank = np.zeros(profile.deck.rank_size[::-1], np.uint8)
    for rank in profile.deck.ranks:
        for level in range(profile.deck.levels):
            assert cv2.imwrite(str(old / f"rank_{rank}_{level}.png"), blank)
    shutil.copy(cards / "AS.png", old / "rank_A_0.png")
    profile, templates = load_profile(out)
    assert profile.deck is not None and templates is not None and templates.model is not None
    classifier = IndexClassifier(profile.deck, templates)
    for code in ("AS", "TD", "7H", "QC"):
        flat = flatten_card(read_reference(cards / f"{code}.png"), code)
        read = classifier.read(corner_window(flat, profile.deck.index_window))
        assert read is not None and read.code == code


def test_a_file_given_for_the_image_directory_is_named_as_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_reference_deck(tmp_path, CLASSIC)
    given = tmp_path / "AS.png"
    assert main(["calibrate", "deck", "--images", str(given), "--out", str(tmp_path / "p")]) == 2
    assert "is a file" in capsys.readouterr().err


def test_profile_of_another_version_is_refused(tmp_path: Path) -> None:
    save_profile(tmp_path, CalibrationProfile())
    text = (
        (tmp_path / "profile.json")
        .read_text()
        .replace('"profile_version": 1', '"profile_version": 9')
    )
    (tmp_path / "profile.json").write_text(text)
    with pytest.raises(ProfileError, match="version"):
        load_profile(tmp_path)


def test_blank_card_has_no_index(tmp_path: Path) -> None:
    refs = {c.code: render_reference(c, CLASSIC, "scan", i) for i, c in enumerate(DECK)}
    refs["AS"] = cv2.rectangle(refs["AS"].copy(), (0, 0), (200, 260), (250, 250, 250), -1)
    with pytest.raises(DeckCalibrationError, match="AS"):
        learn_deck(refs)


def test_a_card_whose_index_cannot_be_located_still_calibrates(tmp_path: Path) -> None:
    # A smudge over one card's index (ink touching the search's edge is never index ink) leaves
    # that card out of the templates only; the learned reader still trains on its window.
    refs = {c.code: render_reference(c, CLASSIC, "scan", i) for i, c in enumerate(DECK)}
    card = refs["7H"].copy()
    h, w = card.shape[:2]
    cv2.rectangle(card, (0, 0), (w // 4, h // 5), (40, 40, 40), -1)
    refs["7H"] = card
    deck, templates = learn_deck(refs)
    assert deck.cards_used == 51 and "7" in templates.ranks and "H" in templates.suits


def test_a_rank_with_no_locatable_card_is_refused_by_name() -> None:
    refs = {c.code: render_reference(c, CLASSIC, "scan", i) for i, c in enumerate(DECK)}
    for suit in "CDHS":
        refs["9" + suit] = cv2.rectangle(
            refs["9" + suit].copy(), (0, 0), (200, 260), (250, 250, 250), -1
        )
    with pytest.raises(DeckCalibrationError, match=r"rank 9.*9C.*9S"):
        learn_deck(refs)


def test_an_index_printed_against_a_border_line_is_located_without_it() -> None:
    from calibration.deck import flatten_card, locate_index

    flat = flatten_card(render_reference(Card.parse("KD"), CLASSIC, "scan", 0))
    plain = locate_index(flat, "KD")
    x, y, _bw, bh = plain.rank_box
    lined = flat.copy()
    # A border line down the card, touching the rank's left edge, and one across above it.
    cv2.line(lined, (x - 1, 0), (x - 1, lined.shape[0] - 1), (30, 30, 30), 2)
    cv2.line(lined, (0, y - 1), (lined.shape[1] - 1, y - 1), (30, 30, 30), 2)
    found = locate_index(lined, "KD")
    assert found.suit_box[1] > found.rank_box[1]
    assert abs(found.rank_box[1] - y) <= 2 and abs(found.rank_box[3] - bh) <= 3
