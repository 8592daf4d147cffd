"""The shipped universal index reader: a deck-agnostic start for every deck's own reader.

A network of the deck reader's own shape (`calibration.corner_net`), trained offline on index
windows of many generated designs of the tuning side (`drivers.camera.index_reader_training`
rebuilds it; never a test design), reads rank and suit of an index in any of those typefaces,
sizes and placements. `studio calibrate deck` starts the deck's reader from its weights and
fine-tunes them on the deck's own 52 references, so the deck's reader knows what an index is
before it sees this deck. The model ships as package data; its SHA-256 is checked at load and
a mismatch is a `CalibrationError`, never a silent model.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import numpy as np

from calibration.errors import CalibrationError
from drivers.camera.index_model import Array

MODEL_PATH = Path(__file__).parent / "models" / "index_reader.onnx"
MODEL_SHA256 = "756211e32602ed5c3d1d390e300a81dc37056cf389f1df2fea978abb344086de"
"""The digest of the shipped model (`python -m drivers.camera.index_reader_training` prints it)."""


@cache
def universal_weights() -> dict[str, Array] | None:
    """The shipped universal reader's weights by name, or None when the package ships none.

    Raises `CalibrationError` when the file is there but is not the one this code was built
    with (its SHA-256 differs from `MODEL_SHA256`).
    """
    if not MODEL_PATH.exists():
        return None
    data = MODEL_PATH.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MODEL_SHA256:
        raise CalibrationError(
            f"{MODEL_PATH}: SHA-256 {digest} is not the shipped universal reader's "
            f"{MODEL_SHA256}: rebuild it (python -m drivers.camera.index_reader_training)"
        )
    return onnx_weights(data)


def onnx_weights(data: bytes) -> dict[str, Array]:
    """The initializers of an ONNX model written by `corner_net.to_onnx`, by name."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load_from_string(data)
    return {
        t.name: np.asarray(numpy_helper.to_array(t), np.float32) for t in model.graph.initializer
    }
