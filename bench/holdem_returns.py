"""Benchmark the Ultimate Texas Hold'em main-game return: wall times and boards per second.

    .venv/bin/python bench/holdem_returns.py            # everything (about 4 minutes)
    .venv/bin/python bench/holdem_returns.py --quick    # throughput and a small simulation only

Each board stands for 1081 hole pairs x 990 dealer pairs (x 10 flop splits for decisions).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from studio.games import get_rules
from studio.ranker import combinations_array
from studio.returns.holdem import (
    HoldemReturn,
    exact_return,
    simulated_return,
    strategy_return,
)
from studio.returns.holdem_boards import canonical_boards, random_boards
from studio.returns.holdem_play import board_figures
from studio.returns.holdem_showdown import DEALER_HANDS, HOLES, showdown
from studio.returns.holdem_situations import hole_class, hole_class_name, situation_table
from studio.returns.holdem_strategy import preflop_play

T = TypeVar("T")


def timed(label: str, run: Callable[[], T], boards: int | None = None) -> T:
    start = time.perf_counter()
    result = run()
    wall = time.perf_counter() - start
    rate = f", {boards / wall:,.0f} boards/s" if boards else ""
    print(f"{label}: {wall:.2f} s{rate}", flush=True)
    return result


def report(label: str, result: HoldemReturn) -> None:
    published = get_rules("ultimate-holdem").published_returns
    ante, total = float(published["main/ante"]), float(published["main/total"])
    ci = ""
    if result.per_ante_ci and result.on_total_ci:
        lo, hi = result.per_ante_ci
        tlo, thi = result.on_total_ci
        ci = f"  95% CI ante [{lo:.4%}, {hi:.4%}] total [{tlo:.4%}, {thi:.4%}]"
    print(
        f"  {label}: per Ante {result.per_ante:.4%} (published {ante:.2%}), "
        f"on total bet {result.on_total:.4%} (published {total:.2%}){ci}\n"
        f"    mean wager {result.mean_wager:.4f} Antes; Blind bonus {result.blind_bonus:.5f}; "
        f"4x {result.preflop:.4f}, 2x {result.flop:.4f}, 1x {result.river:.4f}, "
        f"fold {result.fold:.4f}; Blind given up by folds {result.blind_forfeited:.2e}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the full enumerations")
    parser.add_argument("--samples", type=int, default=2000, help="boards in the simulation")
    args = parser.parse_args()

    boards = random_boards(np.random.default_rng(1), 1024)
    showdown(boards[:4])
    timed("showdown, 1024 boards", lambda: showdown(boards), len(boards))
    print(f"  = {len(boards) * HOLES * DEALER_HANDS:,} (hole pair, dealer pair) settlements")
    timed("strategy figures, 1024 boards", lambda: board_figures(boards), len(boards))
    result = timed(
        f"simulation, {args.samples} boards",
        lambda: simulated_return(args.samples, seed=2026),
        args.samples,
    )
    report("simple strategy, simulated", result)
    if args.quick:
        return

    count = len(timed("canonical boards", lambda: canonical_boards()[0]))
    table = timed("flop situation classes", situation_table)
    print(f"  {table.count:,} classes covering {int(table.size.sum()):,} (hole pair, flop)")
    report("simple strategy, exact", timed("exact, simple strategy", strategy_return, count))
    best = timed("exact, optimal play", exact_return, count)
    report("optimal play, exact", best)
    print_preflop(best)


def print_preflop(best: HoldemReturn) -> None:
    pairs = combinations_array(52, 2).astype(np.intp)
    _, first = np.unique(hole_class(pairs[:, 0], pairs[:, 1]), return_index=True)
    simple = preflop_play(pairs[first, 0], pairs[first, 1])
    optimal = np.array(best.preflop_multiples) > 0
    raised = [hole_class_name(k) for k in range(169) if optimal[k]]
    print(f"  optimal pre-flop 4x with {len(raised)} of 169 starting hands: {' '.join(raised)}")
    differ = [hole_class_name(k) for k in range(169) if optimal[k] != simple[k]]
    print(f"  differs from the simple strategy on: {' '.join(differ) or 'no starting hand'}")


if __name__ == "__main__":
    main()
