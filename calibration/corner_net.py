"""The index reader's network: defined and trained with JAX and optax, exported to ONNX.

A small convolutional network reads one index window (`drivers.camera.index_model.window_tensor`)
into a rank (13 ranks or "none") and a suit (4 suits or "none"). Three 3x3 convolutions with
max pooling see the strokes of the index wherever the outline put it in the window; one dense
layer feeds both heads (the widths and the dense layer's units: `NetShape`). Training uses
JAX for gradients and optax's AdamW with a cosine schedule; the trained weights are written
as an ONNX graph (`drivers.camera.onnx_graph`), which `drivers.camera.index_model.IndexModel`
runs with onnxruntime. JAX is imported only here, so a table that only reads (the recognizer)
never loads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from drivers.camera.index_model import CHANNELS, INPUT_SIZE
from drivers.camera.onnx_graph import Head, conv_net_onnx

Array = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class NetShape:
    """The network's size: output channels of each 3x3 convolution, units of the dense layer.

    The default is the shipped readers' shape (docs/camera.md, "Is the reader's size what
    limits it?" measures wider ones). A network started from trained weights takes their
    shape (`of`), so a deck's reader is always the shape of the universal reader it starts from.
    """

    widths: tuple[int, ...] = (12, 24, 48)
    hidden: int = 96

    def __post_init__(self) -> None:
        w, h = INPUT_SIZE
        if not self.widths or min(*self.widths, self.hidden) < 1:
            raise ValueError(f"not a network shape: {self}")
        if min(w, h) >> len(self.widths) < 1:
            raise ValueError(f"{len(self.widths)} poolings leave nothing of a {w}x{h} window")

    @classmethod
    def of(cls, params: Mapping[str, Array]) -> NetShape:
        """The shape of trained weights (`c0w`, `c1w`, ... and `dw`, as `_init` names them)."""
        widths: list[int] = []
        while f"c{len(widths)}w" in params:
            widths.append(int(params[f"c{len(widths)}w"].shape[0]))
        return cls(tuple(widths), int(params["dw"].shape[1]))

    def flat(self) -> int:
        """Inputs of the dense layer: the last convolution's channels times its pooled cells."""
        w, h = INPUT_SIZE
        return self.widths[-1] * (h >> len(self.widths)) * (w >> len(self.widths))


@dataclass(frozen=True, slots=True)
class Recipe:
    """How long and how hard to train: the real setting, or a quick one for tests."""

    epochs: int = 14
    batch: int = 128
    learning_rate: float = 3e-3
    weight_decay: float = 1e-4


def _init(
    rng: np.random.Generator, ranks: int, suits: int, shape: NetShape = NetShape()
) -> dict[str, Array]:
    """He-initialised weights, in ONNX's layouts (OIHW kernels, (in, out) dense matrices)."""
    params: dict[str, Array] = {}
    cin = CHANNELS
    for k, cout in enumerate(shape.widths):
        fan = cin * 9
        params[f"c{k}w"] = rng.normal(0, np.sqrt(2 / fan), (cout, cin, 3, 3)).astype(np.float32)
        params[f"c{k}b"] = np.zeros(cout, np.float32)
        cin = cout
    flat, hidden = shape.flat(), shape.hidden
    params["dw"] = rng.normal(0, np.sqrt(2 / flat), (flat, hidden)).astype(np.float32)
    params["db"] = np.zeros(hidden, np.float32)
    for name, n in (("r", ranks), ("s", suits)):
        params[f"{name}w"] = rng.normal(0, np.sqrt(1 / hidden), (hidden, n)).astype(np.float32)
        params[f"{name}b"] = np.zeros(n, np.float32)
    return params


MICRO_BATCHES = 2
"""Each step's batch is differentiated in this many equal parts and their gradients averaged:
the same gradient as the whole batch's (the loss is a mean), in less time on CPU, where XLA's
convolutions run faster on 64 windows than on 128 (`bench/training_step.py` times 1, 2 and 4
parts side by side)."""


def _forward(jnp: Any, lax: Any, depth: int) -> Callable[[dict[str, Any], Any], tuple[Any, Any]]:
    """The network of `depth` convolutions: (params, NCHW batch) -> (rank, suit logits).

    It computes what the ONNX graph computes (`to_onnx`: NCHW, OIHW kernels), but inside it
    runs channels-last: XLA's CPU convolutions and their gradients are faster in NHWC (a step
    of 128 windows: 0.27 s channels-first with `reduce_window` pooling, 0.19 s channels-last
    with the pooling a reshape, on this project's 2-core machine), and 2x2 max pooling written
    as a reshape differentiates without XLA's select-and-scatter. The activations go back to
    NCHW before the dense layer, so its weights keep ONNX's (channel, row, column) order.
    """

    def forward(params: dict[str, Any], x: Any) -> tuple[Any, Any]:
        x = jnp.transpose(x, (0, 2, 3, 1))
        for k in range(depth):
            x = lax.conv_general_dilated(
                x,
                params[f"c{k}w"],
                (1, 1),
                ((1, 1), (1, 1)),
                dimension_numbers=("NHWC", "OIHW", "NHWC"),
            )
            x = jnp.maximum(x + params[f"c{k}b"], 0.0)
            b, h, w, c = x.shape
            x = x[:, : h - h % 2, : w - w % 2].reshape(b, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))
        x = jnp.transpose(x, (0, 3, 1, 2)).reshape(x.shape[0], -1)
        x = jnp.maximum(x @ params["dw"] + params["db"], 0.0)
        return x @ params["rw"] + params["rb"], x @ params["sw"] + params["sb"]

    return forward


def probabilities(params: dict[str, Array], x: Array) -> tuple[Array, Array]:
    """The network's rank and suit probabilities for NCHW windows `x`, computed by JAX.

    What the exported ONNX graph must give for the same weights.
    """
    import jax
    import jax.numpy as jnp

    forward = _forward(jnp, jax.lax, len(NetShape.of(params).widths))
    rank, suit = forward({k: jnp.asarray(v) for k, v in params.items()}, x)
    return (
        np.asarray(jax.nn.softmax(rank, axis=-1), np.float32),
        np.asarray(jax.nn.softmax(suit, axis=-1), np.float32),
    )


def train(
    x: Array,
    rank_y: npt.NDArray[np.int64],
    suit_y: npt.NDArray[np.int64],
    ranks: int,
    suits: int,
    *,
    seed: int,
    recipe: Recipe = Recipe(),
    progress: Callable[[int, int], None] | None = None,
    init: dict[str, Array] | None = None,
    shape: NetShape | None = None,
    parts: int = MICRO_BATCHES,
) -> dict[str, Array]:
    """Fit the network on windows `x` (N, CHANNELS, H, W) and their class indices.

    `init` starts from trained weights (the shipped universal reader, which a deck's own
    references then fine-tune) instead of random ones, and the network takes their shape
    (`NetShape.of`); without `init` it is `shape` (default `NetShape()`), randomly initialised.
    A `shape` that is not `init`'s is a `ValueError`. Seeded: the same data and seed give the
    same weights. `progress(done, total)` is called after each epoch. `parts` is how many
    pieces each batch is differentiated in (`MICRO_BATCHES`; `bench/training_step.py` times
    others); a batch it does not divide is taken whole. Returns the weights as float32 arrays
    named as `to_onnx` expects.
    """
    import jax
    import jax.numpy as jnp
    import optax

    if init is not None:
        given, shape = shape, NetShape.of(init)
        if given is not None and given != shape:
            raise ValueError(f"the starting weights are {shape}, not {given}")
    shape = shape or NetShape()
    rng = np.random.default_rng(seed)
    first = _init(rng, ranks, suits, shape)
    if init is not None:
        wrong = {k for k, v in first.items() if k not in init or init[k].shape != v.shape}
        if wrong:
            raise ValueError(f"the starting weights do not fit the network: {sorted(wrong)}")
        first = {k: np.asarray(init[k], np.float32) for k in first}
    params = {k: jnp.asarray(v) for k, v in first.items()}
    steps_per_epoch = max(1, -(-len(x) // recipe.batch))
    schedule = optax.cosine_decay_schedule(
        recipe.learning_rate, recipe.epochs * steps_per_epoch, alpha=0.02
    )
    optimiser = optax.adamw(schedule, weight_decay=recipe.weight_decay)
    state = optimiser.init(params)
    forward = _forward(jnp, jax.lax, len(shape.widths))

    def loss(p: dict[str, Any], xb: Any, ry: Any, sy: Any) -> Any:
        lr, ls = forward(p, xb)
        return (
            optax.softmax_cross_entropy_with_integer_labels(lr, ry).mean()
            + optax.softmax_cross_entropy_with_integer_labels(ls, sy).mean()
        )

    parts = parts if parts > 0 and recipe.batch % parts == 0 else 1

    @jax.jit
    def step(p: dict[str, Any], s: Any, xb: Any, ry: Any, sy: Any) -> tuple[Any, Any]:
        # Unrolled, not lax.scan: XLA runs convolutions inside a loop several times slower.
        size = recipe.batch // parts
        grad = jax.grad(loss)
        grads = jax.tree.map(lambda g: g / parts, grad(p, xb[:size], ry[:size], sy[:size]))
        for i in range(1, parts):
            part = slice(i * size, (i + 1) * size)
            g = grad(p, xb[part], ry[part], sy[part])
            grads = jax.tree.map(lambda a, b: a + b / parts, grads, g)
        updates, s = optimiser.update(grads, s, p)
        return optax.apply_updates(p, updates), s

    n = len(x)
    for epoch in range(recipe.epochs):
        order = rng.permutation(n)
        # Whole batches only: one compiled step shape (a ragged tail would compile again).
        for start in range(0, n - recipe.batch + 1, recipe.batch):
            idx = order[start : start + recipe.batch]
            params, state = step(params, state, x[idx], rank_y[idx], suit_y[idx])
        if progress is not None:
            progress(epoch + 1, recipe.epochs)
    return {k: np.asarray(v, np.float32) for k, v in params.items()}


def to_onnx(params: dict[str, Array], *, doc: str = "") -> bytes:
    """The trained network as a serialised ONNX model: input `window`, outputs `rank`, `suit`.

    Both outputs are probabilities (softmax in the graph), batch dimension free.
    """
    w, h = INPUT_SIZE
    return conv_net_onnx(
        params,
        graph="index_reader",
        input_name="window",
        input_shape=(CHANNELS, h, w),
        heads=(Head("rank", "r", softmax=True), Head("suit", "s", softmax=True)),
        doc=doc,
    )
