"""The index-corner detector scores a long batch a few rows at a time, each row as if alone.

It scores random hypotheses on a blurred noise frame; each row's score equals that row's scored
by itself, to the bit, however many rows the batch holds (`onnx_run.run_rows` splits it into
calls of `BATCH_ROWS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.camera import index_corners
from drivers.camera.index_corners import shipped_detector
from drivers.camera.onnx_run import BATCH_ROWS


class _Counting:
    """A session that records how many rows each call to it held."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.rows: list[int] = []

    def run(self, outputs: Sequence[str] | None, feed: dict[str, npt.NDArray[Any]]) -> list[Any]:
        self.rows.extend(len(v) for v in feed.values())
        return list(self.session.run(outputs, feed))


def _frame(seed: int) -> npt.NDArray[Any]:
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 256, (300, 400), dtype=np.uint8)
    out: npt.NDArray[Any] = cv2.GaussianBlur(noise, (5, 5), 1.5)
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3 * BATCH_ROWS + 5))
def test_the_detector_scores_a_long_batch_as_each_hypothesis_alone(seed: int, count: int) -> None:
    gray = _frame(seed)
    quads = index_corners.random_hypotheses(
        np.random.default_rng(seed), count, (400, 300), (60, 400), reach=40
    )
    detector = shipped_detector()
    together = detector.scores(gray, quads)
    alone = np.concatenate([detector.scores(gray, [q]) for q in quads])
    assert np.array_equal(together, alone)


def test_a_frame_of_many_hypotheses_is_scored_a_few_rows_per_call() -> None:
    gray = _frame(5)
    quads = index_corners.random_hypotheses(
        np.random.default_rng(5), 2 * BATCH_ROWS + 3, (400, 300), (60, 400), reach=40
    )
    detector = index_corners.IndexCornerDetector()
    counting = _Counting(detector._session)
    detector._session = counting
    detector.scores(gray, quads)
    assert counting.rows == [BATCH_ROWS, BATCH_ROWS, 3]
