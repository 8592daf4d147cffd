"""The work of `studio settle`: one request from its options, or a file of them, settled.

`studio.commands.settle` holds the options and their contract; this module, imported when the
command runs, builds each request's rules (with the table's limits), judges its cards and
settles its bets.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from studio.cards import parse_cards
from studio.errors import ConfigurationError, InputError, StudioError
from studio.games import GameRules, get_rules, judge, with_limits
from studio.games.judgement import seat
from studio.games.money import money_text, parse_amount
from studio.games.settlement import JackpotPool, Settlement, settle, settle_void

REQUEST_FIELDS = (
    "game",
    "variant",
    "player",
    "dealer",
    "board",
    "bets",
    "decisions",
    "void",
    "jackpot_pool",
    "jackpot_bets",
    "limits",
)
"""The fields of one request (a `--batch` line); any other field is refused."""


def settle_command(args: argparse.Namespace) -> int:
    """Run `studio settle`; return the exit status (errors raise `StudioError`)."""
    if args.batch is not None:
        single = ("game", "player", "dealer", "board", "jackpot_pool", "jackpot_bets")
        given = args.bet or args.decision or args.limit
        if any(getattr(args, name) is not None for name in single) or given:
            raise InputError("--batch reads every request from its file: give no other round")
        if args.batch == "-":
            # The bytes, so that a line that is not UTF-8 is that line's error, not the run's end.
            run_batch(getattr(sys.stdin, "buffer", sys.stdin), sys.stdout)
        else:
            try:
                with open(args.batch, "rb") as lines:
                    run_batch(lines, sys.stdout)
            except OSError as err:
                raise InputError(f"cannot read {args.batch}: {err.strerror}") from err
        return 0
    if args.game is None:
        raise InputError("--game is required (caribbean-stud or ultimate-holdem)")
    request: dict[str, Any] = {
        "game": args.game,
        "variant": args.variant,
        "bets": dict(_bet_arg(text) for text in args.bet),
        "decisions": args.decision,
        "void": args.void,
    }
    if args.limit:
        request["limits"] = dict(_limit_arg(text) for text in args.limit)
    for name in ("player", "dealer", "board", "jackpot_pool", "jackpot_bets"):
        if getattr(args, name) is not None:
            request[name] = getattr(args, name)
    if args.jackpot_dsn is not None:
        if args.jackpot_pool is not None or args.jackpot_bets is not None:
            raise InputError("--jackpot-dsn answers the pool and its bets: give neither")
        if args.jackpot_window is None:
            raise InputError("--jackpot-dsn needs --jackpot-window N")
        from studio.commands.jackpot import pool_answer  # psycopg only when asked

        request["jackpot_pool"], request["jackpot_bets"] = pool_answer(
            args.jackpot_dsn, args.jackpot_config, args.jackpot_window
        )
    result = settle_request(request)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(describe(result))
    return 0


def _bet_arg(text: str) -> tuple[str, str]:
    """Split a `--bet NAME=AMOUNT` argument; raises `InputError` without the `=`."""
    name, sep, amount = text.partition("=")
    if not sep or not name.strip():
        raise InputError(f"--bet takes NAME=AMOUNT, got {text!r}")
    return name.strip().lower(), amount


def _limit_arg(text: str) -> tuple[str, dict[str, str | None]]:
    """Split a `--limit BET=MIN:MAX` argument; raises `InputError` without `=` and `:`."""
    name, sep, span = text.partition("=")
    low, colon, high = span.partition(":")
    if not sep or not colon or not name.strip():
        raise InputError(f"--limit takes BET=MIN:MAX (either may be empty), got {text!r}")
    return name.strip().lower(), {"minimum": low.strip() or None, "maximum": high.strip() or None}


def table_limits(rules: GameRules, limits: object) -> GameRules:
    """`rules` with a table's stake limits, in `round_opened.limits`'s shape; None: unchanged.

    A bet named gets exactly its `minimum` and `maximum` (null: none), as the table has them.
    Raises `InputError` for a value of another shape, an unknown bet or a bad amount.
    """
    if limits is None:
        return rules
    if not isinstance(limits, dict):
        raise InputError("field 'limits' must be an object of bet name -> {minimum, maximum}")
    # Imported here: `studio settle --help` need not build the message models.
    from pydantic import ValidationError

    from studio.messages import BetLimits

    overrides: dict[str, str | None] = {}
    names = [spec.name for spec in rules.bets]
    for bet, value in limits.items():
        if bet not in names:
            raise InputError(
                f"limits: unknown bet {bet!r} for {rules.game} {rules.variant} "
                f"(expected {', '.join(names)})"
            )
        try:
            limit = BetLimits.model_validate(value)
        except ValidationError as err:
            problem = err.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise InputError(
                f"limit {bet}{'.' + where if where else ''}: {problem['msg']}"
            ) from None
        for kind, amount in (("min_stake", limit.minimum), ("max_stake", limit.maximum)):
            overrides[f"{kind}.{bet}"] = None if amount is None else str(amount)
    try:
        return with_limits(rules, overrides)
    except ConfigurationError as err:
        raise InputError(str(err)) from err


def settle_request(request: Mapping[str, Any]) -> Settlement:
    """Settle one request (the fields of `REQUEST_FIELDS`, as a `--batch` line holds them).

    Raises `StudioError` subclasses for anything wrong: unknown fields or games, bad cards,
    bets or decisions.
    """
    unknown = [name for name in request if name not in REQUEST_FIELDS]
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r} (expected {', '.join(REQUEST_FIELDS)})")
    if not isinstance(request.get("game"), str):
        raise InputError("field 'game' is required (caribbean-stud or ultimate-holdem)")
    rules = get_rules(request["game"], _text(request, "variant", "live"))
    rules = table_limits(rules, request.get("limits"))
    void = request.get("void", False)
    if not isinstance(void, bool):
        raise InputError(f"field 'void' must be true or false, got {void!r}")
    groups = {
        name: parse_cards(_text(request, name, ""))
        for name in ("player", "dealer", "board")
        if name in request
    }
    cards = seat(rules, groups, partial=void)
    bets = request.get("bets", {})
    if not isinstance(bets, dict):
        raise InputError("field 'bets' must be an object of bet name -> amount")
    stakes = {str(name).lower(): parse_amount(v, f"bet {name}") for name, v in bets.items()}
    decisions = request.get("decisions", [])
    if not isinstance(decisions, list) or not all(isinstance(d, str) for d in decisions):
        raise InputError("field 'decisions' must be a list of strings such as \"call\"")
    if void:
        return settle_void(rules, stakes, decisions, cards)
    return settle(rules, judge(rules, cards), stakes, decisions, _jackpot(request))


def _text(request: Mapping[str, Any], name: str, default: str) -> str:
    """A text field of a request; raises `InputError` when it is not text."""
    value = request.get(name, default)
    if not isinstance(value, str):
        raise InputError(f"field {name!r} must be text, got {value!r}")
    return value


def _jackpot(request: Mapping[str, Any]) -> JackpotPool | None:
    """The progressive pool of a request, or None when neither figure is given."""
    pool, bets = request.get("jackpot_pool"), request.get("jackpot_bets")
    if pool is None and bets is None:
        return None
    if pool is None or bets is None:
        raise InputError("the jackpot share needs both the pool and the round's Jackpot bets")
    amount, total = parse_amount(pool, "jackpot pool"), parse_amount(bets, "jackpot bets")
    if amount < 0 or total <= 0:
        raise InputError("the jackpot pool must be >= 0 and the round's Jackpot bets > 0")
    return JackpotPool(amount, total)


def run_batch(lines: Iterable[str | bytes], out: TextIO) -> None:
    """Settle each JSON line of `lines`, writing one JSON result (or error object) per line.

    Lines may be text or UTF-8 bytes; a line of bytes that is not UTF-8 is a bad line.
    """
    for number, line in enumerate(lines, start=1):
        try:
            request = json.loads(line.decode("utf-8") if isinstance(line, bytes) else line)
            if not isinstance(request, dict):
                raise InputError("a request must be a JSON object")
            result: dict[str, Any] = settle_request(request).to_json()
        except json.JSONDecodeError as err:
            result = {"line": number, "error": f"not JSON: {err.msg}"}
        except UnicodeDecodeError as err:
            result = {"line": number, "error": f"not UTF-8: byte {err.start + 1} of the line"}
        except StudioError as err:
            result = {"line": number, "error": str(err)}
        out.write(json.dumps(result) + "\n")
        # Flushing per line lets a pipeline consume results while later lines still settle.
        out.flush()


def describe(result: Settlement) -> str:
    """A settlement as a few lines of text for people."""
    lines = []
    judgement = result.judgement
    if judgement is None:
        lines.append(f"void round: every stake refunded (jackpot review: {result.jackpot_review})")
    else:
        qualified = "qualifies" if judgement.dealer_qualifies else "does not qualify"
        lines.append(f"player: {judgement.player}")
        lines.append(f"dealer: {judgement.dealer} ({qualified})")
        lines.append(f"path:   {result.path}")
    for name, bet in result.bets.items():
        extra = (
            " (progressive jackpot, share not given)"
            if bet.progressive and bet.share is None
            else ""
        )
        lines.append(
            f"{name:<8}{money_text(bet.stake):>12}  {bet.outcome:<7}"
            f"{money_text(bet.returned):>12}{' capped' if bet.capped else ''}{extra}"
        )
    lines.append(
        f"{'total':<8}{money_text(result.total_stake):>12}  {'':<7}"
        f"{money_text(result.total_returned):>12}"
    )
    return "\n".join(lines)
