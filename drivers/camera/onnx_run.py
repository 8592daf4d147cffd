"""Running the camera's own networks: a session on one core, and batches a few rows at a time.

`one_core_session` is how the index-corner detector and the dense detector open their
models: the whole recognizer runs on one core, so a network must not spread over others
(the deck's reader, `index_model.IndexModel`, opens its own the same way: its module's source
keys every deck's trained model, so it is not edited to share this).

The detector (`index_corners.IndexCornerDetector`) takes any number of rows in one onnxruntime
call, and a frame hands it from a few to ~150 hypotheses at once. On one core a row costs more
in a long batch than in a short one (the layers' activations of a long batch outgrow the CPU's
caches): over the detector's calls of 30 cached tuning studio frames, replayed, 2.45 ms a frame
in whole batches and 1.9 in runs of 16 rows, each row's score the same to the bit
(`tests/test_camera_onnx_run.py`).

The deck's reader (`index_model.IndexModel`) is not run this way: in runs of 16 rows it read
the same on the cached tuning frames and on random inputs, but a rendered scene of the test
suite (a fan's 7S beside a back, `tests/test_camera_detect.py`) was no longer read, and why
was not found; whole batches are what its bars were chosen on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from importlib import resources
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from drivers.camera.errors import RecognizerConfigurationError

Array = npt.NDArray[Any]


BATCH_ROWS = 16
"""Rows of one onnxruntime call: on the calls above, runs of 8-32 rows cost the same, and
whole batches (up to 154 rows) about a quarter more."""


class Session(Protocol):
    """What is used of an `onnxruntime.InferenceSession`."""

    def run(self, output_names: Sequence[str] | None, input_feed: dict[str, Array]) -> list[Any]:
        """The outputs named (all when None) for the inputs fed."""
        ...


def checked_model(file: str, path: str | None, sha256: str, what: str, rebuild: str) -> bytes:
    """A model's bytes: the package's `models/file`, or the file at `path`, digest `sha256`.

    The camera's networks ship as package data and a model is never used silently: a missing
    file or another digest raises `RecognizerConfigurationError`, naming `what` the model is
    and the module that rebuilds it (`rebuild`, run with `python -m`).
    """
    try:
        data = (
            open(path, "rb").read()  # noqa: SIM115 - read whole, closed at once
            if path is not None
            else resources.files("drivers.camera").joinpath("models", file).read_bytes()
        )
    except OSError as err:
        raise RecognizerConfigurationError(f"{what}: {err}") from err
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise RecognizerConfigurationError(
            f"{what} digest {digest[:12]} is not the expected {sha256[:12]}: "
            f"rebuild it with python -m {rebuild}"
        )
    return data


def one_core_session(data: bytes) -> Session:
    """An onnxruntime session of the model `data` on the CPU, one thread within and between ops."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session: Session = onnxruntime.InferenceSession(
        data, options, providers=["CPUExecutionProvider"]
    )
    return session


def run_rows(
    session: Session, outputs: Sequence[str] | None, name: str, batch: Array
) -> list[Array]:
    """`session.run(outputs, {name: batch})`, `BATCH_ROWS` rows of `batch` at a time.

    The outputs come back as one array each, the rows in `batch`'s order; an empty batch is run
    once as it is.
    """
    if len(batch) <= BATCH_ROWS:
        return [np.asarray(o) for o in session.run(outputs, {name: batch})]
    parts = [
        session.run(outputs, {name: batch[k : k + BATCH_ROWS]})
        for k in range(0, len(batch), BATCH_ROWS)
    ]
    return [np.concatenate([np.asarray(p[n]) for p in parts]) for n in range(len(parts[0]))]
