"""The learned index-corner detector: is a hypothesis a face-up card's index corner, in place.

Deck-agnostic: a small convolutional network, trained offline on scenes of many generated
*tuning* designs (never the test designs; `index_corner_training` rebuilds it), looks at the grey
patch around a corner hypothesis (`corners.corner_quads`), warped to the hypothesis' own card
frame, and scores whether an index corner of a face-up card sits exactly there, the hypothesis'
short side along its top. It runs only on the hypotheses the bright regions give (tens per
frame, one batch), with onnxruntime on one thread. The model ships as package data; its SHA-256
is checked at load and a mismatch is a `RecognizerConfigurationError`, never a silent model.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.onnx_run import checked_model, one_core_session, run_rows

Image = npt.NDArray[Any]
Quad = npt.NDArray[Any]

PATCH_SIZE = (32, 40)
"""Width and height (pixels) of the patch the network sees."""
PATCH_SPAN = ((-0.08, 0.5), (-0.06, 0.42))
"""The patch's extent in the hypothesis' card frame: (u0, u1) of the card's width, (v0, v1) of
its height. It holds the whole index window (a jumbo index reaches 45% down the card, which the
window's upper part shows) and a margin of what lies beyond the corner."""
MODEL_FILE = "index_corners.onnx"
MODEL_SHA256 = "c1516c4a37f793d933868ace87bd7540774a0b496d89a7a0e9adf533b5f21862"
"""The digest of the shipped model (`python -m drivers.camera.index_corner_training` prints it)."""
THRESHOLD = 0.44
"""A hypothesis is an index corner from this score: the least that keeps 97% of the index corners
of the 8 held-out tuning designs (0.439 when the shipped model was built; 2.9% of the other
hypotheses there pass it too, and the reader's own guards are left to refuse them)."""


_CARD = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
_TO_CARD = np.array(
    [
        [(PATCH_SPAN[0][1] - PATCH_SPAN[0][0]) / (PATCH_SIZE[0] - 1), 0, PATCH_SPAN[0][0]],
        [0, (PATCH_SPAN[1][1] - PATCH_SPAN[1][0]) / (PATCH_SIZE[1] - 1), PATCH_SPAN[1][0]],
        [0, 0, 1],
    ],
    np.float64,
)
# Patch pixels to the card frame: the same for every hypothesis.


def patch_transform(quad: Quad) -> npt.NDArray[np.float64]:
    """The 3x3 map from patch pixels to image pixels for a hypothesis `quad` (corner first)."""
    to_image = cv2.getPerspectiveTransform(_CARD, np.asarray(quad, np.float32))
    out: npt.NDArray[np.float64] = to_image @ _TO_CARD
    return out


def patch_transforms(quads: list[Quad]) -> npt.NDArray[np.float64]:
    """`patch_transform` of each of `quads` (N x 3 x 3), equal to the bit, in one product.

    A frame's ~100 hypotheses cost 0.7 ms one at a time, 0.3 ms so.
    """
    to_image = np.stack(
        [cv2.getPerspectiveTransform(_CARD, np.asarray(q, np.float32)) for q in quads]
    )
    out: npt.NDArray[np.float64] = to_image @ _TO_CARD
    return out


def patches(gray: Image, quads: list[Quad]) -> npt.NDArray[np.float32]:
    """The network's input for each hypothesis: (N, 1, H, W), each patch zero mean, unit spread.

    All patches are sampled by one `cv2.remap` of `gray` (`patch_maps`), equal to the bit to
    warping each alone with `cv2.warpPerspective` (bilinear, border replicated): one call for
    a frame's ~90 hypotheses instead of one each, and the normalising is one numpy step on all.
    Where this OpenCV's warp computes otherwise (`remap_is_warp` False), each is warped alone.
    """
    w, h = PATCH_SIZE
    if not quads:
        return np.empty((0, 1, h, w), np.float32)
    transforms = patch_transforms(quads)
    flat = _sampled(gray, transforms) if remap_is_warp() else _warped(gray, transforms)
    p = flat.reshape(len(quads), h * w).astype(np.float32)
    # Lighting and paper tint vary by table and deck: only the patch's own contrast counts.
    out: npt.NDArray[np.float32] = (p - p.mean(axis=1, keepdims=True)) / (
        p.std(axis=1, keepdims=True) + 8.0
    )
    return out.reshape(len(quads), 1, h, w)


def _sampled(gray: Image, transforms: npt.NDArray[np.float64]) -> Image:
    """The patches of `transforms` (N x 3 x 3) sampled by `cv2.remap`, stacked (N*H x W)."""
    w, h = PATCH_SIZE
    xs, ys = patch_maps(transforms)
    # OpenCV's remap takes fewer than 2^15 rows: patches go in chunks of that many at most.
    chunk = (2**15 - 1) // h
    out: Image = np.concatenate(
        [
            cv2.remap(
                gray,
                xs[k : k + chunk].reshape(-1, w),
                ys[k : k + chunk].reshape(-1, w),
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
            for k in range(0, len(transforms), chunk)
        ]
    )
    return out


def _warped(gray: Image, transforms: npt.NDArray[np.float64]) -> Image:
    """The patches of `transforms` (N x 3 x 3), each warped alone, stacked (N*H x W)."""
    w, h = PATCH_SIZE
    out: Image = np.concatenate(
        [
            cv2.warpPerspective(
                gray,
                m,
                (w, h),
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE,
            )
            for m in transforms
        ]
    )
    return out


@cache
def remap_is_warp() -> bool:
    """Whether `patch_maps` reproduces this OpenCV's `cv2.warpPerspective` (checked once).

    The maps follow OpenCV 5's warp kernels, which a build without fused multiply-add, or an
    OpenCV before 4.11 (fixed-point warps), does not compute; the detector's inputs must be
    the ones it was trained on, so such a build warps each patch alone.
    """
    rng = np.random.default_rng(2026)
    gray = cv2.GaussianBlur(rng.integers(0, 256, (240, 320), dtype=np.uint8), (5, 5), 1.5)
    quads = random_hypotheses(rng, 24, (320, 240), (60, 300), reach=20)
    stacked = np.stack([patch_transform(quad) for quad in quads])
    return bool(np.array_equal(_sampled(gray, stacked), _warped(gray, stacked)))


def random_hypotheses(
    rng: np.random.Generator,
    count: int,
    frame: tuple[int, int],
    heights: tuple[float, float],
    *,
    reach: float,
) -> list[Quad]:
    """`count` corner hypotheses of any turn and a little tilt, `heights` px tall.

    Their corner lies anywhere within `reach` px of a `frame` (width, height): what
    `remap_is_warp` and the tests check the patch maps on.
    """
    width, height_px = frame
    quads: list[Quad] = []
    for _ in range(count):
        corner = rng.uniform([-reach, -reach], [width + reach, height_px + reach])
        turn = rng.uniform(0, 2 * np.pi)
        height = rng.uniform(*heights)
        along = np.array([np.cos(turn), np.sin(turn)])
        down = np.array([-along[1], along[0]])
        quad = np.array(
            [corner, corner + 0.7 * height * along,
             corner + 0.7 * height * along + height * down, corner + height * down]
        )  # fmt: skip
        quads.append(quad + rng.normal(0, 0.02 * height, (4, 2)))
    return quads


_PATCH_X = np.arange(PATCH_SIZE[0], dtype=np.float64)[None, None, :]
_PATCH_Y = np.arange(PATCH_SIZE[1], dtype=np.float64)[None, :, None]


def patch_maps(
    transforms: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """Image x and y (N, H, W, float32) of each patch pixel for N 3x3 `patch_transform`s.

    Computed as OpenCV's warp kernels compute them (`cv2.warpPerspective`, OpenCV 4.11 and
    later), so that `cv2.remap` on them samples exactly what the warp samples: the matrix in
    float32; per row, `y * m + m'` rounded to float32 at each step; per pixel, a fused
    multiply-add `m * x + row` in float32 (made in float64, which holds it exactly unless the
    product is vanishingly small beside the row term, then rounded once), then x and y divided
    by w in float32. A patch's 32 columns are all computed by the warp's vector code (OpenCV's
    scalar code, for the columns left over past the last full vector, rounds otherwise).
    `remap_is_warp` checks it once per process; `tests/test_camera_inputs.py` on random
    hypotheses.
    """
    m = transforms.reshape(-1, 9).astype(np.float32).astype(np.float64)

    def row(a: int, b: int) -> npt.NDArray[np.float64]:
        step = (_PATCH_Y * m[:, a, None, None]).astype(np.float32).astype(np.float64)
        out: npt.NDArray[np.float64] = (
            (step + m[:, b, None, None]).astype(np.float32).astype(np.float64)
        )
        return out

    def fused(a: int, b: int) -> npt.NDArray[np.float32]:
        out: npt.NDArray[np.float32] = (m[:, a, None, None] * _PATCH_X + row(b, b + 1)).astype(
            np.float32
        )
        return out

    w = fused(6, 7)
    return fused(0, 1) / w, fused(3, 4) / w


class IndexCornerDetector:
    """Scores corner hypotheses with the shipped network (see the module docstring).

    `path` may name another model file (the training script's output); its digest must then be
    `sha256`. Raises `RecognizerConfigurationError` when the file is missing or its digest differs.
    """

    def __init__(self, path: str | None = None, sha256: str = MODEL_SHA256) -> None:
        data = checked_model(
            MODEL_FILE, path, sha256, "index-corner model", "drivers.camera.index_corner_training"
        )
        self._session = one_core_session(data)

    def scores(self, gray: Image, quads: list[Quad]) -> npt.NDArray[np.float32]:
        """The index-corner probability of each hypothesis (empty in, empty out)."""
        if not quads:
            return np.zeros(0, np.float32)
        (logits,) = run_rows(self._session, None, "patch", patches(gray, quads))
        out: npt.NDArray[np.float32] = (1.0 / (1.0 + np.exp(-logits[:, 0]))).astype(np.float32)
        return out


@cache
def shipped_detector() -> IndexCornerDetector:
    """The shipped detector, loaded once per process."""
    return IndexCornerDetector()
