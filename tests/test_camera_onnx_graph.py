"""The one ONNX writer of the camera's networks (`drivers.camera.onnx_graph`).

Both shipped networks were written before their writers were merged into one: the weights of
each, written again by it, must give the very same outputs, or a retrained model would run a
different graph from the one its weights were fitted to.
"""

from __future__ import annotations

import hashlib
from importlib import resources

import numpy as np
import onnxruntime as ort
import pytest
from onnx.checker import ValidationError

from calibration import corner_net, universal_reader
from drivers.camera import index_corner_training
from drivers.camera.index_corners import MODEL_FILE, MODEL_SHA256, PATCH_SIZE
from drivers.camera.index_model import CHANNELS, INPUT_SIZE
from drivers.camera.onnx_graph import Head, conv_net_onnx


def _outputs(model: bytes, name: str, x: np.ndarray) -> list[np.ndarray]:
    return list(ort.InferenceSession(model).run(None, {name: x}))


def test_the_universal_readers_weights_written_again_read_alike() -> None:
    shipped = universal_reader.MODEL_PATH.read_bytes()
    weights = universal_reader.onnx_weights(shipped)
    w, h = INPUT_SIZE
    x = np.random.default_rng(1).normal(size=(6, CHANNELS, h, w)).astype(np.float32)
    before = _outputs(shipped, "window", x)
    after = _outputs(corner_net.to_onnx(weights), "window", x)
    for old, new in zip(before, after, strict=True):
        np.testing.assert_array_equal(old, new)
    # Probabilities: each row of each head sums to one.
    assert np.allclose(after[0].sum(axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("seed", [4, 5])
def test_the_graph_a_reader_is_exported_as_computes_what_it_was_trained_as(seed: int) -> None:
    # Training runs the network channels-last with its pooling written as a reshape; the
    # exported graph is channels-first with MaxPool. A difference in layout or order would
    # give a deck a reader that reads other windows than the ones its weights were fitted to.
    # Fresh weights: every window gets its own answer (a trained reader calls noise "none").
    weights = corner_net._init(np.random.default_rng(seed), 14, 5)
    w, h = INPUT_SIZE
    x = np.random.default_rng(seed).normal(0, 1, size=(8, CHANNELS, h, w)).astype(np.float32)
    trained = corner_net.probabilities(weights, x)
    exported = _outputs(corner_net.to_onnx(weights), "window", x)
    for jax_probs, onnx_probs in zip(trained, exported, strict=True):
        np.testing.assert_allclose(jax_probs, onnx_probs, atol=1e-5)
        # Not a trivially equal pair: the windows get different answers.
        assert np.ptp(onnx_probs, axis=0).max() > 1e-3


def test_a_reader_of_another_size_trains_exports_and_is_fine_tuned_at_its_size() -> None:
    # The network's size is a value (`NetShape`): a wider or deeper universal reader must train,
    # export a graph that computes what JAX trained, and hand its size to every deck's reader
    # fine-tuned from it, or a size experiment would measure a network other than the one run.
    shape = corner_net.NetShape(widths=(8, 16, 24, 32), hidden=40)
    w, h = INPUT_SIZE
    rng = np.random.default_rng(6)
    x = rng.normal(0, 1, size=(64, CHANNELS, h, w)).astype(np.float32)
    ry, sy = rng.integers(0, 14, 64), rng.integers(0, 5, 64)
    recipe = corner_net.Recipe(epochs=1, batch=32)
    weights = corner_net.train(x, ry, sy, 14, 5, seed=6, recipe=recipe, shape=shape)
    assert corner_net.NetShape.of(weights) == shape
    assert weights["c3w"].shape == (32, 24, 3, 3)
    trained = corner_net.probabilities(weights, x[:8])
    exported = _outputs(corner_net.to_onnx(weights), "window", x[:8])
    for jax_probs, onnx_probs in zip(trained, exported, strict=True):
        np.testing.assert_allclose(jax_probs, onnx_probs, atol=1e-5)
        assert np.ptp(onnx_probs, axis=0).max() > 1e-3
    tuned = corner_net.train(x, ry, sy, 14, 5, seed=7, recipe=recipe, init=weights)
    assert corner_net.NetShape.of(tuned) == shape
    with pytest.raises(ValueError, match="starting weights"):
        corner_net.train(x, ry, sy, 14, 5, seed=7, init=weights, shape=corner_net.NetShape())


def test_the_index_corner_detectors_weights_written_again_score_alike() -> None:
    shipped = resources.files("drivers.camera").joinpath("models", MODEL_FILE).read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == MODEL_SHA256
    weights = universal_reader.onnx_weights(shipped)
    w, h = PATCH_SIZE
    x = np.random.default_rng(2).normal(size=(6, 1, h, w)).astype(np.float32)
    before = _outputs(shipped, "patch", x)
    after = _outputs(index_corner_training.to_onnx(weights), "patch", x)
    np.testing.assert_array_equal(before[0], after[0])


def test_a_missing_head_weight_is_refused() -> None:
    weights = universal_reader.onnx_weights(universal_reader.MODEL_PATH.read_bytes())
    del weights["sb"]
    w, h = INPUT_SIZE
    with pytest.raises((KeyError, ValidationError)):
        conv_net_onnx(
            weights,
            graph="broken",
            input_name="window",
            input_shape=(CHANNELS, h, w),
            heads=(Head("rank", "r", softmax=True), Head("suit", "s", softmax=True)),
        )
