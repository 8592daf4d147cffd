"""Benchmark: settle one round for 1,000,000 players in one vectorised call.

Prints, for each game, the wall time and players per second of `settle_players` beside two
baselines measured in the same run: the scalar `settle` per player (timed on a sample and
extrapolated) and a plain numpy pass over the same arrays (one multiply-add per bet: the
floor set by memory traffic). Target from the issue: under 1 s for 1,000,000 players.

    .venv/bin/python bench/settle.py [--players N] [--repeat R]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from studio.cards import parse_cards
from studio.games import decision_paths, get_rules, judge
from studio.games.batch import settle_players
from studio.games.settlement import JackpotPool, settle

ROUNDS = {
    # game, variant, cards in position order, placed bets, decision lists by path index
    "caribbean-stud live": (
        "caribbean-stud", "live", "8C 8D 8H KD 2D AC KH 4S 3S 2C",
        ("ante", "bonus", "jackpot"), [("call",), ("fold",)],
    ),
    "caribbean-stud classic": (
        "caribbean-stud", "classic", "8C 8D 8H KD 2D AC KH 4S 3S 2C",
        ("ante", "bonus"), [("call",), ("fold",)],
    ),
    "ultimate-holdem live": (
        "ultimate-holdem", "live", "AH 2H QC QD KH 9H 4H 3C 7S",
        ("ante", "trips"),
        [("preflop=play4x",), ("preflop=play3x",), ("flop=play2x",),
         ("river=play1x",), ("river=fold",)],
    ),
}  # fmt: skip


def best_of(repeat: int, work: Callable[[], object]) -> float:
    """The fastest of `repeat` timings of `work()`, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_round(label: str, n: int, repeat: int, sample_size: int) -> None:
    """Time one round's settlement for `n` random players and print the three figures."""
    game, variant, codes, placed, decisions = ROUNDS[label]
    rng = np.random.default_rng(2026)
    rules = get_rules(game, variant)
    judgement = judge(rules, dict(zip(rules.positions, parse_cards(codes), strict=True)))
    limit = {b.name: b.max_stake for b in rules.bets}
    stakes = {}
    for name in placed:
        top = limit[name]
        high = 10_000 if top is None else int(top * 100)
        stakes[name] = rng.integers(1 if name == "ante" else 0, high, n)
    paths = rng.integers(0, len(decision_paths(rules)), n).astype(np.int8)
    pool = None
    if "jackpot" in stakes:
        pool = JackpotPool(Fraction(250_000), Fraction(int(stakes["jackpot"].sum()), 100))

    def vectorised() -> object:
        return settle_players(rules, judgement, stakes, paths, pool)

    def plain() -> object:
        total = np.zeros(n, dtype=np.int64)
        for values in stakes.values():
            total += values * 2
        return total

    k = min(sample_size, n)
    sample = [
        ({name: Fraction(int(v[i]), 100) for name, v in stakes.items()}, decisions[paths[i]])
        for i in range(k)
    ]

    def scalar() -> object:
        return [settle(rules, judgement, bets, chosen, pool) for bets, chosen in sample]

    vector = best_of(repeat, vectorised)
    floor = best_of(repeat, plain)
    per_player = best_of(1, scalar) / k
    rows = [
        ("settle_players (vectorised)", vector),
        (f"scalar settle x {n:,} (extrapolated)", per_player * n),
        ("plain numpy pass (floor)", floor),
    ]
    for method, seconds in rows:
        print(f"{label:<24}{method:<38}{seconds:>10.3f}{n / seconds:>16,.0f}")
    print(f"{'':<24}{'speed-up over scalar':<38}{per_player * n / vector:>9.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scalar-sample", type=int, default=2_000)
    args = parser.parse_args()
    print(f"players per round: {args.players:,}   (best of {args.repeat}; target under 1 s)")
    header = f"{'round':<24}{'method':<38}{'wall s':>10}{'players/s':>16}"
    print(header)
    print("-" * len(header))
    for label in ROUNDS:
        bench_round(label, args.players, args.repeat, args.scalar_sample)


if __name__ == "__main__":
    main()
