"""The learned index reader: trained from the deck's own references at calibration.

It must never name a card on a back, a chip or blank felt, and travel with the profile (an old
profile without it is refused with one line saying how to calibrate again).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from camera_support import deck_profile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_camera_classify import _corners

from calibration.errors import ProfileError
from calibration.profile import load_profile, save_profile
from drivers.camera.classify import IndexClassifier
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.designs import DESIGNS
from drivers.camera.synthetic.scene import Chip, PlacedCard, Scene, render_scene
from studio.cards import Card


def _felt_frame(seed: int) -> Any:
    """A frame of card backs, chips and empty felt, with glare: nothing on it is a face."""
    rng = np.random.default_rng(seed)
    view = np.array([[2.6, 0, 960], [0, 2.6, 540], [0, 0, 1.0]])
    backs = tuple(
        PlacedCard(Card.parse("AS"), float(x), float(y), float(a), face_up=False)
        for x, y, a in zip(
            rng.uniform(-250, 250, 3),
            rng.uniform(-120, 120, 3),
            rng.uniform(0, 180, 3),
            strict=True,
        )
    )
    chips = tuple(
        Chip(float(x), float(y), 19, tuple(int(c) for c in rng.integers(0, 255, 3)))
        for x, y in zip(rng.uniform(-300, 300, 4), rng.uniform(-150, 150, 4), strict=True)
    )
    scene = Scene(
        width=1920, height=1080, table_to_image=view, design=DESIGNS["classic"],
        cards=backs, chips=chips, blur_sigma=float(rng.uniform(0, 1.5)),
    )  # fmt: skip
    return render_scene(scene).image


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    design=st.sampled_from(["classic", "jumbo"]),
    seed=st.integers(0, 3),
    x=st.floats(0.05, 0.9),
    y=st.floats(0.05, 0.9),
    size=st.floats(60.0, 320.0),
    angle=st.floats(0.0, 360.0),
)
def test_backs_chips_and_felt_never_read_as_a_card(
    design: str, seed: int, x: float, y: float, size: float, angle: float
) -> None:
    # Any card-shaped cut of a frame holding only backs, chips and felt reads no code.
    frame = _frame_cache(seed)
    profile, templates = deck_profile(design)
    assert profile.deck is not None
    classifier = IndexClassifier(profile.deck, templates)
    recognizer = CardRecognizer(profile, templates)
    w, h = size * 63 / 88, size
    c, s = np.cos(np.deg2rad(angle)), np.sin(np.deg2rad(angle))
    base = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    quad = base @ np.array([[c, -s], [s, c]]).T + [x * 1920, y * 1080]
    read = classifier.read(recognizer._corner(frame, quad))
    assert read is None or read.code is None


_FRAMES: dict[int, Any] = {}


def _frame_cache(seed: int) -> Any:
    if seed not in _FRAMES:
        _FRAMES[seed] = _felt_frame(seed)
    return _FRAMES[seed]


def test_profile_round_trip_keeps_the_learned_reader(tmp_path: Path) -> None:
    profile, templates = deck_profile("jumbo")
    assert profile.deck is not None and profile.deck.index_model is not None
    save_profile(tmp_path, profile, templates)
    loaded, again = load_profile(tmp_path)
    assert loaded == profile and again is not None and again.model is not None
    window = cv2.GaussianBlur(_corners("jumbo", 1, seed=7)[0][1], (0, 0), 1.0)
    a = IndexClassifier(profile.deck, templates).read(window)
    b = IndexClassifier(profile.deck, again).read(window)
    assert a == b


def test_tampered_model_weights_are_refused(tmp_path: Path) -> None:
    profile, templates = deck_profile("jumbo")
    assert profile.deck is not None and profile.deck.index_model is not None
    save_profile(tmp_path, profile, templates)
    path = tmp_path / profile.deck.index_model.file
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one weight's byte flipped
    path.write_bytes(bytes(data))
    with pytest.raises(ProfileError, match="index model"):
        load_profile(tmp_path)
    path.unlink()
    with pytest.raises(ProfileError, match="index model"):
        load_profile(tmp_path)


@pytest.mark.parametrize("name", ["../elsewhere.onnx", "/tmp/weights.onnx", "model.pickle"])
def test_a_model_file_outside_the_profile_is_refused(tmp_path: Path, name: str) -> None:
    # A copied profile.json naming another path would have `save_profile` write weights there.
    profile, templates = deck_profile("jumbo")
    save_profile(tmp_path, profile, templates)
    raw = json.loads((tmp_path / "profile.json").read_text())
    raw["deck"]["index_model"]["file"] = name
    (tmp_path / "profile.json").write_text(json.dumps(raw))
    with pytest.raises(ProfileError, match=r"index_model\.file"):
        load_profile(tmp_path)


def test_profile_without_a_learned_reader_is_refused_with_one_clear_line(tmp_path: Path) -> None:
    # A profile saved before the learned reader existed: no `index_model`, no weights file. Its
    # templates no longer read anything, so the recognizer says how to get a reader.
    profile, templates = deck_profile("jumbo")
    assert profile.deck is not None and profile.deck.index_model is not None
    save_profile(tmp_path, profile, templates)
    (tmp_path / profile.deck.index_model.file).unlink()
    raw = json.loads((tmp_path / "profile.json").read_text())
    del raw["deck"]["index_model"]
    (tmp_path / "profile.json").write_text(json.dumps(raw))
    old, old_templates = load_profile(tmp_path)
    assert old_templates is not None and old_templates.model is None
    with pytest.raises(RecognizerConfigurationError) as err:
        CardRecognizer(old, old_templates)
    assert "studio calibrate deck" in str(err.value) and "\n" not in str(err.value)


def _quick_training(
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[dict[str, Any], list[str], list[str]]:
    """A one-epoch, few-sample training set-up over the classic deck's flat references."""
    from calibration import corner_training
    from calibration.deck import flatten_card
    from drivers.camera.synthetic.reference import render_reference
    from studio.cards import DECK

    tiny = corner_training.TrainingSize(positives_per_card=1, cuts=1, negatives=12, epochs=1)
    monkeypatch.setattr(corner_training, "training_size", lambda: tiny)
    monkeypatch.setattr(corner_training, "_CACHE", {})
    flats = {
        c.code: flatten_card(render_reference(c, DESIGNS["classic"], "scan", i))
        for i, c in enumerate(DECK)
    }
    return flats, list("23456789TJQKA"), list("SHDC")


def test_training_is_deterministic_and_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same references always give the same weights; a second training is the cached one.
    from calibration import corner_training
    from drivers.camera.index_model import weights_digest

    flats, ranks, suits = _quick_training(monkeypatch)
    size = corner_training.training_size()
    first, _ = corner_training._train(flats, (0, 1, 48, 67), ranks, suits, 0, size)
    again, _ = corner_training._train(flats, (0, 1, 48, 67), ranks, suits, 0, size)
    assert weights_digest(first) == weights_digest(again)
    cached, _ = corner_training.train_index_model(flats, (0, 1, 48, 67), ranks, suits)
    assert corner_training.train_index_model(flats, (0, 1, 48, 67), ranks, suits)[0] is cached


def test_a_model_trained_once_is_loaded_from_the_cache_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What `studio run` and a repeated `studio calibrate deck` rely on: a new process (an empty
    # process cache) finds the model trained before on disk and does not train again; a damaged
    # file is trained again and replaced; other references, or other training code, get a model
    # of their own.
    from calibration import corner_training
    from drivers.camera.index_model import weights_digest

    flats, ranks, suits = _quick_training(monkeypatch)
    cache = tmp_path / "cache"
    trained, samples = corner_training.train_index_model(
        flats, (0, 1, 48, 67), ranks, suits, cache_dir=cache
    )
    files = list(cache.iterdir())
    assert len(files) == 1 and files[0].suffix == ".npz"

    train = corner_training._train

    def no_training(*args: Any) -> Any:
        raise AssertionError("trained again although the cache holds the model")

    monkeypatch.setattr(corner_training, "_train", no_training)
    monkeypatch.setattr(corner_training, "_CACHE", {})
    loaded, again = corner_training.train_index_model(
        flats, (0, 1, 48, 67), ranks, suits, cache_dir=cache
    )
    assert weights_digest(loaded) == weights_digest(trained) and again == samples

    files[0].write_bytes(b"not a model")
    monkeypatch.setattr(corner_training, "_train", train)
    monkeypatch.setattr(corner_training, "_CACHE", {})
    retrained, _ = corner_training.train_index_model(
        flats, (0, 1, 48, 67), ranks, suits, cache_dir=cache
    )
    assert weights_digest(retrained) == weights_digest(trained)
    monkeypatch.setattr(corner_training, "_train", no_training)
    monkeypatch.setattr(corner_training, "_CACHE", {})
    corner_training.train_index_model(flats, (0, 1, 48, 67), ranks, suits, cache_dir=cache)

    monkeypatch.setattr(corner_training, "_train", train)
    corner_training.train_index_model(flats, (0, 2, 48, 67), ranks, suits, cache_dir=cache)
    assert len(list(cache.iterdir())) == 2
    # Other training code (a changed renderer or network) never loads the old file.
    monkeypatch.setattr(corner_training, "_code_digest", lambda: "other code")
    corner_training.train_index_model(flats, (0, 1, 48, 67), ranks, suits, cache_dir=cache)
    assert len(list(cache.iterdir())) == 3
