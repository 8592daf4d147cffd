"""The networks' inputs made for many windows at once are the same, to the bit, as one by one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera import index_corners
from drivers.camera.classify import window_tensors
from drivers.camera.index_corners import PATCH_SIZE, patch_transform, patch_transforms, patches
from drivers.camera.index_model import window_tensor


@st.composite
def _windows(draw: st.DrawFn) -> list[np.ndarray]:
    """Windows of one or two sizes: paper with an ink blob, flat felt, or pure noise."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    sizes = [(int(rng.integers(8, 90)), int(rng.integers(8, 70))) for _ in range(2)]
    out = []
    for _ in range(draw(st.integers(1, 12))):
        h, w = sizes[int(rng.integers(2))]
        kind = draw(st.sampled_from(["index", "flat", "noise"]))
        if kind == "noise":
            window = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        else:
            window = np.full((h, w, 3), rng.integers(60, 250, 3), np.uint8)
            window = window + rng.integers(0, 6, (h, w, 3)).astype(np.uint8)
            if kind == "index":
                y, x = h // 4, w // 4
                window[y : y + h // 3, x : x + w // 3] = rng.integers(0, 90, 3)
        out.append(window)
    return out


@given(_windows())
def test_window_tensors_equal_window_tensor_to_the_bit(windows: list[np.ndarray]) -> None:
    together = window_tensors(windows)
    for window, made in zip(windows, together, strict=True):
        alone = window_tensor(window)
        assert (made is None) == (alone is None)
        if alone is not None:
            assert made is not None
            assert made.dtype == alone.dtype and made.shape == alone.shape
            assert np.array_equal(made, alone)


def _patch_alone(gray: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """One index-corner patch warped on its own, normalised as the detector was trained."""
    w, h = PATCH_SIZE
    flat = cv2.warpPerspective(
        gray,
        patch_transform(quad),
        (w, h),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)
    out: np.ndarray = (flat - flat.mean()) / (flat.std() + 8.0)
    return out


@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.booleans())
def test_patches_equal_one_warp_each_to_the_bit(seed: int, count: int, remap: bool) -> None:
    """Corner hypotheses of any size, turn and tilt, some reaching off the frame's edge; made
    by one remap where this OpenCV's warp allows it, and by the warp itself otherwise."""
    if remap and not index_corners.remap_is_warp():
        return
    rng = np.random.default_rng(seed)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (300, 400), dtype=np.uint8), (5, 5), 1.5)
    quads = index_corners.random_hypotheses(rng, count, (400, 300), (60, 400), reach=40)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_corners, "remap_is_warp", lambda: remap)
        made = patches(gray, quads)
    assert made.shape == (count, 1, PATCH_SIZE[1], PATCH_SIZE[0]) and made.dtype == np.float32
    for quad, patch in zip(quads, made, strict=True):
        assert np.array_equal(patch[0], _patch_alone(gray, quad))


@given(st.integers(0, 2**32 - 1), st.integers(1, 60))
def test_patch_transforms_equal_patch_transform_to_the_bit(seed: int, count: int) -> None:
    """The maps of many hypotheses made in one product are each hypothesis' own map."""
    rng = np.random.default_rng(seed)
    quads = index_corners.random_hypotheses(rng, count, (1920, 1080), (60, 400), reach=40)
    made = patch_transforms(quads)
    assert made.shape == (count, 3, 3)
    for quad, transform in zip(quads, made, strict=True):
        assert np.array_equal(transform, patch_transform(quad))
