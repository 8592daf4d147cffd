"""The dense index-corner detector's runtime: a frame's index corners, looked for everywhere.

Today's detector (`index_corners`) only scores the corner hypotheses a bright region's rim
makes (`corners.corner_quads`): an index corner the rim does not bend at is never looked at.
This one looks everywhere: a small fully convolutional network over the grey frame downscaled
`SCALE` times gives, per cell of a grid `STRIDE` input pixels apart (CenterNet-style), the odds
that a face-up card's index corner lies in the cell, where in it, which way the card's short
side goes from it (cos and sin of its turn) and the card's height (log). `corners` decodes the
maps to corner outlines (the corner first, its short side next, as `corners.corner_quads`).
Deck-agnostic; trained offline on tuning designs only (`dense_corner_training`, seeded) and run
with onnxruntime on one thread. The recognizer runs it round the bright regions no read card
explains and feeds its corners to the finder (`finder.dense_found_corners`). The model ships
as package data; its SHA-256 is checked at load and a mismatch is a
`RecognizerConfigurationError`, never a silent model (`docs/camera-history.md`, "The dense
index-corner detector fed to the finder"); `bench/dense_corners.py` measures a trained model.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.corners import CARD_ASPECT, outline_at_corner
from drivers.camera.onnx_run import checked_model, one_core_session

Array = npt.NDArray[Any]
Quad = npt.NDArray[Any]

SCALE = 4
"""Frame pixels per input pixel: a 1080p frame is read at 480 x 270."""
STRIDE = 4
"""Input pixels per output cell: a cell is `SCALE * STRIDE` = 16 frame pixels."""
HEIGHT_UNIT = 100.0
"""The height channel is log(card height / this many frame pixels)."""
MODEL_FILE = "dense_corners.onnx"
MODEL_SHA256 = "fe1a2d6a6d93243a9fa89de13b4297eceae5b76e9517a343d6918a86ad647d11"
"""The digest of the shipped model (`python -m drivers.camera.dense_corner_training` prints it)."""
CELL = SCALE * STRIDE
"""Frame pixels per output cell."""
REACH = 8 * CELL
"""Frame pixels round a cell that its output depends on, with its neighbours' (a peak is
compared with them): the layers see 47 input pixels (188 frame pixels) across, a cell's
neighbours 16 pixels more each way. A crop this far past what is looked for decodes as the
whole frame does there."""


def downscaled(gray: Array) -> Array:
    """The grey frame averaged down `SCALE` times, padded (edge) to a multiple of `STRIDE`."""
    h, w = gray.shape[0] // SCALE, gray.shape[1] // SCALE
    small = cv2.resize(gray[: h * SCALE, : w * SCALE], (w, h), interpolation=cv2.INTER_AREA)
    ph, pw = -h % STRIDE, -w % STRIDE
    out: Array = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return out


def net_input(small: Array) -> npt.NDArray[np.float32]:
    """The network's input for a downscaled frame (`downscaled`): (1, 1, h, w), about -2..2."""
    out: npt.NDArray[np.float32] = ((small.astype(np.float32) - 128.0) / 64.0)[None, None]
    return out


def to_cells(points: Array) -> Array:
    """Frame pixels to grid cells (a cell's centre at integers).

    The two convolutions of stride 2 centre output i on input 4i, and input pixel x averages
    frame pixels 4x..4x+3.
    """
    out: Array = (np.asarray(points, np.float64) - (SCALE - 1) / 2) / (SCALE * STRIDE)
    return out


def from_cells(cells: Array) -> Array:
    """Grid cells to frame pixels (`to_cells` undone)."""
    out: Array = np.asarray(cells, np.float64) * (SCALE * STRIDE) + (SCALE - 1) / 2
    return out


def corner_quad(corner: Array, turn: float, height: float, *, aspect: float = CARD_ASPECT) -> Quad:
    """The card outline at an index corner: corner, short side along `turn`, long side after.

    `aspect` is the deck's height over width (`corners.deck_aspect`).
    """
    along = np.array([np.cos(turn), np.sin(turn)])
    return outline_at_corner(corner, along, np.array([-along[1], along[0]]), height, aspect=aspect)


def corners(maps: Array, threshold: float) -> list[tuple[float, Quad]]:
    """The network's output for one frame (6, h, w) decoded: (odds, outline) per peak cell.

    A peak is a cell at least as sure as its eight neighbours and at least `threshold` sure.
    """
    odds = 1.0 / (1.0 + np.exp(-maps[0]))
    peak = (odds >= threshold) & (odds >= cv2.dilate(odds, np.ones((3, 3), np.uint8)))
    out: list[tuple[float, Quad]] = []
    for i, j in zip(*np.nonzero(peak), strict=True):
        dx, dy, c, s, logh = maps[1:, i, j]
        corner = from_cells(np.array([j + dx, i + dy]))
        quad = corner_quad(corner, float(np.arctan2(s, c)), HEIGHT_UNIT * float(np.exp(logh)))
        out.append((float(odds[i, j]), quad))
    out.sort(key=lambda d: -d[0])
    return out


class DenseCorners:
    """A trained model's network (`dense_corner_training`'s output) run on one thread."""

    def __init__(self, data: bytes) -> None:
        self._session = one_core_session(data)

    def corners_within(
        self, gray: Array, box: tuple[int, int, int, int], threshold: float
    ) -> list[tuple[float, Quad]]:
        """`corners` of the grey frame's part round `box` (x0, y0, x1, y1 in frame pixels).

        Only the box and `REACH` round it are run, cut on the cell grid, so each corner in the
        box decodes as on the whole frame: where cards are already read, a frame need not pay
        the network (2.2 ms on the whole 1080p frame) there. Corners are in frame pixels.
        """
        h, w = gray.shape[:2]
        x0, y0 = (max(0, v - REACH) // CELL * CELL for v in box[:2])
        x1, y1 = min(w, box[2] + REACH), min(h, box[3] + REACH)
        found = corners(self.maps(downscaled(gray[y0:y1, x0:x1])), threshold)
        shift = np.array([x0, y0], np.float64)
        return [(odds, quad + shift) for odds, quad in found]

    def maps(self, small: Array) -> Array:
        """The output maps (6, h, w) for a downscaled frame (`downscaled`)."""
        (out,) = self._session.run(None, {"frame": net_input(small)})
        maps: Array = np.asarray(out)[0]
        return maps


def load_dense(path: str | None = None, sha256: str = MODEL_SHA256) -> DenseCorners:
    """The shipped model's network, or the model at `path`, whose digest must be `sha256`.

    Raises `RecognizerConfigurationError` when the file is missing or its digest differs.
    """
    data = checked_model(
        MODEL_FILE, path, sha256, "dense index-corner model", "drivers.camera.dense_corner_training"
    )
    return DenseCorners(data)


@cache
def shipped_dense() -> DenseCorners:
    """The shipped dense detector, loaded once per process."""
    return load_dense()
