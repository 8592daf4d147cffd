"""The dense index-corner detector's codec, graph, crop and model (`dense_corners`).

What the recognizer reads rests on these: the maps the network is taught (`targets`) decode
back to the drawn corners (`corners`), so a perfect network would find every corner where it
is, turned and sized as drawn; the ONNX graph onnxruntime runs convolves as the training did
(strides, dilations, padding), so the weights run as they were fitted; the network run round
the open regions only finds there what the whole frame's finds; and the model that ships is
the one its digest names.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.camera.dense_corner_training import LAYERS, WIDTHS, Truth, targets, to_onnx
from drivers.camera.dense_corners import (
    MODEL_FILE,
    MODEL_SHA256,
    SCALE,
    STRIDE,
    DenseCorners,
    corners,
    downscaled,
    load_dense,
    to_cells,
)
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.onnx_dense_graph import ConvLayer, fully_conv_onnx

GRID = (68, 120)  # a 1080p frame's cells


def _perfect_maps(truth: Truth) -> np.ndarray:
    """What a network that learned `targets` exactly would output."""
    heat, _, reg, _ = targets(truth, GRID)
    logit = np.where(heat >= 1.0, 10.0, -10.0)[None]
    return np.concatenate([logit, reg]).astype(np.float32)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            # A coarse slot of 10 cells keeps corners 3 cells apart at least (within 2 of
            # each other two corners are one peak to the decoder's 3 x 3 maximum).
            st.integers(1, 10), st.integers(1, 5),
            st.floats(0.15, 0.85), st.floats(0.15, 0.85),
            st.floats(-np.pi, np.pi - 1e-6), st.floats(120.0, 400.0),
        ),
        min_size=1, max_size=5, unique_by=lambda c: (c[0], c[1]),
    )
)  # fmt: skip
def test_taught_maps_decode_to_the_drawn_corners(
    drawn: list[tuple[int, int, float, float, float, float]],
) -> None:
    cell = SCALE * STRIDE
    corner = np.array(
        [[(sx + fx) * 10 * cell, (sy + fy) * 10 * cell] for sx, sy, fx, fy, *_ in drawn]
    )
    turn = np.array([d[4] for d in drawn])
    height = np.array([d[5] for d in drawn])
    n = len(drawn)
    truth = Truth(corner, turn, height, np.ones(n), np.zeros(n, bool))
    found = corners(_perfect_maps(truth), 0.5)
    assert len(found) == n
    for c, t, h in zip(corner, turn, height, strict=True):
        quad = min((q for _, q in found), key=lambda q: float(np.linalg.norm(q[0] - c)))
        assert np.linalg.norm(quad[0] - c) < 1e-3
        side = quad[1] - quad[0]
        off = (np.arctan2(side[1], side[0]) - t + np.pi) % (2 * np.pi) - np.pi
        assert abs(off) < 1e-5
        assert abs(np.linalg.norm(quad[3] - quad[0]) - h) < 1e-3
        # The long side goes clockwise after the short one, as on a card's index corner.
        long_ = quad[3] - quad[0]
        assert side[0] * long_[1] - side[1] * long_[0] > 0


def test_a_partly_covered_corner_is_neither_taught_nor_counted_as_felt() -> None:
    corner = np.array([[800.0, 400.0], [300.0, 600.0]])
    truth = Truth(corner, np.zeros(2), np.full(2, 200.0), np.array([0.7, 0.2]), np.zeros(2, bool))
    heat, weight, _, reg_w = targets(truth, GRID)
    assert not heat.any() and not reg_w.any()
    i, j = np.round(to_cells(corner[0])[::-1]).astype(int)
    assert weight[i, j] == 0.0
    # A corner nearly all covered is felt to the network: the card over it shows there.
    i, j = np.round(to_cells(corner[1])[::-1]).astype(int)
    assert weight[i, j] == 1.0


def _reference(x: np.ndarray, w: np.ndarray, b: np.ndarray, layer: ConvLayer) -> np.ndarray:
    """A plain cross-correlation with the layer's stride, dilation and 'same' padding."""
    k = w.shape[2]
    pad = layer.dilation * (k // 2)
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad)))
    h = (x.shape[1] + 2 * pad - layer.dilation * (k - 1) - 1) // layer.stride + 1
    wd = (x.shape[2] + 2 * pad - layer.dilation * (k - 1) - 1) // layer.stride + 1
    out = np.zeros((w.shape[0], h, wd))
    for i in range(h):
        for j in range(wd):
            y0, x0 = i * layer.stride, j * layer.stride
            patch = xp[:, y0 : y0 + layer.dilation * (k - 1) + 1 : layer.dilation,
                       x0 : x0 + layer.dilation * (k - 1) + 1 : layer.dilation]  # fmt: skip
            out[:, i, j] = np.tensordot(w, patch, axes=([1, 2, 3], [0, 1, 2])) + b
    return np.maximum(out, 0.0) if layer.relu else out


def test_the_dense_graph_convolves_with_its_strides_and_dilations() -> None:
    rng = np.random.default_rng(3)
    layers = (ConvLayer("a", stride=2), ConvLayer("b", dilation=2), ConvLayer("h", relu=False))
    shapes = {"a": (4, 1, 3, 3), "b": (5, 4, 3, 3), "h": (3, 5, 1, 1)}
    params = {}
    for name, shape in shapes.items():
        params[f"{name}w"] = rng.normal(size=shape).astype(np.float32)
        params[f"{name}b"] = rng.normal(size=shape[0]).astype(np.float32)
    model = fully_conv_onnx(params, layers, graph="t", input_name="frame", output="maps")
    x = rng.normal(size=(1, 1, 13, 18)).astype(np.float32)
    (got,) = ort.InferenceSession(model).run(None, {"frame": x})
    want = x[0].astype(np.float64)
    for layer in layers:
        want = _reference(want, params[f"{layer.name}w"], params[f"{layer.name}b"], layer)
    assert got.shape == (1, 3, 7, 9)
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-4)


def _random_detector(seed: int) -> DenseCorners:
    """The detector's layers with random weights: any weights must crop alike."""
    rng = np.random.default_rng(seed)
    params: dict[str, np.ndarray] = {}
    before = 1
    for layer in LAYERS:
        k = 1 if layer.name == "h" else 3
        shape = (WIDTHS[layer.name], before, k, k)
        params[f"{layer.name}w"] = (rng.normal(size=shape) / np.sqrt(before * k * k)).astype(
            np.float32
        )
        params[f"{layer.name}b"] = rng.normal(0.0, 0.1, size=shape[0]).astype(np.float32)
        before = shape[0]
    return DenseCorners(to_onnx(params))


@settings(max_examples=20, deadline=None)
@given(
    st.integers(0, 3),
    st.integers(0, 639), st.integers(0, 479), st.integers(1, 400), st.integers(1, 300),
)  # fmt: skip
def test_a_crop_round_a_box_finds_the_corners_the_whole_frame_finds_there(
    seed: int, x: int, y: int, w: int, h: int
) -> None:
    # The recognizer runs the network only round the open bright regions: a corner there must
    # come out as the whole frame's network finds it, or cropping would change what is read.
    rng = np.random.default_rng(seed)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (480, 640), dtype=np.uint8), (9, 9), 3)
    detector = _random_detector(seed)
    box = (x, y, x + w, y + h)

    def in_box(quad: np.ndarray) -> bool:
        return bool(x <= quad[0][0] <= x + w and y <= quad[0][1] <= y + h)

    whole = [(o, q) for o, q in corners(detector.maps(downscaled(gray)), 0.2) if in_box(q)]
    cropped = [(o, q) for o, q in detector.corners_within(gray, box, 0.2) if in_box(q)]
    assert len(cropped) == len(whole)
    for (o1, q1), (o2, q2) in zip(sorted(whole, key=_key), sorted(cropped, key=_key), strict=True):
        assert abs(o1 - o2) < 1e-4
        np.testing.assert_allclose(q1, q2, atol=1e-2)


def _key(found: tuple[float, np.ndarray]) -> tuple[float, float]:
    return float(found[1][0][0]), float(found[1][0][1])


def test_the_shipped_model_is_the_one_its_digest_names_and_another_is_refused(
    tmp_path: Path,
) -> None:
    # The recognizer feeds the finder what this network finds: a changed file must stop the
    # start, never read with other weights.
    shipped = resources.files("drivers.camera").joinpath("models", MODEL_FILE).read_bytes()
    assert hashlib.sha256(shipped).hexdigest() == MODEL_SHA256
    assert load_dense() is not None
    bad = tmp_path / MODEL_FILE
    bad.write_bytes(shipped[:-1])
    with pytest.raises(RecognizerConfigurationError, match="digest"):
        load_dense(str(bad))
    with pytest.raises(RecognizerConfigurationError, match="dense index-corner model"):
        load_dense(str(tmp_path / "missing.onnx"))
