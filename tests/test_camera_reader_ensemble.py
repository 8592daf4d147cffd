"""Readers of several training seeds read as one (`drivers.camera.reader_ensemble`).

The agreement ensemble must never name a code one of its readers does not name over the same
bar, and the classifier must read through the ensemble it is given instead of the deck's reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from camera_support import deck_profile, index_windows
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from drivers.camera.classify import IndexClassifier, IndexNetwork
from drivers.camera.index_model import Array
from drivers.camera.reader_ensemble import Combine, ReaderEnsemble
from drivers.camera.synthetic.generator import SceneStyle

CLASSES = 5


@dataclass(frozen=True)
class Fixed:
    """A reader that answers every batch with the same rows (one per window)."""

    rank: Array
    suit: Array
    ranks: tuple[str, ...] = ("A", "2", "3", "4", "-")
    suits: tuple[str, ...] = ("S", "H", "D", "C", "-")

    def probabilities(self, batch: Array) -> tuple[Array, Array]:
        return self.rank, self.suit


def _softmax(logits: npt.NDArray[np.float64]) -> Array:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


logit_rows = arrays(np.float64, (3, CLASSES), elements=st.floats(-12, 12))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(logit_rows, logit_rows), min_size=1, max_size=4), st.floats(0.5, 1.0))
def test_agreement_names_only_what_every_reader_names_over_the_bar(
    members: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]], bar: float
) -> None:
    readers = [Fixed(_softmax(r), _softmax(s)) for r, s in members]
    rank, suit = ReaderEnsemble(tuple(readers), Combine.AGREE).probabilities(
        np.zeros((3, 3, 48, 32), np.float32)
    )
    for head, rows in ((rank, [r.rank for r in readers]), (suit, [r.suit for r in readers])):
        for w in range(3):
            lead = int(head[w].argmax())
            everyone = all(m[w, lead] >= bar for m in rows)
            # Over the bar exactly when every reader is: no code any reader doubts reads.
            assert (head[w, lead] >= bar) == everyone
            if everyone:
                assert all(int(m[w].argmax()) == lead or m[w].max() == m[w, lead] for m in rows)


def test_readers_of_other_classes_are_refused() -> None:
    one = Fixed(np.ones((1, CLASSES), np.float32), np.ones((1, CLASSES), np.float32))
    other = Fixed(one.rank, one.suit, ranks=("K", "Q", "J", "T", "-"))
    with pytest.raises(ValueError, match="same classes"):
        ReaderEnsemble((one, other), Combine.MEAN)


@dataclass(frozen=True)
class OneRankOff:
    """The deck's reader with every window's rank taken for the next rank class."""

    reader: IndexNetwork

    @property
    def ranks(self) -> tuple[str, ...]:
        return self.reader.ranks

    @property
    def suits(self) -> tuple[str, ...]:
        return self.reader.suits

    def probabilities(self, batch: Array) -> tuple[Array, Array]:
        rank, suit = self.reader.probabilities(batch)
        moved = rank.copy()
        moved[:, :-1] = np.roll(rank[:, :-1], 1, axis=1)  # "none" stays where it is
        return moved, suit


CLEAR = SceneStyle(card_px=(150.0, 200.0), p_row=0.0, chips=(0, 0), glares=(0, 0), cards=(4, 6))


def _codes(classifier: IndexClassifier, corners: list[tuple[str, npt.NDArray[Any]]]) -> list[Any]:
    return [r.code if r else None for r in classifier.read_all([(w, False) for _, w in corners])]


def test_the_classifier_reads_through_the_ensemble_it_is_given() -> None:
    profile, templates = deck_profile("classic")
    deck, model = profile.deck, templates.model
    assert deck is not None and model is not None
    corners = index_windows("classic", CLEAR, 3, seed=71)
    alone = _codes(IndexClassifier(deck, templates), corners)
    twice = ReaderEnsemble((model, model), Combine.AGREE)
    disputed = ReaderEnsemble((model, OneRankOff(model)), Combine.AGREE)
    read = [c for c in alone if c is not None]
    assert len(read) >= 0.8 * len(corners)
    # Two copies of one reader agree everywhere: the same reads.
    assert _codes(IndexClassifier(deck, templates, network=twice), corners) == alone
    # A second reader that takes every rank for another: nothing is sure enough to read.
    assert _codes(IndexClassifier(deck, templates, network=disputed), corners) == [None] * len(
        corners
    )
