"""Trains the dense index-corner detector (`dense_corners`) on generated tuning designs.

    python -m drivers.camera.dense_corner_training [--frames N] [--epochs N] [--out FILE]

Scenes of the *tuning* designs only are drawn (`synthetic.splits.TUNING_SEEDS`, the last
`HOLD_OUT` of them kept for `bench/dense_corners.py` to measure on), in both envelopes; the
truth is every face-up card's index corner whose window is in view
(`index_corner_training.shown_share`). The network (`LAYERS`) is taught CenterNet-style maps
(`targets`: a Gaussian round each corner's cell, focal loss; the corner's place in the cell,
the cos and sin of its turn and the log of its card's height, L1 at the cell and its
neighbours) on crops of the downscaled frames, with JAX and optax (AdamW, warm-up and cosine
schedule, seeded: same data, same weights); `onnx_dense_graph.fully_conv_onnx` writes it to
`--out` (the package's model by default) and its SHA-256 is printed, which
`dense_corners.MODEL_SHA256` must match. The recognizer feeds its corners to the finder
(`docs/camera-history.md`, "The dense index-corner detector fed to the finder"). The
drawn frames are cached under `--cache`. JAX is imported only to train.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.dense_corners import (
    HEIGHT_UNIT,
    MODEL_FILE,
    SCALE,
    STRIDE,
    downscaled,
    net_input,
    to_cells,
)
from drivers.camera.index_corner_training import HOLD_OUT, shown_share
from drivers.camera.onnx_dense_graph import ConvLayer, fully_conv_onnx
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import RenderedFrame, Scene, render_scene
from drivers.camera.synthetic.splits import TUNING_SEEDS

Array = npt.NDArray[Any]
Quad = npt.NDArray[Any]

LAYERS = (
    ConvLayer("c0", stride=2),
    ConvLayer("c1", stride=2),
    ConvLayer("c2"),
    ConvLayer("c3", dilation=2),
    ConvLayer("c4", dilation=2),
    ConvLayer("h", relu=False),
)
WIDTHS = {"c0": 8, "c1": 16, "c2": 24, "c3": 32, "c4": 32, "h": 6}
"""Output channels per layer; the head (1x1) gives odds, x and y in the cell, cos, sin and log
height."""
SHOWN = 0.9
"""An index corner counts when this share of its window is uncovered (`index_corner_training`'s)."""
PARTLY = 0.5
"""Index corners shown less than `SHOWN` but at least this much are neither taught nor counted."""
CROP = 128
"""Training crops are this many input pixels square."""


@dataclass(frozen=True, slots=True)
class Truth:
    """A frame's drawn index corners (frame pixels): corner, turn (radians), height, shown share.

    `overlapped` says whether the corner's card overlaps another card (above or below).
    """

    corner: Array
    turn: Array
    height: Array
    shown: Array
    overlapped: Array

    def packed(self) -> Array:
        """One (N, 6) array of the corners, as `cached_draw` and the bench store them."""
        out: Array = np.c_[self.corner, self.turn, self.height, self.shown, self.overlapped]
        return out

    @classmethod
    def unpacked(cls, a: Array) -> Truth:
        """The truth `packed` stored."""
        return cls(a[:, :2], a[:, 2], a[:, 3], a[:, 4], a[:, 5].astype(bool))


def save_arrays(path: Path, arrays: dict[str, Array]) -> None:
    """`arrays` written to `path` (.npz) whole or not at all: a run cut short leaves no cache."""
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **arrays)  # type: ignore[arg-type]
    tmp.rename(path)


def frame_truth(scene: Scene, frame: RenderedFrame) -> Truth:
    """Every face-up card's two index corners in `frame`, with how much of each is in view."""
    quads = [t.corners.astype(np.float32) for t in frame.cards]
    rows: list[tuple[float, float, float, float, float, bool]] = []
    for k, t in enumerate(frame.cards):
        if not t.face_up:
            continue
        area = abs(cv2.contourArea(quads[k]))
        over = any(
            cv2.intersectConvexConvex(quads[k], q)[0] > 0.005 * area
            for j, q in enumerate(quads)
            if j != k
        )
        for turn in (0, 2):
            q = np.roll(t.corners, -turn, axis=0)
            side = q[1] - q[0]
            rows.append(
                (
                    float(q[0, 0]),
                    float(q[0, 1]),
                    float(np.arctan2(side[1], side[0])),
                    float(np.linalg.norm(q[3] - q[0])),
                    shown_share(k, turn, frame, scene),
                    over,
                )
            )
    a = np.array(rows, np.float64).reshape(-1, 6)
    return Truth(a[:, :2], a[:, 2], a[:, 3], a[:, 4], a[:, 5].astype(bool))


def targets(truth: Truth, cells: tuple[int, int]) -> tuple[Array, Array, Array, Array]:
    """Training targets on a grid of `cells` (rows, columns) for a frame's `truth`.

    Returns the heat (a Gaussian round each shown corner, 1 at its cell), the heat's weight
    (0 round corners only partly shown: neither taught as corners nor as felt), the regression
    targets (5, rows, columns: x and y from the cell, cos, sin, log height) and their weight
    (the corner's cell and its eight neighbours, so a peak one cell off still decodes well).
    """
    rows, cols = cells
    heat = np.zeros((rows, cols), np.float32)
    weight = np.ones((rows, cols), np.float32)
    reg = np.zeros((5, rows, cols), np.float32)
    reg_w = np.zeros((rows, cols), np.float32)
    yy, xx = np.mgrid[0:rows, 0:cols]
    for p, turn, height, shown in zip(
        to_cells(truth.corner), truth.turn, truth.height, truth.shown, strict=True
    ):
        ci, cj = round(float(p[1])), round(float(p[0]))
        if shown < PARTLY:
            continue
        if shown < SHOWN:
            weight[max(0, ci - 1) : ci + 2, max(0, cj - 1) : cj + 2] = 0.0
            continue
        if not (0 <= ci < rows and 0 <= cj < cols):
            continue
        sigma = float(np.clip(0.04 * height / (SCALE * STRIDE), 0.4, 1.0))
        g = np.exp(-((xx - p[0]) ** 2 + (yy - p[1]) ** 2) / (2 * sigma**2))
        heat = np.maximum(heat, g.astype(np.float32))
        heat[ci, cj] = 1.0
        for i in range(max(0, ci - 1), min(rows, ci + 2)):
            for j in range(max(0, cj - 1), min(cols, cj + 2)):
                reg[:, i, j] = (
                    p[0] - j,
                    p[1] - i,
                    np.cos(turn),
                    np.sin(turn),
                    np.log(height / HEIGHT_UNIT),
                )
                reg_w[i, j] = 1.0 if (i, j) == (ci, cj) else 0.5
    return heat, weight, reg, reg_w


@dataclass(frozen=True, slots=True)
class Drawn:
    """A drawn frame as training and the bench keep it: the downscaled grey and its truth."""

    small: Array
    truth: Truth


def draw(design_seed: int, envelope: str, frames: int, seed: int) -> list[Drawn]:
    """`frames` scenes of one tuning design in one envelope, drawn from `seed`."""
    design = deckgen.design(design_seed)
    e = list(ENVELOPES).index(envelope)
    rng = np.random.default_rng([seed, design_seed, e])
    out = []
    for _ in range(frames):
        scene = random_scene(rng, ENVELOPES[envelope], design)
        frame = render_scene(scene)
        gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
        out.append(Drawn(downscaled(gray), frame_truth(scene, frame)))
    return out


def cached_draw(
    cache: Path, design_seed: int, envelope: str, frames: int, seed: int
) -> list[Drawn]:
    """`draw`, kept in `cache` (one file per design, envelope, count and seed)."""
    path = cache / f"dense-{design_seed}-{envelope}-{frames}-{seed}.npz"
    if not path.exists():
        drawn = draw(design_seed, envelope, frames, seed)
        arrays: dict[str, Array] = {}
        for n, d in enumerate(drawn):
            arrays[f"s{n}"] = d.small
            arrays[f"t{n}"] = d.truth.packed()
        save_arrays(path, arrays)
    with np.load(path) as z:
        return [Drawn(z[f"s{n}"], Truth.unpacked(z[f"t{n}"])) for n in range(frames)]


def _init(rng: np.random.Generator) -> dict[str, Array]:
    """He-initialised weights (OIHW); the odds' bias starts at a 1% prior (CenterNet's)."""
    params: dict[str, Array] = {}
    cin = 1
    for layer in LAYERS:
        cout = WIDTHS[layer.name]
        k = 1 if layer.name == "h" else 3
        params[f"{layer.name}w"] = rng.normal(
            0, np.sqrt(2 / (cin * k * k)), (cout, cin, k, k)
        ).astype(np.float32)
        params[f"{layer.name}b"] = np.zeros(cout, np.float32)
        cin = cout
    params["hw"] *= 0.1
    params["hb"][0] = -4.6
    return params


def _crops(
    drawn: list[Drawn], rng: np.random.Generator, per_frame: int
) -> tuple[Array, Array, Array, Array, Array]:
    """Training crops (`CROP` input pixels, on the grid) of every frame, most round a corner."""
    xs, heats, weights, regs, reg_ws = [], [], [], [], []
    cell = CROP // STRIDE
    for d in drawn:
        h, w = d.small.shape
        heat, weight, reg, reg_w = targets(d.truth, (h // STRIDE, w // STRIDE))
        shown = to_cells(d.truth.corner[d.truth.shown >= SHOWN])
        for n in range(per_frame):
            if len(shown) and n < per_frame - 1:
                c = shown[rng.integers(len(shown))] + rng.uniform(-cell / 2.5, cell / 2.5, 2)
                i0, j0 = int(c[1]) - cell // 2, int(c[0]) - cell // 2
            else:
                i0, j0 = rng.integers(0, h // STRIDE - cell), rng.integers(0, w // STRIDE - cell)
            i0 = int(np.clip(i0, 0, h // STRIDE - cell))
            j0 = int(np.clip(j0, 0, w // STRIDE - cell))
            y0, x0 = i0 * STRIDE, j0 * STRIDE
            xs.append(net_input(d.small[y0 : y0 + CROP, x0 : x0 + CROP])[0])
            heats.append(heat[i0 : i0 + cell, j0 : j0 + cell])
            weights.append(weight[i0 : i0 + cell, j0 : j0 + cell])
            regs.append(reg[:, i0 : i0 + cell, j0 : j0 + cell])
            reg_ws.append(reg_w[i0 : i0 + cell, j0 : j0 + cell])
    return (np.stack(xs), np.stack(heats), np.stack(weights), np.stack(regs), np.stack(reg_ws))


def train(drawn: list[Drawn], *, seed: int, epochs: int) -> dict[str, Array]:
    """Fit the network on crops of `drawn` (focal loss on the odds, L1 on the rest); seeded."""
    import jax
    import jax.numpy as jnp
    import optax

    rng = np.random.default_rng(seed)
    params = {k: jnp.asarray(v) for k, v in _init(rng).items()}
    batch, per_frame = 16, 4
    steps = max(1, -(-len(drawn) * per_frame // batch))
    optimiser = optax.adamw(
        optax.warmup_cosine_decay_schedule(3e-4, 3e-3, steps, epochs * steps, 3e-5),
        weight_decay=1e-4,
    )
    state = optimiser.init(params)

    def forward(p: dict[str, Any], x: Any) -> Any:
        for layer in LAYERS:
            w = p[f"{layer.name}w"]
            pad = layer.dilation * (w.shape[2] // 2)
            x = jax.lax.conv_general_dilated(
                x,
                w,
                (layer.stride, layer.stride),
                ((pad, pad), (pad, pad)),
                rhs_dilation=(layer.dilation, layer.dilation),
                dimension_numbers=("NCHW", "OIHW", "NCHW"),
            )
            x = x + p[f"{layer.name}b"][None, :, None, None]
            if layer.relu:
                x = jnp.maximum(x, 0.0)
        return x

    def loss(p: dict[str, Any], x: Any, heat: Any, weight: Any, reg: Any, reg_w: Any) -> Any:
        out = forward(p, x)
        logit = out[:, 0]
        odds = jax.nn.sigmoid(logit)
        pos = (heat >= 1.0).astype(jnp.float32)
        n = jnp.maximum(1.0, pos.sum())
        focal = (
            -(
                pos * (1 - odds) ** 2 * jax.nn.log_sigmoid(logit)
                + (1 - pos) * weight * (1 - heat) ** 4 * odds**2 * jax.nn.log_sigmoid(-logit)
            ).sum()
            / n
        )
        err = jnp.abs(out[:, 1:] - reg)
        # Offsets in cells, cos and sin, log height: all about one unit of error when lost.
        regress = (err.sum(axis=1) * reg_w).sum() / jnp.maximum(1.0, reg_w.sum())
        return focal + regress

    @jax.jit
    def step(p: dict[str, Any], s: Any, *b: Any) -> tuple[Any, Any, Any]:
        value, grads = jax.value_and_grad(loss)(p, *b)
        updates, s = optimiser.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    for epoch in range(epochs):
        start = time.perf_counter()
        data = _crops(drawn, rng, per_frame)
        order = rng.permutation(len(data[0]))
        total = 0.0
        for i in range(steps):
            idx = order[i * batch : (i + 1) * batch]
            if len(idx) < batch:
                idx = order[:batch]
            params, state, value = step(params, state, *(jnp.asarray(a[idx]) for a in data))
            total += float(value)
        took = time.perf_counter() - start
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / steps:.4f} ({took:.0f} s)", flush=True)
    return {k: np.asarray(v, np.float32) for k, v in params.items()}


def to_onnx(params: dict[str, Array]) -> bytes:
    """The network as an ONNX graph: input `frame` (n, 1, h, w), output `maps` (n, 6, h/4, w/4)."""
    return fully_conv_onnx(
        params,
        LAYERS,
        graph="dense_corners",
        input_name="frame",
        output="maps",
        doc="dense index-corner detector (drivers.camera.dense_corner_training)",
    )


def fit_seeds() -> tuple[int, ...]:
    """The tuning designs trained on (all but the last `HOLD_OUT`)."""
    return TUNING_SEEDS[:-HOLD_OUT]


def hold_seeds() -> tuple[int, ...]:
    """The tuning designs held out for measuring."""
    return TUNING_SEEDS[-HOLD_OUT:]


def main() -> None:
    """Draw (or reuse) the training frames, train, write the model and print its digest."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=16, help="scenes per design and envelope")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261206)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cam-dense"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "models" / MODEL_FILE)
    parser.add_argument("--draw-only", action="store_true", help="draw the frames, do not train")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    args.cache.mkdir(parents=True, exist_ok=True)
    drawn: list[Drawn] = []
    for design_seed in fit_seeds():
        for envelope in ENVELOPES:
            drawn += cached_draw(args.cache, design_seed, envelope, args.frames, args.seed)
        shown = sum(int((d.truth.shown >= SHOWN).sum()) for d in drawn)
        print(f"  design {design_seed}: {len(drawn)} frames, {shown} corners", flush=True)
    if args.draw_only:
        return
    params = train(drawn, seed=args.seed, epochs=args.epochs)
    data = to_onnx(params)
    args.out.write_bytes(data)
    print(f"wrote {args.out}: sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
