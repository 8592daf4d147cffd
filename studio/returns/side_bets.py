"""Exact returns of the side bets: Caribbean Stud's 5+1 Bonus and Jackpot, Hold'em's Trips.

Each side bet is judged on the best five cards of a set of cards that every deal makes equally
likely, so its return follows from how many of all C(52, n) sets fall in each category
(`studio.ranker.all_category_counts`):

* 5+1 Bonus: the player's five cards and the dealer's up card, n = 6 (20,358,520 sets);
* Trips: the player's two cards and the five community cards, n = 7 (133,784,560 sets);
* Jackpot: the player's five cards, n = 5 (2,598,960 sets).

An odds table (X:1) returns the stake and X times it on a win; the Jackpot's fixed prizes are paid
"for one" (no stake back), and its royal flush is paid from a progressive pool that pays out what
it takes in, so the share of each bet fed to the pool is the royal's return.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
import numpy.typing as npt

from studio.games import caribbean_stud, get_rules, ultimate_holdem
from studio.games.judgement import paytable_resolution
from studio.games.model import Paytable
from studio.hands import Category, HandValue, pack
from studio.ranker import Progress, all_category_counts
from studio.returns.report import ReturnRow


@dataclass(frozen=True, slots=True)
class JackpotReturn:
    """The Jackpot's exact fixed-prize return and the pool feed that the published figure implies.

    `fixed` is the expected fixed prize per unit bet; `pool_feed` is the share of each bet that
    must go to the progressive pool for the bet to return `published` (= fixed + pool_feed).
    """

    fixed: Fraction
    pool_feed: Fraction
    published: Fraction


def paytable_return(counts: Sequence[int] | npt.NDArray[np.int64], paytable: Paytable) -> Fraction:
    """The exact return per unit bet of `paytable` given how many card sets fall in each category.

    `counts` is indexed by `Category` (ten entries); every set is taken as equally likely. Each
    category returns what settlement returns (`studio.games.judgement.paytable_resolution`):
    odds X:1 bring the stake back, fixed prizes are paid for one, and categories paid from a
    progressive pool count as nothing here. Raises `ValueError` for a counts list of another
    length or with no sets.
    """
    per_category = [int(n) for n in counts]
    if len(per_category) != len(Category) or sum(per_category) <= 0:
        raise ValueError(f"need ten category counts with a positive total, got {per_category}")
    # Judge each category as the table settles it, so a return can never disagree with a payout.
    paid = sum(
        (n * paytable_resolution(paytable, HandValue(pack(cat, []))).returned
         for cat, n in zip(Category, per_category, strict=True)),
        Fraction(0),
    )  # fmt: skip
    return paid / sum(per_category)


def bonus_return(progress: Progress | None = None) -> Fraction:
    """The exact return of the 5+1 Bonus (best five of six cards) per unit bet.

    `progress(done, total)` reports the enumeration of all 6-card sets.
    """
    paytable = get_rules(caribbean_stud.GAME, "live").paytables["bonus"]
    return paytable_return(all_category_counts(6, progress), paytable)


def trips_return(progress: Progress | None = None) -> Fraction:
    """The exact return of Ultimate Hold'em's Trips (best five of seven cards) per unit bet.

    `progress(done, total)` reports the enumeration of all 7-card sets.
    """
    paytable = get_rules(ultimate_holdem.GAME).paytables["trips"]
    return paytable_return(all_category_counts(7, progress), paytable)


def jackpot_return(progress: Progress | None = None) -> JackpotReturn:
    """The Jackpot's exact fixed-prize return and the pool feed implied by the published return.

    `progress(done, total)` reports the enumeration of all 5-card sets.
    """
    rules = get_rules(caribbean_stud.GAME, "live")
    fixed = paytable_return(all_category_counts(5, progress), rules.paytables["jackpot"])
    published = rules.published_returns["jackpot/bet"]
    return JackpotReturn(fixed=fixed, pool_feed=published - fixed, published=published)


def side_bet_rows(progress: Progress | None = None) -> list[ReturnRow]:
    """The side-bet rows of `studio rtp`: 5+1 Bonus per Caribbean variant, Jackpot, Trips.

    `progress(done, total)` reports the enumerations together, counted in card sets.
    """
    sizes = (6, 5, 7)
    total = sum(comb(52, n) for n in sizes)
    offsets = [sum(comb(52, n) for n in sizes[:i]) for i in range(len(sizes))]
    step = [_shifted(progress, offset, total) for offset in offsets]
    bonus = bonus_return(step[0])
    jackpot = jackpot_return(step[1])
    trips = trips_return(step[2])
    rows = [
        _row(caribbean_stud.GAME, variant, "bonus", bonus, "best five of the player's five "
             "and the dealer's up card, all 20,358,520 six-card sets")
        for variant in ("live", "classic")
    ]  # fmt: skip
    rows.append(
        ReturnRow(
            game=caribbean_stud.GAME,
            variant="live",
            bet="jackpot",
            basis="bet",
            computed=float(jackpot.fixed),
            published=float(jackpot.published),
            method="exact",
            note=(
                f"fixed prizes only; the progressive pool must take {float(jackpot.pool_feed):.3%}"
                " of each Jackpot bet to reach the published return"
            ),
            pool_feed=float(jackpot.pool_feed),
        )
    )
    rows.append(
        _row(ultimate_holdem.GAME, "live", "trips", trips,
             "best five of seven cards, all 133,784,560 seven-card sets")
    )  # fmt: skip
    return rows


def _row(game: str, variant: str, bet: str, computed: Fraction, note: str) -> ReturnRow:
    """A side-bet row with its published figure, looked up as `<bet>/bet` in the game's rules."""
    published = get_rules(game, variant).published_returns.get(f"{bet}/bet")
    return ReturnRow(
        game=game,
        variant=variant,
        bet=bet,
        basis="bet",
        computed=float(computed),
        published=None if published is None else float(published),
        method="exact",
        note=note,
    )


def _shifted(progress: Progress | None, offset: int, total: int) -> Progress | None:
    """A callback that reports one enumeration's progress as part of a larger total."""
    if progress is None:
        return None
    report = progress

    def shifted(done: int, _total: int) -> None:
        report(offset + done, total)

    return shifted
