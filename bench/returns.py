"""Wall time of each exact return enumeration, with the figure it produced.

Each step runs cold in a fresh process (the ranker's 5-card sums are built by the first step and
reused, as in `studio rtp`):

* Jackpot: all 2,598,960 five-card sets;
* 5+1 Bonus: all 20,358,520 six-card sets;
* Trips: all 133,784,560 seven-card sets;
* Caribbean Stud dealer outcome counts: every player hand class x up card x dealer completion
  (target: the exact optimal-strategy return in under 60 s on the 2-core machine);
* the optimal-strategy returns of both Call tables from those counts.

    .venv/bin/python bench/returns.py [--json]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import TypeVar

from studio.games import get_rules
from studio.games.caribbean_stud import GAME
from studio.returns.caribbean import VARIANTS, main_game_return
from studio.returns.dealer_counts import compute_dealer_counts
from studio.returns.side_bets import bonus_return, jackpot_return, trips_return

T = TypeVar("T")


def timed(label: str, work: Callable[[], T], figures: dict[str, float]) -> tuple[T, float]:
    start = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - start
    figures[f"{label} seconds"] = seconds
    print(f"{label:<44} {seconds:8.2f} s")
    return result, seconds


def show(label: str, value: Fraction, figures: dict[str, float]) -> None:
    figures[label] = float(value)
    print(f"    {label:<40} {float(value):.6%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    figures: dict[str, float] = {}

    jackpot, _ = timed("jackpot: 5-card sets", jackpot_return, figures)
    show("jackpot fixed-prize return", jackpot.fixed, figures)
    show("jackpot pool feed", jackpot.pool_feed, figures)
    bonus, _ = timed("5+1 bonus: 6-card sets", bonus_return, figures)
    show("5+1 bonus return", bonus, figures)
    trips, _ = timed("trips: 7-card sets", trips_return, figures)
    show("trips return", trips, figures)

    live = get_rules(GAME, "live")
    assert live.qualifier is not None
    qualifier = live.qualifier
    table, counting = timed(
        "caribbean stud: dealer outcome counts", lambda: compute_dealer_counts(qualifier), figures
    )
    total = counting
    for variant in VARIANTS:
        rules = get_rules(GAME, variant)
        result, seconds = timed(
            f"caribbean stud {variant}: optimal returns",
            partial(main_game_return, table, rules),
            figures,
        )
        total += seconds
        show(f"{variant} per ante", result.per_ante, figures)
        show(f"{variant} per total bet", result.per_total, figures)
    figures["caribbean stud exact total seconds"] = total
    print(f"{'caribbean stud exact, counts + both variants':<44} {total:8.2f} s (target < 60 s)")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
