"""Deck calibration tells a four-index deck (an index at every corner) from a two-index one.

About a third of the generated designs, and many casino decks ("4-index jumbo"), print the
top-left index again upright at the top right, and its half turn at the bottom left. The
profile records it (`DeckCalibration.four_index`, with the window the top-right index is read
through), `studio calibrate deck` says so, and a profile written before it loads as a
two-index deck.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from camera_support import deck_profile, generated_profile

from calibration.errors import ProfileError
from calibration.four_index import upper_right_window
from calibration.glyphs import IndexInk
from calibration.profile import CalibrationProfile, load_profile, save_profile
from drivers.camera.synthetic import deckgen
from studio.commands.calibrate_jobs import deck_summary

FOUR_INDEX = 1031
"""A tuning design printing four indices (regular size, inset)."""
TWO_INDEX = 1002
"""A tuning design printing two (regular size, tight)."""


def test_generated_designs_are_told_four_index_or_not() -> None:
    assert deckgen.design(FOUR_INDEX).four_index and not deckgen.design(TWO_INDEX).four_index
    four, _ = generated_profile(FOUR_INDEX)
    two, _ = generated_profile(TWO_INDEX)
    assert four.deck is not None and four.deck.four_index
    assert two.deck is not None and not two.deck.four_index
    assert two.deck.upper_right_window is None
    # The top-right window lies at the right edge, as tall and as wide as the deck's own.
    assert four.deck.upper_right_window is not None
    x0, y0, x1, y1 = four.deck.upper_right_window
    w0, v0, w1, v1 = four.deck.index_window
    assert x0 > 0.5 and x1 >= 0.95
    assert (y0, y1) == (v0, v1) and x1 - x0 == pytest.approx(w1 - w0)


def test_the_built_in_two_index_decks_are_not_four_index() -> None:
    for design in ("classic", "jumbo"):
        profile, _ = deck_profile(design)
        assert profile.deck is not None and not profile.deck.four_index


def test_calibrate_deck_says_a_deck_is_four_index(tmp_path: Path) -> None:
    four, templates = generated_profile(FOUR_INDEX)
    two, _ = generated_profile(TWO_INDEX)
    assert four.deck is not None and two.deck is not None
    sheet = tmp_path / "index_sheet.png"
    assert "four-index" in deck_summary(four.deck, tmp_path, sheet)
    assert "four-index" not in deck_summary(two.deck, tmp_path, sheet)
    # The profile's JSON says it too, beside the window the top-right index is read through.
    save_profile(tmp_path, four, templates)
    saved = json.loads((tmp_path / "profile.json").read_text())["deck"]
    assert saved["four_index"] is True
    assert saved["upper_right_window"] == list(four.deck.upper_right_window or ())


def test_a_profile_written_before_loads_as_a_two_index_deck(tmp_path: Path) -> None:
    profile, templates = generated_profile(FOUR_INDEX)
    save_profile(tmp_path, profile, templates)
    raw = json.loads((tmp_path / "profile.json").read_text())
    del raw["deck"]["four_index"], raw["deck"]["upper_right_window"]
    (tmp_path / "profile.json").write_text(json.dumps(raw))
    loaded, _ = load_profile(tmp_path)
    assert loaded.deck is not None and not loaded.deck.four_index
    assert loaded.deck.upper_right_window is None


def test_four_index_without_its_window_is_refused(tmp_path: Path) -> None:
    profile, templates = generated_profile(TWO_INDEX)
    save_profile(tmp_path, profile, templates)
    raw = json.loads((tmp_path / "profile.json").read_text())
    raw["deck"]["four_index"] = True
    (tmp_path / "profile.json").write_text(json.dumps(raw))
    with pytest.raises(ProfileError, match="four_index"):
        load_profile(tmp_path)
    assert CalibrationProfile().deck is None


def test_the_top_right_window_holds_the_index_mirrored_in_place() -> None:
    # An index 20..60 px from the left edge of a 200 px card lies 140..180 px at the top
    # right: the window moves by 120 px whatever its own margins.
    ink = IndexInk(None, None, (20, 10, 40, 30), (25, 45, 30, 20), False)  # type: ignore[arg-type]
    assert upper_right_window((0.05, 0.02, 0.4, 0.3), [ink], 200) == pytest.approx(
        (0.65, 0.02, 1.0, 0.3)
    )
