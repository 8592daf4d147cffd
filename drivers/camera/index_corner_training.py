"""Rebuilds the shipped index-corner detector (`index_corners`) from generated tuning designs.

    python -m drivers.camera.index_corner_training [--frames N] [--epochs N] [--out FILE]

Scenes of every *tuning* design (`synthetic.splits.TUNING_SEEDS`; the test designs are never
drawn here) are rendered in both camera envelopes; the finder's own corner hypotheses in them
are labelled against the drawn truth (an index corner of a face-up card whose index window
the hypothesis puts within `PLACED` of the card's height of where it is, and that window in
view), with the drawn index corners themselves (jittered) as more positives and the same
corners pushed off or turned as hard negatives. The last `HOLD_OUT` tuning designs are held out
to choose the threshold (the least score that keeps `KEEP` of their index corners) and report
it. A small network is trained with JAX and optax (seeded: same data, same weights), written as
an ONNX graph (`drivers.camera.onnx_graph`), and its SHA-256 printed for
`index_corners.MODEL_SHA256`. JAX is imported only here: a table that reads frames never loads it.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.detect import detect_cards
from drivers.camera.finder import card_height, corner_hypotheses
from drivers.camera.index_corners import MODEL_FILE, PATCH_SIZE, patches
from drivers.camera.onnx_graph import Head, conv_net_onnx
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import RenderedFrame, Scene, project, render_scene
from drivers.camera.synthetic.splits import TUNING_SEEDS

Array = npt.NDArray[np.float32]

PLACED = 0.04
"""A hypothesis is an index corner when it puts the index window within 4% of the card height."""
HOLD_OUT = 8
KEEP = 0.97
WINDOW = np.array([[0.02, 0.02], [0.27, 0.02], [0.27, 0.33], [0.02, 0.33]])
WIDTHS = (8, 16, 32)
HIDDEN = 32


def _bilinear(quad: npt.NDArray[Any], uv: npt.NDArray[Any]) -> npt.NDArray[Any]:
    tl, tr, br, bl = quad
    u, v = uv[:, :1], uv[:, 1:]
    out: npt.NDArray[Any] = (
        (1 - u) * (1 - v) * tl + u * (1 - v) * tr + u * v * br + (1 - u) * v * bl
    )
    return out


def _in_view(k: int, turn: int, frame: RenderedFrame, scene: Scene) -> bool:
    """Whether card k's index window at `turn` is >= 90% uncovered by later cards and chips."""
    return shown_share(k, turn, frame, scene) >= 0.9


def shown_share(k: int, turn: int, frame: RenderedFrame, scene: Scene) -> float:
    """The share of card k's index window at `turn` that later cards and chips leave uncovered."""
    return window_shown(np.roll(frame.cards[k].corners, -turn, axis=0), k, frame, scene)


def window_shown(corners: npt.NDArray[Any], k: int, frame: RenderedFrame, scene: Scene) -> float:
    """The share of the index window at the first of `corners` left in view.

    `corners` are card k's, in the order that puts the window's corner first; the cards laid
    after k and the chips cover it.
    """
    win = _bilinear(corners, WINDOW)
    x0, y0 = np.floor(win.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(win.max(axis=0)).astype(int) + 2
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(win - [x0, y0]).astype(np.int32), 1)
    total = max(1, int(mask.sum()))
    for t in frame.cards[k + 1 :]:
        cv2.fillConvexPoly(mask, np.round(t.corners - [x0, y0]).astype(np.int32), 0)
    for chip in scene.chips:
        c = project(
            scene.table_to_image, np.array([[chip.x, chip.y], [chip.x + chip.radius, chip.y]])
        )
        r = round(float(np.hypot(*(c[1] - c[0]))))
        cv2.circle(mask, (round(c[0, 0]) - x0, round(c[0, 1]) - y0), r, 0, -1)
    return float(mask.sum()) / total


def _labelled(
    scene: Scene, frame: RenderedFrame, rng: np.random.Generator
) -> tuple[list[npt.NDArray[Any]], list[int], list[npt.NDArray[Any]]]:
    """The frame's hypotheses and their labels, plus the drawn index corners in view."""
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    found = detect_cards(gray, min_long_px=80.0, frame=frame.image)
    truths = []
    for k, t in enumerate(frame.cards):
        if not t.face_up:
            continue
        for turn in (0, 2):
            if _in_view(k, turn, frame, scene):
                truths.append(np.roll(t.corners, -turn, axis=0))
    quads, labels = [], []
    for quad, _ in corner_hypotheses(found, card_height(found)):
        got = _bilinear(quad, WINDOW)
        hit = False
        for truth in truths:
            size = float(np.linalg.norm(truth[3] - truth[0]))
            err = float(np.linalg.norm(got - _bilinear(truth, WINDOW), axis=1).max())
            hit |= err <= PLACED * size
        quads.append(quad)
        labels.append(int(hit))
    # The drawn corners, a little off (a found corner is), and hard negatives: pushed 8-20% of
    # the card off, or the card frame turned a quarter (the other corner kind of the same card).
    for truth in truths:
        size = float(np.linalg.norm(truth[3] - truth[0]))
        centre = truth[0]
        scale = rng.uniform(0.95, 1.05)
        moved = centre + (truth - centre) * scale + rng.normal(0, 0.01 * size, (1, 2))
        quads.append(moved)
        labels.append(1)
        push = rng.uniform(0.08, 0.2) * size * rng.choice([-1.0, 1.0], 2)
        quads.append(truth + push)
        labels.append(0)
        quads.append(np.roll(truth, -1, axis=0))
        labels.append(0)
    return quads, labels, truths


def dataset(seeds: tuple[int, ...], frames: int, seed: int) -> tuple[Array, npt.NDArray[np.int64]]:
    """Patches and labels from `frames` scenes per design and envelope of `seeds`."""
    xs, ys = [], []
    for design_seed in seeds:
        design = deckgen.design(design_seed)
        for e, style in enumerate(ENVELOPES.values()):
            rng = np.random.default_rng([seed, design_seed, e])
            for _ in range(frames):
                scene = random_scene(rng, style, design)
                frame = render_scene(scene)
                quads, labels, _ = _labelled(scene, frame, rng)
                if quads:
                    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
                    xs.append(patches(gray, quads))
                    ys.extend(labels)
        print(f"  design {design_seed}: {len(ys)} samples, {sum(ys)} corners", flush=True)
    w, h = PATCH_SIZE
    x = np.concatenate(xs) if xs else np.zeros((0, 1, h, w), np.float32)
    return x, np.asarray(ys, np.int64)


def _init(rng: np.random.Generator) -> dict[str, Array]:
    """He-initialised weights in ONNX's layouts (OIHW kernels, (in, out) dense matrices)."""
    params: dict[str, Array] = {}
    cin = 1
    for k, cout in enumerate(WIDTHS):
        params[f"c{k}w"] = rng.normal(0, np.sqrt(2 / (cin * 9)), (cout, cin, 3, 3)).astype(
            np.float32
        )
        params[f"c{k}b"] = np.zeros(cout, np.float32)
        cin = cout
    w, h = PATCH_SIZE
    flat = cin * (h // 8) * (w // 8)
    params["dw"] = rng.normal(0, np.sqrt(2 / flat), (flat, HIDDEN)).astype(np.float32)
    params["db"] = np.zeros(HIDDEN, np.float32)
    params["ow"] = rng.normal(0, np.sqrt(1 / HIDDEN), (HIDDEN, 1)).astype(np.float32)
    params["ob"] = np.zeros(1, np.float32)
    return params


def train(x: Array, y: npt.NDArray[np.int64], *, seed: int, epochs: int) -> dict[str, Array]:
    """Fit the network (binary cross-entropy, AdamW, cosine schedule); seeded."""
    import jax
    import jax.numpy as jnp
    import optax

    rng = np.random.default_rng(seed)
    params = {k: jnp.asarray(v) for k, v in _init(rng).items()}
    batch = 256
    steps = max(1, -(-len(x) // batch))
    optimiser = optax.adamw(
        optax.cosine_decay_schedule(3e-3, epochs * steps, 0.05), weight_decay=1e-4
    )
    state = optimiser.init(params)
    # Index corners are a few percent of the hypotheses: weigh them up to half the loss.
    pos = max(1.0, float(y.sum()))
    weight = jnp.asarray(
        np.where(y == 1, len(y) / (2 * pos), len(y) / (2 * max(1.0, len(y) - pos)))
    )

    def forward(p: dict[str, Any], xb: Any) -> Any:
        for k in range(len(WIDTHS)):
            xb = jax.lax.conv_general_dilated(
                xb,
                p[f"c{k}w"],
                (1, 1),
                ((1, 1), (1, 1)),
                dimension_numbers=("NCHW", "OIHW", "NCHW"),
            )
            xb = jnp.maximum(xb + p[f"c{k}b"][None, :, None, None], 0.0)
            xb = jax.lax.reduce_window(
                xb, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID"
            )
        xb = xb.reshape(xb.shape[0], -1)
        xb = jnp.maximum(xb @ p["dw"] + p["db"], 0.0)
        return (xb @ p["ow"] + p["ob"])[:, 0]

    def loss(p: dict[str, Any], xb: Any, yb: Any, wb: Any) -> Any:
        return (optax.sigmoid_binary_cross_entropy(forward(p, xb), yb) * wb).mean()

    @jax.jit
    def step(p: dict[str, Any], s: Any, xb: Any, yb: Any, wb: Any) -> tuple[Any, Any, Any]:
        value, grads = jax.value_and_grad(loss)(p, xb, yb, wb)
        updates, s = optimiser.update(grads, s, p)
        return optax.apply_updates(p, updates), s, value

    xj, yj = jnp.asarray(x), jnp.asarray(y.astype(np.float32))
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        total = 0.0
        for i in range(steps):
            idx = order[i * batch : (i + 1) * batch]
            params, state, value = step(params, state, xj[idx], yj[idx], weight[idx])
            total += float(value)
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / steps:.4f}", flush=True)
    return {k: np.asarray(v, np.float32) for k, v in params.items()}


def to_onnx(params: dict[str, Array]) -> bytes:
    """The network as an ONNX graph: input `patch` (N, 1, H, W), output `logit` (N, 1)."""
    w, h = PATCH_SIZE
    return conv_net_onnx(
        params,
        graph="index_corners",
        input_name="patch",
        input_shape=(1, h, w),
        heads=(Head("logit", "o", softmax=False),),
        doc="index-corner detector (drivers.camera.index_corner_training)",
    )


def main() -> None:
    """Build the model from the tuning designs, choose the threshold, write and print its digest."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=3, help="scenes per design and envelope")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "models" / MODEL_FILE)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    fit_seeds, hold_seeds = TUNING_SEEDS[:-HOLD_OUT], TUNING_SEEDS[-HOLD_OUT:]
    x, y = dataset(fit_seeds, args.frames, args.seed)
    xv, yv = dataset(hold_seeds, args.frames, args.seed + 1)
    params = train(x, y, seed=args.seed, epochs=args.epochs)
    data = to_onnx(params)
    args.out.write_bytes(data)
    from drivers.camera.index_corners import IndexCornerDetector

    digest = hashlib.sha256(data).hexdigest()
    detector = IndexCornerDetector(str(args.out), digest)
    (logits,) = detector._session.run(None, {"patch": xv})
    scores = 1 / (1 + np.exp(-logits[:, 0]))
    pos = np.sort(scores[yv == 1])
    threshold = float(pos[int((1 - KEEP) * len(pos))]) if len(pos) else 0.5
    kept = float((scores[yv == 1] >= threshold).mean()) if len(pos) else 0.0
    false = int((scores[yv == 0] >= threshold).sum())
    print(
        f"held-out tuning designs: {int(yv.sum())} corners, {int((yv == 0).sum())} others; "
        f"threshold {threshold:.3f} keeps {kept:.1%} of corners, lets {false} others through"
    )
    print(f"sha256 {digest}")


if __name__ == "__main__":
    main()
