"""Train the learned index reader from a deck's 52 flat reference cards, in under two minutes.

Each card's index window, at both its index corners, is rendered many times through a random camera
(`calibration.corner_render.camera_corner`); windows that hold no index of this deck (other parts
of a face, an index upside down, patterned backs, chip-like discs) teach the "none" class. A
small convolutional network with a rank head and a suit head (`calibration.corner_net`) is
trained with JAX and optax and exported to ONNX, which onnxruntime runs at read time. Every
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration import corner_net, corner_render, universal_reader
from calibration.corner_render import CameraLook, camera_corners
from calibration.universal_reader import universal_weights
from drivers.camera import index_model, onnx_graph
from drivers.camera.index_model import NONE, Array, Image, IndexModel, window_tensor


@dataclass(frozen=True, slots=True)
class TrainingSize:
    """How many windows are rendered and how long the network trains on them."""

    positives_per_card: int = 40
    cuts: int = 2
    negatives: int = 900
    epochs: int = 15
    fine_epochs: int = 5
    """Epochs when the shipped universal reader is the start (`calibration.universal_reader`)."""


FULL = TrainingSize()
QUICK = TrainingSize(positives_per_card=12, cuts=2, negatives=200, epochs=20, fine_epochs=8)
"""The quick setting tests train with (`STUDIO_QUICK_TRAINING=1`): the same recipe on fewer
windows, enough to read crisp corners of a test's own deck; the bench uses `FULL`."""
BATCH = 128
LEARNING_RATE = 3e-3
FINE_LEARNING_RATE = 1e-3
"""Peak rate when fine-tuning the universal reader: a third of a fresh start's, so the deck's
few references move the weights without erasing what many designs taught."""
SHIPPED_DIR = Path(__file__).parent / "models"
"""Models of the built-in synthetic designs, shipped in the package (made by
`python -m drivers.camera.synthetic.shipped_models`): the embedded table starts without
training. Looked up by the same key as the cache, so a stale one is never used."""
TRAINING_VERSION = 4
"""Bumped whenever rendering or training changes, so a cached model is never stale."""

DEFAULT_LOOK = CameraLook()
"""The camera a deck's references are rendered through (`calibration.corner_render`)."""

_CACHE: dict[str, tuple[IndexModel, int]] = {}
SHIPPED_USED: set[Path] = set()
"""Shipped model files this process has loaded (for the script that refreshes them)."""
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
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[IndexModel, int]:
    """A model reading `window` (pixels of the flat cards), and its count of training windows.

    `flats` maps each card code ("AS") to its flattened upright card (BGR, all the same size).
    With `cache_dir`, a model trained before from the same references (and seed, classes,
    training version and training source code) is loaded from there instead of trained again,
    and a new one is stored there; a cached file that cannot be read is trained again and
    replaced, and a cache that cannot be written is logged and skipped (the model is as good;
    the next start retrains). `progress(stage, done, total)` is told how far rendering
    ("render", windows) and training ("train", epochs) are; a cached model calls it never.
    """
    size = training_size()
    key = model_key(flats, window, ranks, suits, seed, size)
    if key not in _CACHE:
        # A shipped model is always the full setting's, whatever the environment asks for.
        shipped = model_key(flats, window, ranks, suits, seed, FULL)
        found = _load_cached(SHIPPED_DIR, shipped, ranks, suits)
        if found is not None:
            SHIPPED_USED.add(cached_model_path(SHIPPED_DIR, shipped))
        if found is None and cache_dir is not None:
            found = _load_cached(cache_dir, key, ranks, suits)
        if found is None:
            found = _train(flats, window, ranks, suits, seed, size, progress)
            if cache_dir is not None:
                _store(cache_dir, key, *found)
        _CACHE.clear()  # one deck at a time is what a process uses; keep memory flat
        _CACHE[key] = found
    return _CACHE[key]


def training_size() -> TrainingSize:
    """`QUICK` when the environment asks for it (`STUDIO_QUICK_TRAINING=1`), else `FULL`."""
    return QUICK if os.environ.get("STUDIO_QUICK_TRAINING") == "1" else FULL


def model_key(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    ranks: list[str],
    suits: list[str],
    seed: int,
    size: TrainingSize,
) -> str:
    """The cache key of a training: references, window, seed, classes, size and source code."""
    refs = references_digest(flats, window)
    return hashlib.sha256(
        f"{refs}:{seed}:{ranks}:{suits}:{size}:{_code_digest()}".encode()
    ).hexdigest()


@functools.cache
def _code_digest() -> str:
    """SHA-256 of the source of rendering, training, the network, its input and its writer.

    A cached model made by other code is then never loaded, even when nobody remembered to bump
    `TRAINING_VERSION`.
    """
    digest = hashlib.sha256()
    # universal_reader: its source holds the shipped start's SHA-256.
    # onnx_graph: it writes the model's graph.
    modules = (corner_render, corner_net, index_model, onnx_graph, universal_reader)
    for module in (*modules, sys.modules[__name__]):
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
        model = IndexModel((*ranks, NONE), (*suits, NONE), arrays["onnx"].tobytes())
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
            np.savez(
                out,
                key=np.array(key),
                samples=np.array(samples),
                onnx=np.frombuffer(model.onnx, np.uint8),
            )
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
    size: TrainingSize,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[IndexModel, int]:
    rng = np.random.default_rng(seed)
    report = progress or (lambda stage, done, total: None)
    rank_names = (*ranks, NONE)
    suit_names = (*suits, NONE)
    x, rank_y, suit_y = training_windows(
        flats, window, rank_names, suit_names, rng, size, report=report
    )
    start = universal_weights()
    if (
        start is not None
        and start["rw"].shape[1] == len(rank_names)
        and start["sb"].shape == (len(suit_names),)
    ):
        # The universal reader already knows indices of many typefaces: a few epochs at a lower
        # rate specialise it to this deck without forgetting what an index is.
        recipe = corner_net.Recipe(
            epochs=size.fine_epochs, batch=BATCH, learning_rate=FINE_LEARNING_RATE
        )
    else:
        start = None
        recipe = corner_net.Recipe(epochs=size.epochs, batch=BATCH, learning_rate=LEARNING_RATE)
    weights = corner_net.train(
        x,
        rank_y,
        suit_y,
        len(rank_names),
        len(suit_names),
        seed=seed,
        recipe=recipe,
        init=start,
        progress=functools.partial(report, "train"),
    )
    return IndexModel(rank_names, suit_names, corner_net.to_onnx(weights)), len(x)


def training_windows(
    flats: Mapping[str, Image],
    window: tuple[int, int, int, int],
    rank_names: tuple[str, ...],
    suit_names: tuple[str, ...],
    rng: np.random.Generator,
    size: TrainingSize,
    look: CameraLook = DEFAULT_LOOK,
    report: Callable[[str, int, int], None] | None = None,
) -> tuple[Array, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Index windows of the deck `flats` through random cameras, and their class indices.

    `size.positives_per_card` renders of each card (each cut `size.cuts` times through its own
    slightly wrong outline), half of them at its far index corner (the card turned half
    round), are labelled with the card's rank and suit; `size.negatives`
    windows holding no index of this deck (other parts of a face, backs, chips) are labelled
    `NONE` for both heads. Windows with no print at all (`window_tensor` None) are left out.
    `report(stage, done, total)` is told of the renders ("render") as they progress.
    Returns (N, CHANNELS, H, W) windows and the rank and suit indices into the names given.
    """
    renders = len(flats) * size.positives_per_card + size.negatives
    if report is None:
        report = lambda stage, done, total: None  # noqa: E731
    rows: list[Array] = []
    rank_y: list[int] = []
    suit_y: list[int] = []

    def add(images: list[Image], rank: str, suit: str) -> None:
        for image in images:
            features = window_tensor(image)
            if features is not None:
                rows.append(features)
                rank_y.append(rank_names.index(rank))
                suit_y.append(suit_names.index(suit))

    for n, code in enumerate(sorted(flats)):
        near = flats[code]
        far = cv2.rotate(near, cv2.ROTATE_180)
        for k in range(size.positives_per_card):
            # The recognizer reads a card at both index corners (the far one turned upright),
            # and a face need not look the same turned: pips printed upright all over it stand
            # on their heads beside the far index. Taught the near corner only, the reader read
            # an upturned heart pip there as a diamond, sure (docs/camera.md, "Wrong reads").
            flat = near if k % 2 == 0 else far
            add(camera_corners(flat, window, rng, look, cuts=size.cuts), code[0], code[1])
        report("render", (n + 1) * size.positives_per_card, renders)
    codes = sorted(flats)
    some = flats[codes[0]]
    ch, cw = some.shape[:2]
    ww, wh = window[2] - window[0], window[3] - window[1]
    for k in range(size.negatives):
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
    report("render", renders, renders)
    return np.stack(rows), np.array(rank_y, np.int64), np.array(suit_y, np.int64)


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
