"""Settlement of one player's bets on a judged round, exactly, with the table's limits and caps.

Money is exact: stakes are `Fraction`s that must be whole cents, and every amount returned is
rounded *down* to the cent (only the Blind's 3:2 on an odd number of cents and a progressive
jackpot share can fall between cents; the player is never paid more than the exact figure).

The steps, each in one place:

1. `placed_stakes` checks the bets a player placed before the deal (names, sign, cents, limits,
   the Ante that every other bet needs) and adds the automatic ones (Hold'em's Blind);
2. `decision_path` turns the decisions into a complete path, giving each window the player did
   not answer its automatic action, and refuses illegal sequences (Play twice);
3. `settle` looks each bet up in the `Judgement` and applies the per-bet and per-round caps;
4. `settle_void` refunds every stake of a voided round and flags a jackpot review.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from studio.cards import Card
from studio.errors import ConfigurationError, InputError, RuleError, did_you_mean
from studio.games.judgement import (
    Judgement,
    Resolution,
    decision_paths,
    decision_stake,
    eligible,
    jackpot_review,
    seated_cards,
)
from studio.games.model import GameRules
from studio.games.money import floor_cents, money_json, money_text, whole_cents


@dataclass(frozen=True, slots=True)
class JackpotPool:
    """The progressive jackpot a royal flush shares among the round's Jackpot bets.

    `pool` is split in proportion to each player's Jackpot bet over `round_bets`, the round's
    total Jackpot bets across all participating tables.
    """

    pool: Fraction
    round_bets: Fraction

    def share(self, stake: Fraction) -> Fraction:
        """The share of a Jackpot bet of `stake`, rounded down to the cent.

        Raises `InputError` when `stake` exceeds the round's total, which cannot happen in a
        consistent round.
        """
        if stake > self.round_bets:
            raise InputError(
                f"the round's Jackpot bets ({money_text(self.round_bets)}) cannot be less than "
                f"this player's Jackpot bet ({money_text(stake)})"
            )
        return floor_cents(self.pool * stake / self.round_bets)


@dataclass(frozen=True, slots=True)
class BetResult:
    """How one bet settled: its `stake`, `outcome` and the amount `returned` (stake included).

    `capped` says a table limit reduced the amount. For the Jackpot, `fixed_prize` is the prize
    "for one" that was paid, and `progressive` marks a royal flush; its `share` of the pool is
    None when the pool was not given (then `returned` is 0 and the share is paid elsewhere).
    """

    stake: Fraction
    outcome: str
    returned: Fraction
    capped: bool = False
    fixed_prize: Fraction | None = None
    progressive: bool = False
    share: Fraction | None = None

    def to_json(self) -> dict[str, Any]:
        """The bet as the JSON object of `studio settle`; amounts via `money_json`."""
        data: dict[str, Any] = {
            "stake": money_json(self.stake),
            "outcome": self.outcome,
            "returned": money_json(self.returned),
        }
        if self.capped:
            data["capped"] = True
        if self.fixed_prize is not None:
            data["fixed_prize"] = money_json(self.fixed_prize)
        if self.progressive:
            data["progressive"] = True
            data["share"] = None if self.share is None else money_json(self.share)
        return data


@dataclass(frozen=True, slots=True)
class Settlement:
    """One player's settled round: `bets` by name (only bets with a stake), in the rules' order.

    `path` is the complete decision path ("" when a void came before any decision); `judgement`
    is None for a void round, whose `jackpot_review` says the player's Jackpot bet would have
    won a prize and needs a manual compensation decision.
    """

    game: str
    variant: str
    path: str
    bets: dict[str, BetResult]
    judgement: Judgement | None
    void: bool = False
    jackpot_review: bool = False

    @property
    def total_stake(self) -> Fraction:
        """The sum of the bets' stakes."""
        return sum((b.stake for b in self.bets.values()), Fraction(0))

    @property
    def total_returned(self) -> Fraction:
        """The sum of the bets' returned amounts (stakes included)."""
        return sum((b.returned for b in self.bets.values()), Fraction(0))

    def to_json(self) -> dict[str, Any]:
        """The JSON object `studio settle` prints for this settlement."""
        j = self.judgement
        return {
            "game": self.game,
            "variant": self.variant,
            "void": self.void,
            "path": self.path,
            "player_hand": None if j is None else j.player.description,
            "dealer_hand": None if j is None else j.dealer.description,
            "player_category": None if j is None else j.player.category.slug,
            "dealer_category": None if j is None else j.dealer.category.slug,
            "dealer_qualifies": None if j is None else j.dealer_qualifies,
            "bets": {name: bet.to_json() for name, bet in self.bets.items()},
            "total_stake": money_json(self.total_stake),
            "total_returned": money_json(self.total_returned),
            "jackpot_review": self.jackpot_review,
        }


def decision_bet(rules: GameRules) -> str:
    """The name of the bet a decision places (`call` or `play`)."""
    return next(spec.name for spec in rules.bets if spec.placed == "decision")


def placed_stakes(rules: GameRules, bets: Mapping[str, Fraction]) -> dict[str, Fraction]:
    """Check the bets placed before the deal and return them with the automatic ones added.

    Bets of zero are dropped (not placed). Raises `RuleError` for an unknown bet, a bet the
    player cannot place (Call/Play come from decisions), a missing Ante, a stake outside its
    table limits, a side bet on an Ante below the table minimum, or a Blind that differs from
    the Ante; `InputError` for a negative stake or one that is not
    a whole number of cents.
    """
    known = {spec.name: spec for spec in rules.bets}
    for name, stake in bets.items():
        spec = known.get(name)
        if spec is None:
            placeable = [s.name for s in rules.bets if s.placed != "decision"]
            raise RuleError(
                f"unknown bet {name!r} for {rules.game} {rules.variant} "
                f"(expected {', '.join(placeable)}){did_you_mean(name, placeable)}"
            )
        if spec.placed == "decision":
            raise RuleError(f"the {name} bet is placed by a decision, not as a bet")
        if stake < 0:
            raise InputError(f"bet {name} is below zero: {money_text(stake)}")
        if not whole_cents(stake):
            raise InputError(f"bet {name} is not a whole number of cents: {float(stake)}")
    ante = bets.get("ante", Fraction(0))
    if ante <= 0:
        raise RuleError("an Ante is required (every other bet needs an accepted Ante)")
    stakes: dict[str, Fraction] = {}
    for spec in rules.bets:
        if spec.placed == "automatic":
            if bets.get(spec.name, ante) != ante:
                raise RuleError(f"the {spec.name} bet is placed automatically, equal to the Ante")
            stakes[spec.name] = ante
        elif bets.get(spec.name, 0) > 0:
            stakes[spec.name] = bets[spec.name]
    side = [n for n, spec in known.items() if spec.placed == "optional" and n in stakes]
    check_side_bets(rules, ante, side)
    for name, stake in stakes.items():
        check_limit(rules, name, stake)
    return stakes


def check_side_bets(rules: GameRules, ante: Fraction, side: Sequence[str]) -> None:
    """Raise `RuleError` when side bets `side` are placed on an Ante below the table minimum.

    A side bet (the 5+1 Bonus, the Jackpot, Trips) is only taken after an accepted Ante, and an
    Ante below the table's minimum is not accepted (docs/games.md: table limits).
    """
    minimum = rules.bet("ante").min_stake
    if side and minimum is not None and ante < minimum:
        raise RuleError(
            f"the {side[0]} bet needs an Ante at or above the table minimum "
            f"{money_text(minimum)} (Ante {money_text(ante)})"
        )


def check_limit(rules: GameRules, name: str, stake: Fraction) -> None:
    """Raise `RuleError` when `stake` on bet `name` is outside the table's limits for it."""
    spec = rules.bet(name)
    low, high = spec.min_stake, spec.max_stake
    if high is not None and stake > high:
        raise RuleError(f"bet {name} of {money_text(stake)} is over the limit {money_text(high)}")
    if low is not None and spec.placed != "decision" and stake < low:
        raise RuleError(
            f"bet {name} of {money_text(stake)} is below the table minimum {money_text(low)}"
        )


def parse_decisions(rules: GameRules, decisions: Sequence[str]) -> dict[str, str]:
    """Map each decision ("call", "preflop=play4x") to its window; raises `RuleError`.

    A bare option names the one window that offers it. Unknown windows or options and two
    decisions for one window are refused.
    """
    windows = {w.name: w for w in rules.windows}
    chosen: dict[str, str] = {}
    for text in decisions:
        name, sep, option = text.strip().lower().partition("=")
        if not sep:
            option = name
            offering = [w.name for w in rules.windows if option in w.options]
            if len(offering) > 1:
                choices = " or ".join(f"{w}={option}" for w in offering)
                raise RuleError(f"decision {text!r} is ambiguous: say {choices}")
            name = offering[0] if offering else ""
        window = windows.get(name)
        if window is None or option not in window.options:
            every = [o for w in rules.windows for o in w.options]
            every += [f"{w.name}={o}" for w in rules.windows for o in w.options]
            raise RuleError(
                f"unknown decision {text!r} for {rules.game} ({decision_help(rules)})"
                + did_you_mean(text.strip().lower(), every)
            )
        if name in chosen:
            raise RuleError(f"two decisions for the {name} window: {chosen[name]} and {option}")
        chosen[name] = option
    return chosen


def decision_help(rules: GameRules) -> str:
    """The legal decisions of a game as one line, for error messages."""
    if len(rules.windows) == 1:
        return "expected " + "|".join(rules.windows[0].options)
    return "expected " + ", ".join(f"{w.name}={'|'.join(w.options)}" for w in rules.windows)


def decision_path(
    rules: GameRules,
    decisions: Sequence[str],
    refused: Mapping[str, str] | None = None,
    automatic: bool = True,
) -> str:
    """The complete decision path of a player's `decisions`; missing ones get the automatic action.

    `refused` (from the judgement) lists paths the rules refuse for the round's hand: choosing
    one raises `RuleError`, and an automatic action that would lead to one is replaced by the
    first option that does not (a royal flush in classic Caribbean Stud is auto-called, since
    it cannot fold). Raises `RuleError` for a decision in a window the player does not reach
    (Play twice in Hold'em, a river decision after a flop play). With `automatic` False (a void
    round, whose windows may never have closed), the path ends at the last decision given.
    """
    chosen = parse_decisions(rules, decisions)
    refused = refused or {}
    allowed = [p for p in decision_paths(rules) if p not in refused]
    choices: list[str] = []
    given = 0
    for window in rules.windows:
        if not eligible(window, tuple(choices)):
            if window.name in chosen:
                played = [c for c in choices if c in rules.stake_multiples]
                why = (
                    f"the {decision_bet(rules)} bet was already placed by {played[0]}"
                    if played
                    else f"it needs {' and '.join(sorted(window.eligible_after))} before it"
                )
                raise RuleError(f"no {window.name} decision is allowed here: {why}")
            continue
        if window.name in chosen:
            choices.append(chosen[window.name])
            given = len(choices)
            continue
        options = [window.automatic, *(o for o in window.options if o != window.automatic)]
        choices.append(next((o for o in options if _reachable(allowed, choices, o)), options[0]))
    path = "/".join(choices if automatic else choices[:given])
    if path in refused:
        raise RuleError(f"decision refused: {refused[path]}")
    return path


def _reachable(allowed: Sequence[str], choices: Sequence[str], option: str) -> bool:
    """Whether some allowed path starts with `choices` followed by `option`."""
    prefix = "/".join((*choices, option))
    return any(p == prefix or p.startswith(prefix + "/") for p in allowed)


def settle(
    rules: GameRules,
    judgement: Judgement,
    bets: Mapping[str, Fraction],
    decisions: Sequence[str] = (),
    jackpot: JackpotPool | None = None,
) -> Settlement:
    """Settle one player's `bets` (name -> stake) and `decisions` on a judged round.

    Returns every placed bet's stake, outcome and amount returned (stake included, rounded down
    to the cent) after the per-bet `max_win` caps and the round's `round_win_cap`. The Jackpot
    pays its fixed prize per unit of stake ("for one": the stake is not returned); a royal
    flush pays the bet's `jackpot` share, or reports a progressive win with no amount when the
    pool is not given. Raises `RuleError` or `InputError` for illegal bets or decisions (see
    `placed_stakes`, `decision_path`).
    """
    if (judgement.game, judgement.variant) != (rules.game, rules.variant):
        raise ConfigurationError(
            f"a {judgement.game} {judgement.variant} judgement cannot settle "
            f"{rules.game} {rules.variant} bets"
        )
    path = decision_path(rules, decisions, judgement.refused)
    stakes = round_stakes(rules, bets, path)
    results: dict[str, BetResult] = {}
    for name, stake in stakes.items():
        spec = rules.bet(name)
        if name in judgement.side_bets:
            res = judgement.side_bets[name]
        else:
            res = judgement.paths[path][name]
        results[name] = _bet_result(stake, res, jackpot)
        if spec.max_win is not None and results[spec.name].returned > spec.max_win:
            results[spec.name] = _capped(results[spec.name], spec.max_win)
    if rules.round_win_cap is not None:
        _apply_round_cap(results, rules.round_win_cap)
    return Settlement(rules.game, rules.variant, path, results, judgement)


def round_stakes(rules: GameRules, bets: Mapping[str, Fraction], path: str) -> dict[str, Fraction]:
    """Every stake of the round on `path`: the placed bets plus the decision bet, in rules order.

    Raises as `placed_stakes` does, and `RuleError` when the decision bet is over its limit.
    """
    stakes = placed_stakes(rules, bets)
    multiple = decision_stake(rules, path)
    if multiple:
        name = decision_bet(rules)
        stakes[name] = stakes["ante"] * multiple
        check_limit(rules, name, stakes[name])
    return {spec.name: stakes[spec.name] for spec in rules.bets if spec.name in stakes}


def _bet_result(stake: Fraction, res: Resolution, jackpot: JackpotPool | None) -> BetResult:
    """One bet's result from its per-unit resolution."""
    if res.progressive:
        share = None if jackpot is None else jackpot.share(stake)
        returned = Fraction(0) if share is None else share
        return BetResult(stake, res.outcome, returned, progressive=True, share=share)
    return BetResult(
        stake, res.outcome, floor_cents(stake * res.returned), fixed_prize=res.fixed_prize
    )


def _capped(bet: BetResult, returned: Fraction) -> BetResult:
    """`bet` with its amount reduced to `returned` by a table limit."""
    return BetResult(
        bet.stake, bet.outcome, returned, True, bet.fixed_prize, bet.progressive, bet.share
    )


def _apply_round_cap(results: dict[str, BetResult], cap: Fraction) -> None:
    """Reduce `results` in place so their total is at most `cap`.

    The excess comes off the bets in reverse of the rules' order (the decision bet first, the
    Ante last), a documented and deterministic choice the sheet leaves open.
    """
    excess = sum((b.returned for b in results.values()), Fraction(0)) - cap
    for name in reversed(list(results)):
        if excess <= 0:
            break
        cut = min(excess, results[name].returned)
        if cut:
            results[name] = _capped(results[name], results[name].returned - cut)
            excess -= cut


def settle_void(
    rules: GameRules,
    bets: Mapping[str, Fraction],
    decisions: Sequence[str] = (),
    cards: Mapping[str, Card] | None = None,
) -> Settlement:
    """Settle a voided round: every stake placed, decision bets included, is refunded.

    `decisions` are those made before the void (they only add the Call/Play stakes to refund);
    `cards` are the cards dealt so far (any subset of the positions). `jackpot_review` is True
    when the player had a Jackpot bet and their five cards, all dealt, would have won a Jackpot
    prize. Raises as `placed_stakes` and `decision_path` do, and `CardError` for an unknown
    position or a card given twice.
    """
    path = decision_path(rules, decisions, automatic=False)
    stakes = round_stakes(rules, bets, path)
    cards = dict(cards or {})
    seated_cards(rules, cards, partial=True)
    review = "jackpot" in stakes and jackpot_review(rules, cards)
    refunds = {name: BetResult(stake, "refund", stake) for name, stake in stakes.items()}
    return Settlement(rules.game, rules.variant, path, refunds, None, True, review)
