"""The network's inputs made for many windows at once are the same, to the bit, as one by one."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.classify import window_tensors
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
