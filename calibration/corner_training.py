"""Train the learned index reader from a deck's 52 flat reference cards, in a few seconds.

Each card's index window is rendered many times through a random camera
(`calibration.corner_render.camera_corner`); windows that hold no index of this deck (other parts
of a face, an index upside down, patterned backs, chip-like discs) teach the "none" class. A
one-hidden-layer network with a rank head and a suit head is fitted with Adam in numpy. Every
draw comes from one seeded generator, so the same references always give the same model; a
process-wide cache keyed by a hash of the references makes a second training of the same deck
free, and a cache directory on disk (the user's, from the command line) makes it free across
processes: the simulated table learns its deck at every `studio run` start, and a deck
calibrated again from the same images trains nothing.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import corner_render, glyphs, index_model
from calibration.corner_render import CameraLook, camera_corners
from calibration.glyphs import Image
from calibration.index_model import HIDDEN, NONE, Array, IndexModel, softmax, window_features

POSITIVES_PER_CARD = 40
CUTS = 2
NEGATIVES = 900
EPOCHS = 15
BATCH = 128
LEARNING_RATE = 5e-3
TRAINING_VERSION = 1
"""Bumped whenever rendering or training changes, so a cached model is never stale."""

_CACHE: dict[str, tuple[IndexModel, int]] = {}
_log = logging.getLogger(__name__)


def references_digest(flats: Mapping[str, Image], window: tuple[int, int, int, int]) -> str:
    """A SHA-256 of the flat references, the window and the training version (hex)."""
    digest = hashlib.sha256(f"{TRAINING_VERSION}:{window}".encode())
    for code in sorted(flats):
        image = np.ascontiguousarray(flats[code])
        digest.update(code.encode() + str(image.shape).encode() + image.tobytes())
    return digest.hexdigest()


def train_index_model(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    ranks: list[str],
    suits: list[str],
    *,
    seed: int = 0,
    cache_dir: Path | None = None,
) -> tuple[IndexModel, int]:
    """A model reading `window` (pixels of the flat cards), and its count of training windows.

    `flats` maps each card code ("AS") to its flattened upright card (BGR, all the same size).
    With `cache_dir`, a model trained before from the same references (and seed, classes,
    training version and training source code) is loaded from there instead of trained again,
    and a new one is stored there; a cached file that cannot be read is trained again and
    replaced, and a cache that cannot be written is logged and skipped (the model is as good;
    the next start retrains).
    """
    key = hashlib.sha256(
        f"{references_digest(flats, window)}:{seed}:{ranks}:{suits}:{_code_digest()}".encode()
    ).hexdigest()
    if key not in _CACHE:
        found = _load_cached(cache_dir, key, ranks, suits) if cache_dir is not None else None
        if found is None:
            found = _train(flats, window, ranks, suits, seed)
            if cache_dir is not None:
                _store(cache_dir, key, *found)
        _CACHE.clear()  # one deck at a time is what a process uses; keep memory flat
        _CACHE[key] = found
    return _CACHE[key]


@functools.cache
def _code_digest() -> str:
    """SHA-256 of the source of rendering, training, features and the glyph finder they use.

    A cached model made by other code is then never loaded, even when nobody remembered to bump
    `TRAINING_VERSION`.
    """
    digest = hashlib.sha256()
    # glyphs: the features read its contrast floor (`window_features`).
    for module in (corner_render, glyphs, index_model, sys.modules[__name__]):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


def cached_model_path(cache_dir: Path, key: str) -> Path:
    """Where the model of training `key` is kept under `cache_dir`."""
    return cache_dir / f"index-model-{key[:32]}.npz"


def _load_cached(
    cache_dir: Path, key: str, ranks: list[str], suits: list[str]
) -> tuple[IndexModel, int] | None:
    """The cached model of `key`, or None when there is none or it cannot be used."""
    path = cached_model_path(cache_dir, key)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        if str(arrays.pop("key")) != key:
            return None
        samples = int(arrays.pop("samples"))
        model = IndexModel.from_arrays((*ranks, NONE), (*suits, NONE), arrays)
    except (OSError, ValueError, KeyError):
        # Missing, truncated or from another layout: training again is always safe.
        return None
    return model, samples


def _store(cache_dir: Path, key: str, model: IndexModel, samples: int) -> None:
    """Write the model of `key` under `cache_dir` atomically (a reader never sees half a file)."""
    path = cached_model_path(cache_dir, key)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as out:
            np.savez(out, key=np.array(key), samples=np.array(samples), **model.arrays())
        tmp.replace(path)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        _log.warning("cannot write the index model cache %s: %s", path, err)


def _train(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    ranks: list[str],
    suits: list[str],
    seed: int,
) -> tuple[IndexModel, int]:
    rng = np.random.default_rng(seed)
    rank_names = (*ranks, NONE)
    suit_names = (*suits, NONE)
    rows: list[Array] = []
    rank_y: list[int] = []
    suit_y: list[int] = []

    def add(images: list[Image], rank: str, suit: str) -> None:
        for image in images:
            features = window_features(image)
            if features is not None:
                rows.append(features)
                rank_y.append(rank_names.index(rank))
                suit_y.append(suit_names.index(suit))

    look = CameraLook()
    for code in sorted(flats):
        for _ in range(POSITIVES_PER_CARD):
            add(camera_corners(flats[code], window, rng, look, cuts=CUTS), code[0], code[1])
    codes = sorted(flats)
    some = flats[codes[0]]
    ch, cw = some.shape[:2]
    ww, wh = window[2] - window[0], window[3] - window[1]
    for k in range(NEGATIVES):
        kind = k % 3
        if kind == 0:
            # Another part of a face: pips, a court picture, the far corner upside down.
            flat = flats[codes[int(rng.integers(len(codes)))]]
            while True:
                ox = rng.uniform(-window[0], cw - window[2])
                oy = rng.uniform(-window[1], ch - window[3])
                if abs(ox) > 0.6 * ww or abs(oy) > 0.6 * wh:
                    break
            add(camera_corners(flat, window, rng, look, offset=(ox, oy)), NONE, NONE)
        else:
            fake = _back(rng, (cw, ch)) if kind == 1 else _chip(rng, (cw, ch))
            add(camera_corners(fake, window, rng, look), NONE, NONE)
    x = np.stack(rows)
    model = _fit(x, np.array(rank_y), np.array(suit_y), rank_names, suit_names, rng)
    return model, len(rows)


def _back(rng: np.random.Generator, size: tuple[int, int]) -> Image:
    """A patterned card back: a white margin round a lattice of lines or dots in one colour."""
    w, h = size
    out = np.full((h, w, 3), 235, np.uint8)
    m = int(0.06 * w)
    colour = tuple(int(c) for c in rng.integers(0, 160, 3))
    inner = np.full((h - 2 * m, w - 2 * m, 3), colour, np.uint8)
    step = int(rng.integers(5, 16))
    light = tuple(min(255, c + 90) for c in colour)
    if rng.random() < 0.5:
        for t in range(-h, w + h, step):
            cv2.line(inner, (t, 0), (t + h, h), light, 1)
            cv2.line(inner, (t, h), (t + h, 0), light, 1)
    else:
        dot = max(1, step // 3)
        yy, xx = np.mgrid[0 : inner.shape[0], 0 : inner.shape[1]]
        inner[(yy % step < dot) & (xx % step < dot)] = light
    out[m : h - m, m : w - m] = inner
    return out


def _chip(rng: np.random.Generator, size: tuple[int, int]) -> Image:
    """A casino chip on felt: a coloured disc with white edge spots and an inner ring."""
    w, h = size
    out = np.zeros((h, w, 3), np.uint8)
    out[:] = tuple(int(c) for c in rng.integers(20, 90, 3))
    centre = (int(rng.uniform(0, w * 0.4)), int(rng.uniform(0, h * 0.4)))
    radius = int(rng.uniform(0.2, 0.45) * w)
    colour = tuple(int(c) for c in rng.integers(0, 256, 3))
    cv2.circle(out, centre, radius, colour, -1)
    for a in np.linspace(0, 2 * np.pi, 8, endpoint=False):
        p = (int(centre[0] + 0.85 * radius * np.cos(a)), int(centre[1] + 0.85 * radius * np.sin(a)))
        cv2.circle(out, p, max(2, radius // 8), (240, 240, 240), -1)
    cv2.circle(out, centre, int(0.6 * radius), (240, 240, 240), 2)
    return out


def _fit(
    x: Array,
    rank_y: Any,
    suit_y: Any,
    rank_names: tuple[str, ...],
    suit_names: tuple[str, ...],
    rng: np.random.Generator,
) -> IndexModel:
    """Fit the two-headed network by Adam on the summed cross-entropy of both heads."""
    n, d = x.shape
    params = {
        "w1": (rng.normal(0, np.sqrt(2 / d), (d, HIDDEN))).astype(np.float32),
        "b1": np.zeros(HIDDEN, np.float32),
        "wr": (rng.normal(0, np.sqrt(1 / HIDDEN), (HIDDEN, len(rank_names)))).astype(np.float32),
        "br": np.zeros(len(rank_names), np.float32),
        "ws": (rng.normal(0, np.sqrt(1 / HIDDEN), (HIDDEN, len(suit_names)))).astype(np.float32),
        "bs": np.zeros(len(suit_names), np.float32),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(p) for k, p in params.items()}
    r1, r2 = np.eye(len(rank_names), dtype=np.float32), np.eye(len(suit_names), dtype=np.float32)
    step = 0
    for epoch in range(EPOCHS):
        lr = LEARNING_RATE * (0.5 * (1 + np.cos(np.pi * epoch / EPOCHS)) + 0.02)
        order = rng.permutation(n)
        for start in range(0, n, BATCH):
            idx = order[start : start + BATCH]
            xb = x[idx]
            h = xb @ params["w1"] + params["b1"]
            a = np.maximum(0.0, h)
            pr = softmax(a @ params["wr"] + params["br"])
            ps = softmax(a @ params["ws"] + params["bs"])
            gr = (pr - r1[rank_y[idx]]) / len(idx)
            gs = (ps - r2[suit_y[idx]]) / len(idx)
            ga = (gr @ params["wr"].T + gs @ params["ws"].T) * (h > 0)
            grads = {
                "w1": xb.T @ ga + 1e-4 * params["w1"],
                "b1": ga.sum(axis=0),
                "wr": a.T @ gr + 1e-4 * params["wr"],
                "br": gr.sum(axis=0),
                "ws": a.T @ gs + 1e-4 * params["ws"],
                "bs": gs.sum(axis=0),
            }
            step += 1
            for k, g in grads.items():
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                mh = m[k] / (1 - 0.9**step)
                vh = v[k] / (1 - 0.999**step)
                params[k] = (params[k] - lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    return IndexModel(rank_names, suit_names, **params)
