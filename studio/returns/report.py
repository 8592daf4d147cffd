"""One row of the returns report that `studio rtp` prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ReturnRow:
    """A computed return beside the published figure.

    `bet` is `main`, `bonus`, `jackpot` or `trips`; `basis` is what the return is a fraction of
    (`ante`, `total` main bet, or the side `bet` itself); returns are fractions (0.9144), and
    `ci95` is the 95% confidence interval of a simulated figure (None when exact);
    `pool_feed` is, for a progressive bet, the share of each bet the pool must take to reach the
    published return (the pool pays out what it takes in, so that share is the royal's return).
    """

    game: str
    variant: str
    bet: str
    basis: str
    computed: float
    published: float | None
    method: str
    ci95: tuple[float, float] | None = None
    note: str = ""
    pool_feed: float | None = None

    @property
    def difference(self) -> float | None:
        """Computed minus published, or None where nothing is published."""
        return None if self.published is None else self.computed - self.published

    def to_json(self) -> dict[str, Any]:
        """The row as the JSON object of `studio rtp --json`."""
        data = asdict(self)
        data["ci95"] = list(self.ci95) if self.ci95 is not None else None
        return data
