"""A small learned index reader: corner-window features and a two-headed numpy network.

The network reads an index window (cut exactly as the recognizer cuts it) into a rank (13 ranks
or "none") and a suit (4 suits or "none"). It is trained at deck calibration from the deck's own
references rendered as a camera sees them (`calibration.corner_render`), so it learns how this
deck's index looks small, blurred, noisy and compressed, where fixed templates stop matching.
Inference is numpy only: one hidden layer, a few hundred thousand multiply-adds per corner.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.glyphs import MIN_CONTRAST, Image

MODEL_VERSION = 1
"""The network layout and features this code reads; a model of another version is ignored."""
DENSITY_SIZE = (18, 36)
"""Width and height the index's ink density is resampled to (the shape of rank and suit)."""
RED_SIZE = (6, 12)
"""Width and height of the window's redness map: colour needs less detail than shape."""
HIDDEN = 96
INK_LEVEL = 0.4
"""Density above which a pixel is ink when finding the index's parts."""
FEATURES = DENSITY_SIZE[0] * DENSITY_SIZE[1] + RED_SIZE[0] * RED_SIZE[1] + 4
NONE = "-"
"""The class of a window that holds no index of this deck (blank, felt, a pip, a back)."""

Array = npt.NDArray[np.float32]


def window_features(window: Image) -> Array | None:
    """Features of one index window (BGR): the index's ink density and colour, cut to its box.

    The ink is the window's dark connected parts that do not touch its edge (touching ink is the
    card's edge, felt, a pip or a picture, as in `calibration.glyphs.find_index`); their joint
    box is resampled to a fixed size, so where the outline put the index in the window matters
    no more. Colour is measured after white-balancing on the paper. Returns None when the window
    holds too little contrast or no such ink (blank paper, felt, a washed-out corner).
    """
    grey = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY)
    n = grey.size - 1
    low, high = round(0.02 * n), round(0.9 * n)
    # Grey levels are whole numbers: ranked as bytes, before any float work on a window that
    # most often (blank paper, felt) turns out to hold no ink at all.
    part = np.partition(grey.ravel(), (low, high))
    ink, paper = float(part[low]), float(part[high])
    contrast = paper - ink
    if contrast < MIN_CONTRAST:
        return None
    gray = grey.astype(np.float32)
    density = np.clip((paper - gray) / contrast, 0.0, 1.0)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        (density > INK_LEVEL).astype(np.uint8), connectivity=8
    )
    h, w = gray.shape
    keep = [
        i
        for i in range(1, count)
        if stats[i, 4] >= max(4, 0.002 * h * w)
        and stats[i, 0] > 0
        and stats[i, 1] > 0
        and stats[i, 0] + stats[i, 2] < w
        and stats[i, 1] + stats[i, 3] < h
    ]
    if not keep:
        return None
    x0 = int(min(stats[i, 0] for i in keep))
    y0 = int(min(stats[i, 1] for i in keep))
    x1 = int(max(stats[i, 0] + stats[i, 2] for i in keep))
    y1 = int(max(stats[i, 1] + stats[i, 3] for i in keep))
    # The blurred rim of each kept part belongs to it; other ink in the box does not.
    kept = np.zeros(count, np.uint8)
    kept[keep] = 1
    own = cv2.dilate(kept[labels], np.ones((3, 3), np.uint8)) > 0
    pad = max(1, round(0.08 * (y1 - y0)))
    x0, y0, x1, y1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
    ink_box = (density * own)[y0:y1, x0:x1]
    # White-balance on the paper first: a colour cast scales paper and ink alike, so after
    # it only printed colour remains (black ink under a green cast is not "red").
    paper_px = (gray >= paper - 10).astype(np.uint8)
    paper_bgr = np.array(cv2.mean(window, mask=paper_px)[:3], np.float32)
    bgr = window[y0:y1, x0:x1].astype(np.float32) * (paper / np.maximum(paper_bgr, 1.0))
    redness = bgr[..., 2] - np.maximum(bgr[..., 0], bgr[..., 1])
    red = np.clip(redness / contrast, -0.5, 1.5) * ink_box
    d = cv2.resize(ink_box, DENSITY_SIZE, interpolation=cv2.INTER_AREA)
    r = cv2.resize(red, RED_SIZE, interpolation=cv2.INTER_AREA)
    shape = np.array([(x1 - x0) / w, (y1 - y0) / h, (x0 + x1) / (2 * w), (y0 + y1) / (2 * h)])
    out: Array = np.concatenate([d.ravel() - 0.3, r.ravel(), shape - 0.5]).astype(np.float32)
    return out


@dataclass(frozen=True, slots=True)
class IndexGuess:
    """The network's answer for one window: rank and suit (or `NONE`) and their probabilities."""

    rank: str
    suit: str
    rank_p: float
    suit_p: float


@dataclass(frozen=True)
class IndexModel:
    """A trained network: `ranks` and `suits` name the head outputs (each ends with `NONE`).

    `w1`/`b1` map features to the hidden layer, `wr`/`br` and `ws`/`bs` the hidden layer to the
    rank and suit heads. Build one with `calibration.corner_training.train_index_model`.
    """

    ranks: tuple[str, ...]
    suits: tuple[str, ...]
    w1: Array
    b1: Array
    wr: Array
    br: Array
    ws: Array
    bs: Array

    def probabilities(self, features: Array) -> tuple[Array, Array]:
        """Rank and suit class probabilities for a batch of feature rows (or one row)."""
        x = np.atleast_2d(features)
        hidden = np.maximum(0.0, x @ self.w1 + self.b1)
        return softmax(hidden @ self.wr + self.br), softmax(hidden @ self.ws + self.bs)

    def guess(self, window: Image) -> IndexGuess | None:
        """The most likely rank and suit of `window`; None when it holds no ink to read."""
        features = window_features(window)
        if features is None:
            return None
        pr, ps = self.probabilities(features)
        i, j = int(pr[0].argmax()), int(ps[0].argmax())
        return IndexGuess(self.ranks[i], self.suits[j], float(pr[0, i]), float(ps[0, j]))

    def arrays(self) -> dict[str, Any]:
        """The weights by name, as `numpy.savez` stores them."""
        return {
            "w1": self.w1,
            "b1": self.b1,
            "wr": self.wr,
            "br": self.br,
            "ws": self.ws,
            "bs": self.bs,
        }

    @classmethod
    def from_arrays(
        cls, ranks: tuple[str, ...], suits: tuple[str, ...], arrays: dict[str, Any]
    ) -> IndexModel:
        """Rebuild a model from `arrays()`; raises ValueError when a shape does not fit."""
        w = {k: np.asarray(arrays[k], np.float32) for k in ("w1", "b1", "wr", "br", "ws", "bs")}
        n_in = FEATURES
        hidden = w["w1"].shape[1] if w["w1"].ndim == 2 else -1
        expected = {
            "w1": (n_in, hidden),
            "b1": (hidden,),
            "wr": (hidden, len(ranks)),
            "br": (len(ranks),),
            "ws": (hidden, len(suits)),
            "bs": (len(suits),),
        }
        for k, shape in expected.items():
            if w[k].shape != shape:
                raise ValueError(f"index model weight {k} has shape {w[k].shape}, not {shape}")
        return cls(ranks, suits, w["w1"], w["b1"], w["wr"], w["br"], w["ws"], w["bs"])


def weights_digest(model: IndexModel) -> str:
    """SHA-256 (hex) of the model's class names and weights, to check a stored model."""
    digest = hashlib.sha256(repr((model.ranks, model.suits)).encode())
    for name, array in sorted(model.arrays().items()):
        a = np.ascontiguousarray(array, np.float32)
        digest.update(name.encode() + str(a.shape).encode() + a.tobytes())
    return digest.hexdigest()


def softmax(z: Array) -> Array:
    """Row-wise softmax of logits `z` (each row's probabilities sum to 1)."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    out: Array = e / e.sum(axis=1, keepdims=True)
    return out
