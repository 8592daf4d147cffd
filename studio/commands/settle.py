"""`studio settle`: settle one player's bets on a round's cards, or a file of such requests.

The command-line contract other tools depend on (see docs/games.md): cards as space-separated
codes, `--bet NAME=AMOUNT` (repeatable), `--limit BET=MIN:MAX` (repeatable: the table's
stake limits, as `round_opened.limits` publishes them), `--decision` (repeatable: `call|fold`, or
`preflop=play4x|play3x|check`, `flop=play2x|check`, `river=play1x|fold`), `--json` for one JSON
object on stdout, and `--batch FILE` (or `-` for stdin) for one JSON request per line and one
JSON result per line, in order; a bad line gives `{"line": N, "error": "..."}` and the run goes
on. Any other bad input ends with exit status 2, one line on stderr and nothing on stdout.
"""

from __future__ import annotations

import argparse

from studio.terms import GAME_TERMS


def names_help() -> str:
    """Every game's variants, bet names (how each is placed) and decisions.

    Taken from `studio.terms.GAME_TERMS`, which `studio.games` holds equal to the rules, so the
    help can never list a bet the settlement refuses (and needs no rules to be built).
    """
    lines = ["bets and decisions by game:"]
    for game, terms in GAME_TERMS.items():
        bets = ", ".join(
            bet.name if bet.placed == "required" else f"{bet.name} ({bet.placed})"
            for bet in terms.bets
            if bet.placed != "decision"
        )
        by_decision = ", ".join(bet.name for bet in terms.bets if bet.placed == "decision")
        windows = terms.windows
        if len(windows) == 1:
            decisions = "|".join(windows[0].options)
        else:
            decisions = "  ".join(f"{w.name}={'|'.join(w.options)}" for w in windows)
        lines += [
            f"  {game} (variants {', '.join(terms.variants)})",
            f"    --bet NAME=AMOUNT with NAME one of: {bets}",
            f"    --decision: {decisions} (places the {by_decision} bet)",
        ]
    return "\n".join(lines)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `settle` subcommand to `subparsers` and set its `run` function."""
    parser = subparsers.add_parser(
        "settle",
        help="settle one player's bets on a round's cards",
        description=(
            "Settle one player's bets on a round: per bet the stake, outcome (win, lose, push, "
            "refund) and amount returned (stake included). The dealer's first card is the "
            "face-up card. Exit status 2 for bad input."
        ),
        epilog=names_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", help="caribbean-stud or ultimate-holdem")
    parser.add_argument("--variant", default="live", help="live (default) or classic")
    parser.add_argument("--player", help='the player\'s cards, e.g. "AS KS QS JS TS"')
    parser.add_argument("--dealer", help="the dealer's cards, the face-up card first")
    parser.add_argument("--board", help="Hold'em: the five community cards")
    parser.add_argument(
        "--bet", action="append", default=[], metavar="NAME=AMOUNT", help="a bet (repeatable)"
    )
    parser.add_argument(
        "--decision", action="append", default=[], metavar="DECISION", help="(repeatable)"
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="BET=MIN:MAX",
        help="the table's stake limits on BET as its round_opened published them "
        "(repeatable; an empty MIN or MAX: no limit; a bet not named keeps the variant's)",
    )
    parser.add_argument("--void", action="store_true", help="the round was voided: refund")
    parser.add_argument("--jackpot-pool", metavar="AMOUNT", help="the progressive jackpot")
    parser.add_argument(
        "--jackpot-bets", metavar="TOTAL", help="the round's Jackpot bets on all tables"
    )
    parser.add_argument(
        "--jackpot-dsn", metavar="DSN", help="take the pool and the window's bets from the pool"
    )
    parser.add_argument("--jackpot-window", type=int, metavar="N", help="with --jackpot-dsn")
    parser.add_argument("--jackpot-config", metavar="FILE", help="with --jackpot-dsn")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--batch", metavar="FILE", help="JSON requests, one per line (- stdin)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run `studio settle`; return the exit status (errors raise `StudioError`)."""
    # Imported here: `studio settle --help` need not build the game rules.
    from studio.commands.settle_requests import settle_command

    return settle_command(args)
