"""The learned index reader: one index window in, a rank and a suit with probabilities out.

The window (cut exactly as the recognizer cuts it) is white-balanced on its paper and scaled to
`INPUT_SIZE` (`window_tensor`); a convolutional network trained at deck calibration from the
deck's own references (`calibration.corner_training`, `calibration.corner_net`) reads it into a
rank (13 ranks or "none") and a suit (4 suits or "none"). The network is an ONNX model run by
onnxruntime on one thread (a table shares its cores with the shoe, the bus and the journal).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[Any]

MODEL_VERSION = 2
"""The network's input and outputs this code reads; a profile's model of another version is
not used (the recognizer refuses the deck until it is calibrated again)."""
MIN_CONTRAST = 45.0
"""Paper minus ink, in grey levels; below it a window is blank, washed out or a card back, and
holds no print to read. Part of the network's input definition (the same at training and at
reading), not a rule on its answer; calibration's index finder shares it."""
INPUT_SIZE = (32, 48)
"""Width and height the index window is scaled to: a jumbo index and a small one alike fill
enough of it, and 48 rows keep a 90 px card's index at its own resolution."""
CHANNELS = 3
NONE = "-"
"""The class of a window that holds no index of this deck (blank, felt, a pip, a back)."""
Array = npt.NDArray[np.float32]


def window_tensor(window: Image) -> Array | None:
    """One index window (BGR) as the network's input: (CHANNELS, H, W) float32, ink positive.

    Each channel is white-balanced on the window's paper (a colour cast scales paper and ink
    alike, so only printed colour remains) and scaled by the window's contrast, so exposure
    does not matter. Returns None when the window holds too little contrast to hold any print
    (blank paper, plain felt, a washed-out corner): nothing to read there.
    """
    grey = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY)
    n = grey.size - 1
    low, high = round(0.02 * n), round(0.9 * n)
    part = np.partition(grey.ravel(), (low, high))
    ink, paper = float(part[low]), float(part[high])
    contrast = paper - ink
    if contrast < MIN_CONTRAST:
        return None
    paper_px = (grey >= paper - 10).astype(np.uint8)
    paper_bgr = np.array(cv2.mean(window, mask=paper_px)[:3], np.float32)
    small = cv2.resize(window, INPUT_SIZE, interpolation=cv2.INTER_AREA).astype(np.float32)
    balanced = small * (np.float32(paper) / np.maximum(paper_bgr, np.float32(1.0)))
    out = np.clip((paper - balanced) / contrast, -0.5, 1.5).transpose(2, 0, 1)
    return np.ascontiguousarray(out, np.float32)


@dataclass(frozen=True, slots=True)
class IndexGuess:
    """The network's answer for one window: rank and suit (or `NONE`) and their probabilities."""

    rank: str
    suit: str
    rank_p: float
    suit_p: float


@dataclass(frozen=True)
class IndexModel:
    """A trained network (`onnx`: the serialised ONNX model) and the names of its outputs.

    `ranks` and `suits` name the rank and suit head outputs (each ends with `NONE`). Build one
    with `calibration.corner_training.train_index_model`, or `load` a stored one.
    """

    ranks: tuple[str, ...]
    suits: tuple[str, ...]
    onnx: bytes
    _session: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        try:
            session = ort.InferenceSession(self.onnx, options, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own untyped errors for bad graphs
            raise ValueError(f"the index model is not a readable ONNX model: {err}") from err
        shapes = {o.name: o.shape for o in session.get_outputs()}
        if shapes.get("rank", [0, 0])[1] != len(self.ranks) or shapes.get("suit", [0, 0])[1] != len(
            self.suits
        ):
            raise ValueError(
                f"the index model's outputs {shapes} do not fit "
                f"{len(self.ranks)} ranks and {len(self.suits)} suits"
            )
        object.__setattr__(self, "_session", session)

    def probabilities(self, batch: Array) -> tuple[Array, Array]:
        """Rank and suit class probabilities for a batch (N, CHANNELS, H, W) of windows."""
        x = np.ascontiguousarray(batch, np.float32)
        if x.ndim == 3:
            x = x[None]
        rank, suit = self._session.run(["rank", "suit"], {"window": x})
        return np.asarray(rank, np.float32), np.asarray(suit, np.float32)

    def guesses(self, windows: Sequence[Image]) -> list[IndexGuess | None]:
        """The most likely rank and suit of each window; None for a window with no print."""
        tensors = [window_tensor(w) for w in windows]
        rows = [t for t in tensors if t is not None]
        if not rows:
            return [None] * len(windows)
        pr, ps = self.probabilities(np.stack(rows))
        out: list[IndexGuess | None] = []
        k = 0
        for t in tensors:
            if t is None:
                out.append(None)
                continue
            i, j = int(pr[k].argmax()), int(ps[k].argmax())
            out.append(IndexGuess(self.ranks[i], self.suits[j], float(pr[k, i]), float(ps[k, j])))
            k += 1
        return out

    def guess(self, window: Image) -> IndexGuess | None:
        """The most likely rank and suit of `window`; None when it holds no print to read."""
        return self.guesses([window])[0]


def weights_digest(model: IndexModel) -> str:
    """SHA-256 (hex) of the model's class names and ONNX bytes, to check a stored model."""
    digest = hashlib.sha256(repr((model.ranks, model.suits)).encode())
    digest.update(model.onnx)
    return digest.hexdigest()
