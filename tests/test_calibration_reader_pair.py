"""A deck's reader is the mean of two seeds' readers, held in one ONNX model.

The merged graph must answer every batch as the mean of its members' answers; a calibrated deck
must carry that one model (saved and loaded with the profile) and read as the pair; and the
calibration's progress must count both trainings, ending once, at the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from calibration import corner_net, corner_training, reader_pair
from calibration.deck import learn_deck
from calibration.profile import CalibrationProfile, load_profile, save_profile
from drivers.camera.index_model import (
    CHANNELS,
    INPUT_SIZE,
    Array,
    Image,
    IndexModel,
    weights_digest,
)
from drivers.camera.synthetic.designs import CLASSIC
from drivers.camera.synthetic.reference import render_reference
from studio.cards import DECK

RANKS = (*"23456789TJQKA", "-")
SUITS = (*"CDHS", "-")


def _random_reader(seed: int) -> IndexModel:
    """A reader of the deck reader's shape with random (untrained) weights: no training needed."""
    params = corner_net._init(np.random.default_rng(seed), len(RANKS), len(SUITS))
    return IndexModel(RANKS, SUITS, corner_net.to_onnx(params))


MEMBERS = (_random_reader(0), _random_reader(1))
MERGED = reader_pair.mean_model(MEMBERS)
WIDTH, HEIGHT = INPUT_SIZE


@settings(max_examples=25)
@given(
    arrays(
        np.float32,
        st.tuples(st.integers(1, 9), st.just(CHANNELS), st.just(HEIGHT), st.just(WIDTH)),
        elements=st.floats(-0.5, 1.5, width=32),
    )
)
def test_the_merged_reader_answers_the_mean_of_its_members(batch: Array) -> None:
    rank, suit = MERGED.probabilities(batch)
    answers = [m.probabilities(batch) for m in MEMBERS]
    np.testing.assert_allclose(rank, np.mean([r for r, _ in answers], axis=0), atol=1e-6)
    np.testing.assert_allclose(suit, np.mean([s for _, s in answers], axis=0), atol=1e-6)
    # Still probabilities: what the classifier's bars are set against.
    np.testing.assert_allclose(rank.sum(axis=1), 1.0, atol=1e-5)


def test_members_of_other_classes_are_refused() -> None:
    other = IndexModel(
        RANKS,
        ("S", "H", "D", "C", "-"),
        corner_net.to_onnx(corner_net._init(np.random.default_rng(2), len(RANKS), len(SUITS))),
    )
    with pytest.raises(ValueError, match="same classes"):
        reader_pair.mean_model([MEMBERS[0], other])


def test_progress_counts_both_trainings_and_ends_once() -> None:
    heard: list[tuple[str, int, int]] = []

    def progress(stage: str, done: int, total: int) -> None:
        heard.append((stage, done, total))

    for member in range(2):
        told = reader_pair._member_progress(progress, member, 2)
        assert told is not None
        for done in (1, 10):
            told("render", done, 10)
        told("train", 5, 5)
    assert heard == [
        ("render", 1, 20),
        ("render", 10, 20),
        ("train", 5, 10),
        ("render", 11, 20),
        ("render", 20, 20),
        ("train", 10, 10),
    ]


def _tiny_training(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Image]:
    """The classic design's scans, trained in seconds, with no shipped model to find."""
    # 2 x 2 windows a card: one whole batch, so each seed's reader takes one step of its own.
    tiny = corner_training.TrainingSize(positives_per_card=2, cuts=2, negatives=12, epochs=1)
    monkeypatch.setattr(corner_training, "training_size", lambda: tiny)
    monkeypatch.setattr(corner_training, "SHIPPED_DIR", tmp_path / "nothing shipped")
    monkeypatch.setattr(corner_training, "_CACHE", {})
    monkeypatch.setattr(reader_pair, "_CACHE", {})
    return {c.code: render_reference(c, CLASSIC, "scan", i) for i, c in enumerate(DECK)}


def test_a_calibrated_deck_carries_one_model_that_reads_as_the_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refs = _tiny_training(monkeypatch, tmp_path)
    cache = tmp_path / "cache"
    deck, templates = learn_deck(refs, model_cache=cache)
    assert templates.model is not None and deck.index_model is not None
    profile = tmp_path / "profile"
    save_profile(profile, CalibrationProfile(deck=deck), templates)
    assert sorted(p.name for p in profile.iterdir()) == ["index_model.onnx", "profile.json"]
    _, loaded = load_profile(profile)
    assert loaded is not None and loaded.model is not None
    # The pair's members, each as one seed's calibration gives it (from the cache: not trained).
    singles = [learn_deck(refs, model_cache=cache, reader_seeds=(s,)) for s in reader_pair.SEEDS]
    learned = [t.model for _, t in singles if t.model is not None]
    rng = np.random.default_rng(7)
    batch = rng.uniform(-0.5, 1.5, (16, CHANNELS, HEIGHT, WIDTH)).astype(np.float32)
    rank, suit = loaded.model.probabilities(batch)
    answers = [m.probabilities(batch) for m in learned]
    np.testing.assert_allclose(rank, np.mean([r for r, _ in answers], axis=0), atol=1e-6)
    np.testing.assert_allclose(suit, np.mean([s for _, s in answers], axis=0), atol=1e-6)
    # Two seeds' readers, not one read twice: the pair is neither of them.
    digests = {weights_digest(m) for m in (*learned, loaded.model)}
    assert len(digests) == 3
    # The profile counts the windows both members were trained on.
    assert deck.index_model.samples == sum(
        d.index_model.samples for d, _ in singles if d.index_model is not None
    )


def test_calibrating_shows_both_trainings_in_one_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What `studio calibrate deck` shows: the two trainings render and fit in turn, each stage
    # counted over both, so rendering is half done when the first fitting starts, goes on after
    # it, and reaches its end once.
    refs = _tiny_training(monkeypatch, tmp_path)
    heard: list[tuple[str, int, int]] = []
    learn_deck(refs, progress=lambda stage, done, total: heard.append((stage, done, total)))
    stages = [stage for stage, _, _ in heard]
    first_train = stages.index("train")
    renders = [100 * done // total for stage, done, total in heard if stage == "render"]
    assert renders == sorted(renders) and renders.count(100) == 1 and renders[-1] == 100
    assert (
        heard[first_train - 1][0] == "render"
        and heard[first_train - 1][1] * 2 == (heard[first_train - 1][2])
    )
    assert "render" in stages[first_train:] and heard[-1][0] == "train"
    assert heard[-1][1] == heard[-1][2]


def test_the_quick_setting_trains_one_seed_where_no_pair_is_shipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests train with the quick setting; two quick readers per test deck cost the camera and
    # calibration tests half their CPU again, so a quick deck is read by its first seed alone.
    refs = _tiny_training(monkeypatch, tmp_path)
    monkeypatch.setattr(corner_training, "QUICK", corner_training.training_size())
    cache = tmp_path / "cache"
    quick = learn_deck(refs, model_cache=cache)[1].model
    alone = learn_deck(refs, model_cache=cache, reader_seeds=reader_pair.SEEDS[:1])[1].model
    assert quick is not None and alone is not None
    assert weights_digest(quick) == weights_digest(alone)


def test_a_deck_learned_before_loads_its_pair_without_training_or_merging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What the simulated table's start relies on: a new process finds the merged reader in the
    # cache (or shipped) and neither trains its members nor builds the graph again.
    refs = _tiny_training(monkeypatch, tmp_path)
    cache = tmp_path / "cache"
    first = learn_deck(refs, model_cache=cache)[1].model
    assert first is not None

    def never(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("trained or merged again although the cache holds the pair")

    monkeypatch.setattr(corner_training, "_train", never)
    monkeypatch.setattr(reader_pair, "mean_model", never)
    monkeypatch.setattr(corner_training, "_CACHE", {})
    monkeypatch.setattr(reader_pair, "_CACHE", {})
    again = learn_deck(refs, model_cache=cache)[1].model
    assert again is not None and weights_digest(again) == weights_digest(first)
