"""Vectorised settlement: one round's whole player list in one call, with numpy.

All players share the round's cards, so the `Judgement` is computed once and each player's
bets settle by table lookup on their decision path. The contract:

* amounts are int64 **cents** (minor units), stakes in and amounts returned out;
* `paths` holds each player's decision path as an index into `decision_paths(rules)`
  (`path_codes` turns decision lists into these indices);
* every amount is rounded down to the cent exactly as `studio.games.settlement.settle` does, so
  the two agree to the cent, player by player, caps included;
* bad input (an unknown bet, a negative stake, a stake over its limit, a missing Ante, a
  refused path) raises the same error classes as the scalar settlement, naming the first
  offending player's index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from studio.errors import ConfigurationError, InputError, RuleError
from studio.games.judgement import (
    OUTCOMES,
    Judgement,
    Resolution,
    decision_paths,
    decision_stake,
)
from studio.games.model import GameRules
from studio.games.settlement import JackpotPool, decision_path

Cents = npt.NDArray[np.int64]
Codes = npt.NDArray[np.int8]
Flags = npt.NDArray[np.bool_]
NOT_PLACED = -1
"""The outcome code of a bet a player did not place."""
_OUTCOME = {name: code for code, name in enumerate(OUTCOMES)}


@dataclass(frozen=True, slots=True)
class BatchSettlement:
    """The settled round for N players, per bet name (every bet of the game, in rules order).

    `stakes` and `returned` are int64 cents (0 where a bet is not placed); `outcomes` are
    indices into `studio.games.judgement.OUTCOMES` (`NOT_PLACED` where a bet is not placed);
    `capped` marks amounts a table limit reduced.
    """

    stakes: dict[str, Cents]
    returned: dict[str, Cents]
    outcomes: dict[str, Codes]
    capped: dict[str, Flags]

    @property
    def total_stake(self) -> Cents:
        """Each player's total stake, in cents."""
        return _sum(self.stakes.values())

    @property
    def total_returned(self) -> Cents:
        """Each player's total amount returned (stakes included), in cents."""
        return _sum(self.returned.values())


def _sum(arrays: Iterable[Cents]) -> Cents:
    """The element-wise sum of int64 arrays of one length."""
    parts = list(arrays)
    total: Cents = np.zeros_like(parts[0]) if parts else np.zeros(0, dtype=np.int64)
    for part in parts:
        total += part
    return total


def path_codes(
    rules: GameRules, judgement: Judgement, decisions: Sequence[Sequence[str]]
) -> npt.NDArray[np.int8]:
    """Each player's decision list as an index into `decision_paths(rules)`.

    Missing decisions get the automatic action, as in scalar settlement; each distinct list is
    parsed once. Raises `RuleError` for an illegal list (naming the player's index).
    """
    names = decision_paths(rules)
    seen: dict[tuple[str, ...], int] = {}
    codes = np.empty(len(decisions), dtype=np.int8)
    for i, given in enumerate(decisions):
        key = tuple(given)
        if key not in seen:
            try:
                seen[key] = names.index(decision_path(rules, key, judgement.refused))
            except RuleError as err:
                raise RuleError(f"player {i}: {err}") from err
        codes[i] = seen[key]
    return codes


def settle_players(
    rules: GameRules,
    judgement: Judgement,
    stakes: Mapping[str, npt.ArrayLike],
    paths: npt.ArrayLike,
    jackpot: JackpotPool | None = None,
) -> BatchSettlement:
    """Settle N players of one judged round in one vectorised pass.

    `stakes` maps the bets players place (ante, side bets; the Blind may be given and must
    equal the Ante) to length-N integer arrays of cents; `paths` is a length-N array of path
    indices (see `path_codes`). Returns every bet's stakes, amounts returned, outcomes and cap
    flags. Raises `RuleError`, `InputError` or `ConfigurationError` as scalar settlement does.
    """
    if (judgement.game, judgement.variant) != (rules.game, rules.variant):
        raise ConfigurationError(
            f"a {judgement.game} {judgement.variant} judgement cannot settle "
            f"{rules.game} {rules.variant} bets"
        )
    names = decision_paths(rules)
    code = _path_array(paths, len(names), judgement)
    placed = _stake_arrays(rules, stakes, len(code))
    _check_side_bets(rules, placed)
    ante = placed["ante"]
    multiple = _path_multiples(rules, names)
    result = BatchSettlement({}, {}, {}, {})
    for spec in rules.bets:
        if spec.placed == "decision":
            stake = ante * multiple[code]
        elif spec.placed == "automatic":
            stake = ante
        else:
            stake = placed.get(spec.name, np.zeros_like(ante))
        _check_limit(rules, spec.name, stake)
        outcome: int | Codes
        if spec.name in judgement.side_bets:
            amount, outcome = _side_bet(judgement.side_bets[spec.name], stake, jackpot)
        else:
            amount, outcome = _main_bet(judgement, names, spec.name, stake, code)
        capped = np.zeros(len(stake), dtype=np.bool_)
        if spec.max_win is not None:
            limit = _cents(spec.max_win, f"the {spec.name} win limit")
            capped = amount > limit
            amount = np.minimum(amount, limit)
        result.stakes[spec.name] = stake
        result.returned[spec.name] = amount
        result.outcomes[spec.name] = np.where(stake > 0, outcome, NOT_PLACED).astype(np.int8)
        result.capped[spec.name] = capped
    if rules.round_win_cap is not None:
        _apply_round_cap(result, _cents(rules.round_win_cap, "the round win cap"))
    return result


def _path_array(paths: npt.ArrayLike, count: int, judgement: Judgement) -> npt.NDArray[np.intp]:
    """The path indices as an index array; raises for a bad index or a refused path."""
    code = np.asarray(paths)
    if code.ndim != 1 or not np.issubdtype(code.dtype, np.integer):
        raise InputError("paths must be a one-dimensional array of path indices")
    if code.size and (code.min() < 0 or code.max() >= count):
        first = int(np.flatnonzero((code < 0) | (code >= count))[0])
        raise InputError(f"player {first}: path index {int(code[first])} is not in 0..{count - 1}")
    refused = [i for i, name in enumerate(judgement.paths) if name in judgement.refused]
    if refused and code.size:
        bad = np.isin(code, refused)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            name = list(judgement.paths)[int(code[first])]
            raise RuleError(f"player {first}: decision refused: {judgement.refused[name]}")
    return code.astype(np.intp, copy=False)


def _stake_arrays(
    rules: GameRules, stakes: Mapping[str, npt.ArrayLike], n: int
) -> dict[str, Cents]:
    """Check the placed bets' arrays (names, shape, integer cents, sign, the Ante, the Blind)."""
    arrays: dict[str, Cents] = {}
    for name, values in stakes.items():
        try:
            spec = rules.bet(name)
        except KeyError:
            raise RuleError(f"unknown bet {name!r} for {rules.game} {rules.variant}") from None
        if spec.placed == "decision":
            raise RuleError(f"the {name} bet is placed by a decision, not as a bet")
        array = np.asarray(values)
        if array.shape != (n,) or not np.issubdtype(array.dtype, np.integer):
            raise InputError(f"stakes of {name} must be {n} integer amounts of cents")
        if n and array.min() < 0:
            first = int(np.flatnonzero(array < 0)[0])
            raise InputError(f"player {first}: bet {name} is below zero")
        arrays[name] = array.astype(np.int64, copy=False)
    if "ante" not in arrays or (n and arrays["ante"].min() <= 0):
        first = 0 if "ante" not in arrays else int(np.flatnonzero(arrays["ante"] <= 0)[0])
        raise RuleError(f"player {first}: an Ante is required (every other bet needs it)")
    for spec in rules.bets:
        if spec.placed == "automatic" and spec.name in arrays:
            differs = arrays.pop(spec.name) != arrays["ante"]
            if differs.any():
                first = int(np.flatnonzero(differs)[0])
                raise RuleError(f"player {first}: the {spec.name} bet must equal the Ante")
    return arrays


def _path_multiples(rules: GameRules, names: Sequence[str]) -> Cents:
    """The decision bet's size in Antes on each path, as integers."""
    sizes = [decision_stake(rules, name) for name in names]
    if any(size.denominator != 1 for size in sizes):
        raise ConfigurationError("decision bets must be whole multiples of the Ante")
    return np.array([int(size) for size in sizes], dtype=np.int64)


def _check_limit(rules: GameRules, name: str, stake: Cents) -> None:
    """Raise `RuleError` naming the first player whose `stake` is outside the bet's limits."""
    spec = rules.bet(name)
    limit = spec.max_stake
    if limit is not None and stake.size:
        over = stake > _cents(limit, f"the {name} limit")
        if over.any():
            first = int(np.flatnonzero(over)[0])
            raise RuleError(
                f"player {first}: bet {name} of {stake[first] / 100:.2f} is over the limit {limit}"
            )
    low = spec.min_stake
    if low is not None and spec.placed != "decision" and stake.size:
        # A stake of zero is no bet: the minimum applies only to bets placed.
        below = (stake > 0) & (stake < _cents(low, f"the {name} minimum"))
        if below.any():
            first = int(np.flatnonzero(below)[0])
            raise RuleError(
                f"player {first}: bet {name} of {stake[first] / 100:.2f} is below the table "
                f"minimum {low}"
            )


def _check_side_bets(rules: GameRules, placed: Mapping[str, Cents]) -> None:
    """Raise `RuleError` naming the first player with a side bet on an Ante below the minimum."""
    minimum = rules.bet("ante").min_stake
    if minimum is None:
        return
    low = placed["ante"] < _cents(minimum, "the ante minimum")
    for spec in rules.bets:
        if spec.placed == "optional" and spec.name in placed:
            bad = low & (placed[spec.name] > 0)
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                raise RuleError(
                    f"player {first}: the {spec.name} bet needs an Ante at or above the table "
                    f"minimum {minimum}"
                )


def _cents(amount: Fraction, what: str) -> int:
    """A limit as whole cents; raises `ConfigurationError` for a fraction of a cent."""
    cents = amount * 100
    if cents.denominator != 1:
        raise ConfigurationError(f"{what} must be a whole number of cents")
    return int(cents)


def _per_unit(stake: Cents, ratio: Fraction) -> Cents:
    """`stake * ratio`, rounded down to the cent (numpy's // floors, like `floor_cents`)."""
    return stake * ratio.numerator // ratio.denominator


def _side_bet(res: Resolution, stake: Cents, jackpot: JackpotPool | None) -> tuple[Cents, int]:
    """A side bet's amounts and outcome code: one resolution for every player."""
    if not res.progressive:
        return _per_unit(stake, res.returned), _OUTCOME[res.outcome]
    if jackpot is None:
        return np.zeros_like(stake), _OUTCOME[res.outcome]
    total = _cents(jackpot.round_bets, "the round's Jackpot bets") if stake.size else 0
    if stake.size and int(stake.max()) > total:
        first = int(np.flatnonzero(stake > total)[0])
        raise InputError(f"player {first}: the round's Jackpot bets are less than this bet")
    ratio = jackpot.pool / jackpot.round_bets
    if stake.size and int(stake.max()) * ratio.numerator >= 2**62:
        # A huge pool would overflow int64: exact Python integers for this rare (royal) round.
        exact = stake.astype(object) * ratio.numerator // ratio.denominator
        return exact.astype(np.int64), _OUTCOME[res.outcome]
    return _per_unit(stake, ratio), _OUTCOME[res.outcome]


def _main_bet(
    judgement: Judgement, names: Sequence[str], bet: str, stake: Cents, code: npt.NDArray[np.intp]
) -> tuple[Cents, npt.NDArray[np.int8]]:
    """A main bet's amounts and outcome codes, looked up by each player's path."""
    lost = Resolution("lose", Fraction(0))
    table = [judgement.paths[name].get(bet, lost) for name in names]
    numerators = np.array([r.returned.numerator for r in table], dtype=np.int64)
    denominators = np.array([r.returned.denominator for r in table], dtype=np.int64)
    outcomes = np.array([_OUTCOME[r.outcome] for r in table], dtype=np.int8)
    if (denominators == 1).all():
        return stake * numerators[code], outcomes[code]
    return stake * numerators[code] // denominators[code], outcomes[code]


def _apply_round_cap(result: BatchSettlement, cap: int) -> None:
    """Cut each player's total to `cap`, taking the excess off the last bets first (as scalar)."""
    excess = result.total_returned - cap
    if not (excess > 0).any():
        return
    for name in reversed(list(result.returned)):
        amount = result.returned[name]
        cut = np.clip(np.minimum(excess, amount), 0, None)
        result.returned[name] = amount - cut
        result.capped[name] |= cut > 0
        excess -= cut
