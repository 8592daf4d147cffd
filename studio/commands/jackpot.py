"""`studio jackpot ACTION --dsn DSN [--config FILE]`: the progressive pool shared by the tables.

Actions: `open` (create the pool at its seed, idempotent), `show` (the amount), `post` (one
round's Jackpot bets, idempotent by game number: a retry says so and counts nothing), `close
--window N` (the window's royals claim their shares; the pool restarts from its seed plus what
no royal claimed) and `serve` (publish the pool on the overlays' ZeroMQ stream until SIGINT or
SIGTERM). The pool's id, seed, contribution rate and stream come from the `[jackpot]` table of
`--config` (`studio.jackpot.config`). Amounts print as currency; the database holds minor units.
"""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from types import FrameType
from typing import TYPE_CHECKING, Any

from studio.errors import InputError
from studio.games.money import money_text, parse_amount, whole_cents

if TYPE_CHECKING:
    from studio.archive.store import Conn
    from studio.jackpot.config import JackpotConfig

ACTIONS = ("open", "show", "post", "close", "serve")


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `jackpot` command to the `studio` parser."""
    parser = subparsers.add_parser("jackpot", help="the progressive jackpot pool in PostgreSQL")
    parser.add_argument("action", choices=ACTIONS, help="what to do with the pool")
    parser.add_argument("--dsn", required=True, help="the PostgreSQL connection string")
    parser.add_argument("--config", help="a TOML file with a [jackpot] table")
    parser.add_argument("--game-number", help="post: the round's game number")
    parser.add_argument("--table", help="post: the table")
    parser.add_argument("--window", type=int, help="post, close: the settlement window")
    parser.add_argument("--bets", type=int, default=0, help="post: how many Jackpot bets")
    parser.add_argument("--amount", default="0", help="post: their total (currency)")
    parser.add_argument("--royal", action="store_true", help="post: the round had a royal flush")
    parser.set_defaults(run=run)


@contextmanager
def connect(dsn: str) -> Iterator[Conn]:
    """A connection to the pool's database, its schema brought up to date."""
    # Imported here, not above: `studio jackpot --help` loads no PostgreSQL.
    import psycopg

    from studio.archive.migrate import migrate

    try:
        conn = psycopg.connect(dsn, autocommit=True)
    except psycopg.OperationalError as exc:
        raise InputError(f"cannot open the jackpot database: {str(exc).strip()}") from exc
    with conn:
        migrate(conn, "studio.jackpot")
        yield conn


def cents(text: str, what: str) -> int:
    """A currency amount as whole minor units; InputError for fractions of a cent or below 0."""
    amount = parse_amount(text, what)
    if amount < 0 or not whole_cents(amount):
        raise InputError(f"{what} must be a whole number of cents, not negative: {text!r}")
    return int(amount * 100)


def currency(minor: int) -> str:
    """Minor units as the amount people read."""
    return money_text(Fraction(minor, 100))


def run(args: argparse.Namespace) -> int:
    """Run one action on the pool; return 0."""
    # Imported here, not above: `studio jackpot --help` loads no PostgreSQL.
    from studio.jackpot.config import load_jackpot_config
    from studio.jackpot.pool import current, open_pool, settle_window

    config = load_jackpot_config(args.config)
    with connect(args.dsn) as conn:
        amount = open_pool(conn, config.pool, config.seed)
        if args.action in ("open", "show"):
            print(f"jackpot {config.pool}: {currency(amount)}")
        elif args.action == "post":
            _post(conn, config, args)
        elif args.action == "close":
            if args.window is None:
                raise InputError("close needs --window N")
            shares = settle_window(conn, config.pool, args.window)
            for game, share in sorted(shares.items()):
                print(f"{game}: {currency(share)}")
            print(f"jackpot {config.pool}: {currency(current(conn, config.pool))}")
    if args.action == "serve":
        _serve(args.dsn, config)
    return 0


def _post(conn: Conn, config: JackpotConfig, args: argparse.Namespace) -> None:
    # Imported here, not above: `studio jackpot --help` loads no PostgreSQL.
    from studio.jackpot.pool import Post, current, post

    if args.game_number is None or args.table is None or args.window is None:
        raise InputError("post needs --game-number, --table and --window")
    if args.bets < 0:
        raise InputError("--bets cannot be negative")
    item = Post(
        args.game_number,
        args.table,
        args.window,
        args.bets,
        cents(args.amount, "--amount"),
        royal=args.royal,
    )
    new = post(conn, config.pool, item, config.rate)
    said = "posted" if new else "already posted (counted once)"
    print(
        f"{item.game_number}: {said}; jackpot {config.pool}: {currency(current(conn, config.pool))}"
    )


def _serve(dsn: str, config: JackpotConfig) -> None:
    # Imported here, not above: `studio jackpot --help` loads no PostgreSQL.
    from studio.jackpot.stream import publish_pool

    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, _stop)
    print(f"jackpot {config.pool}: publishing on {config.publish}", flush=True)
    try:
        publish_pool(dsn, config.pool, config.publish, stop, config.publish_seconds)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def pool_answer(dsn: str, config_path: str | None, window: int) -> tuple[str, str]:
    """The pool now and the Jackpot bets of `window` across tables, as `studio settle` takes them.

    Both are currency text (what `--jackpot-pool` and `--jackpot-bets` would be given).
    """
    # Imported here, not above: `studio jackpot --help` loads no PostgreSQL.
    from studio.jackpot.config import load_jackpot_config
    from studio.jackpot.pool import current, window_bets

    config = load_jackpot_config(config_path)
    with connect(dsn) as conn:
        pool = current(conn, config.pool)
        bets = window_bets(conn, config.pool, window)
    if bets <= 0:
        raise InputError(f"no Jackpot bets posted in window {window} of pool {config.pool!r}")
    return currency(pool), currency(bets)
