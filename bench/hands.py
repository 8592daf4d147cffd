"""Hand evaluation throughput: ours beside the phevaluator oracle, measured in the same run.

Prints hands per second for single scalar calls and for bulk ranking of random hands, and the wall
time of ranking all 133,784,560 seven-card hands (target under 15 s on the 2-core machine).

    python bench/hands.py [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from phevaluator import evaluate_cards

from studio.cards import DECK
from studio.hands import evaluate
from studio.ranker import all_category_counts, rank_hands


def per_second(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    figures: dict[str, float] = {}

    for size in (5, 7):
        hands = np.argsort(rng.random((200_000, 52)), axis=1)[:, :size]
        cards = [[DECK[i] for i in row] for row in hands[:20_000].tolist()]
        ints = hands[:20_000].tolist()

        t = time.perf_counter()
        for row in cards:
            evaluate(row)
        figures[f"scalar{size}_per_s"] = per_second(len(cards), time.perf_counter() - t)

        t = time.perf_counter()
        for row in ints:
            evaluate_cards(*row)
        figures[f"oracle_scalar{size}_per_s"] = per_second(len(ints), time.perf_counter() - t)

        rank_hands(hands[:10])  # build the lookup tables outside the timing
        t = time.perf_counter()
        rank_hands(hands)
        figures[f"bulk{size}_per_s"] = per_second(len(hands), time.perf_counter() - t)

    t = time.perf_counter()
    counts = all_category_counts(7)
    figures["all_seven_card_hands_s"] = time.perf_counter() - t
    figures["all_seven_card_hands_per_s"] = per_second(
        int(counts.sum()), figures["all_seven_card_hands_s"]
    )

    for size in (5, 7):
        print(
            f"{size}-card: scalar {figures[f'scalar{size}_per_s']:>12,.0f}/s   "
            f"oracle scalar {figures[f'oracle_scalar{size}_per_s']:>12,.0f}/s   "
            f"bulk {figures[f'bulk{size}_per_s']:>14,.0f}/s"
        )
    print(
        f"all 133,784,560 seven-card hands ranked in {figures['all_seven_card_hands_s']:.2f} s "
        f"({figures['all_seven_card_hands_per_s']:,.0f}/s; target under 15 s)"
    )
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
