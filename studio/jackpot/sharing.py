"""The jackpot's arithmetic in integer minor units (cents), without I/O.

Every Jackpot bet feeds the pool by `contribution(amount, rate)`, rounded down to the minor unit.
A royal flush claims a share of the pool "based on the Jackpot bets placed in that round across
all participating tables": the rounds posted in the same window (across tables) are its
denominator, so a royal round with Jackpot bets J in a window whose rounds bet W claims
floor(pool * J / W). Several royals in one window each claim their own share of the same pool
(two royals at two tables at the same moment share it, neither first). What no royal claims
(the other rounds' part and the rounding residue) is carried into the pool, which restarts from
its seed plus that carry: money never disappears from the accounts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from studio.errors import InputError


def contribution(amount: int, rate: Fraction) -> int:
    """What `amount` minor units of Jackpot bets add to the pool at `rate` (0..1), rounded down."""
    if amount < 0:
        raise InputError(f"a Jackpot amount cannot be negative, got {amount}")
    if not 0 <= rate <= 1:
        raise InputError(f"the contribution rate must be from 0 to 1, got {rate}")
    return int(amount * rate)  # int() of a non-negative Fraction rounds down


@dataclass(frozen=True)
class Claim:
    """The outcome of a window with royals: each royal round's share and the pool after."""

    shares: dict[str, int]
    carry: int
    pool_after: int


def claim(pool: int, window_bets: int, royals: Mapping[str, int], seed: int) -> Claim:
    """Share `pool` among the `royals` (game number -> its Jackpot bets) of one window.

    `window_bets` is the Jackpot bets of every round in the window, royals included; a royal
    round without Jackpot bets claims nothing (the pool is left as it is if no round wins). Raises
    InputError when the royals bet more than the window did or an amount is negative.
    """
    if pool < 0 or seed < 0 or any(v < 0 for v in royals.values()):
        raise InputError("pool, seed and Jackpot bets cannot be negative")
    total = sum(royals.values())
    if total > window_bets:
        raise InputError(f"the royals bet {total}, more than their window's {window_bets}")
    winners = {game: bet for game, bet in royals.items() if bet > 0}
    if not winners:  # a royal nobody bet the Jackpot on wins nothing and restarts nothing
        return Claim({}, pool, pool)
    shares = {game: pool * bet // window_bets for game, bet in winners.items()}
    carry = pool - sum(shares.values())
    return Claim(shares, carry, seed + carry)
