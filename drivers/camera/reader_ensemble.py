"""Several index readers of one deck read as one, window by window.

`ReaderEnsemble` combines readers trained from different seeds into one
`classify.IndexNetwork`, what the classifier needs of a reader.

A deck's reader is one training run; retrained from another seed it reads the same frames a
point of recall apart and makes other sure wrong reads (docs/camera-history.md, "Reader seeds
measured"). `ReaderEnsemble` runs every member on the same batch and combines their class
probabilities, so the classifier (`drivers.camera.classify`) reads it as it reads one
`IndexModel`:

- `MEAN`: the members' probabilities averaged, per head;
- `AGREE`: per head and class the least of the members' probabilities. A class at or over a
  bar of 0.5 or more is then every member's leading class at or over that bar, so a code reads
  only where every member reads it (the classifier's bars are all over 0.5).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from drivers.camera.classify import IndexNetwork
from drivers.camera.index_model import Array


class Combine(Enum):
    """How `ReaderEnsemble` combines its members' probabilities (module docstring)."""

    MEAN = "mean"
    AGREE = "agree"


def combine(rows: list[Array], how: Combine) -> Array:
    """The members' probability rows (each (N, classes)) combined into one (N, classes)."""
    stacked = np.stack(rows)
    out = stacked.mean(axis=0) if how is Combine.MEAN else stacked.min(axis=0)
    return np.asarray(out, np.float32)


@dataclass(frozen=True)
class ReaderEnsemble:
    """Readers of one deck (same class names) read as one `IndexNetwork`, combined by `how`."""

    members: tuple[IndexNetwork, ...]
    how: Combine

    def __post_init__(self) -> None:
        if not self.members:
            raise ValueError("an ensemble needs at least one reader")
        first = self.members[0]
        if any(m.ranks != first.ranks or m.suits != first.suits for m in self.members):
            raise ValueError("the readers of an ensemble must name the same classes")

    @property
    def ranks(self) -> tuple[str, ...]:
        """The members' rank class names."""
        return self.members[0].ranks

    @property
    def suits(self) -> tuple[str, ...]:
        """The members' suit class names."""
        return self.members[0].suits

    def probabilities(self, batch: Array) -> tuple[Array, Array]:
        """Every member's rank and suit probabilities for `batch`, combined by `how`."""
        answers = [m.probabilities(batch) for m in self.members]
        return (
            combine([r for r, _ in answers], self.how),
            combine([s for _, s in answers], self.how),
        )
