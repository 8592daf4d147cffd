"""The pool in PostgreSQL: posts idempotent by game number, windows settled in one transaction.

`post` records one round's Jackpot bets (count and amount, minor units) and adds its
contribution to the pool, once: a retried post for the same game number changes nothing and
returns the stored result. `settle_window` takes every round of a closed window under the pool's
row lock, shares the pool among its royals (`studio.jackpot.sharing.claim`), records the
payouts and restarts the pool; run twice it pays nothing twice. The tables live beside the
archive's, applied by the same migration runner (`studio.archive.migrate`) from this package.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from studio.archive.store import Conn
from studio.errors import InputError
from studio.jackpot.sharing import claim, contribution


@dataclass(frozen=True)
class Post:
    """One round's Jackpot bets as settlement posts them."""

    game_number: str
    table: str
    window: int
    bets: int
    amount: int
    royal: bool


def open_pool(conn: Conn, pool_id: str, seed: int) -> int:
    """Create the pool at `seed` if it does not exist; return its amount now."""
    with conn.transaction():
        conn.execute(
            "INSERT INTO jackpot_pool (pool_id, amount, seed) VALUES (%s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            (pool_id, seed, seed),
        )
        return current(conn, pool_id)


def current(conn: Conn, pool_id: str) -> int:
    """The pool's amount in minor units; InputError for an unknown pool."""
    row = conn.execute("SELECT amount FROM jackpot_pool WHERE pool_id = %s", (pool_id,)).fetchone()
    if row is None:
        raise InputError(f"no jackpot pool {pool_id!r}")
    return int(row[0])


def post(conn: Conn, pool_id: str, item: Post, rate: Fraction) -> bool:
    """Record `item` once; True when it was new (and fed the pool), False for a retry.

    Raises InputError when a retry differs from the stored post (a settlement bug to surface).
    """
    added = contribution(item.amount, rate)
    with conn.transaction():
        current(conn, pool_id)  # the pool must exist
        row = conn.execute(
            "INSERT INTO jackpot_post (game_number, pool_id, table_id, window_id, bets, amount,"
            " contributed, royal) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (game_number) DO NOTHING RETURNING game_number",
            (
                item.game_number,
                pool_id,
                item.table,
                item.window,
                item.bets,
                item.amount,
                added,
                item.royal,
            ),
        ).fetchone()
        if row is None:
            stored = conn.execute(
                "SELECT table_id, window_id, bets, amount, royal FROM jackpot_post"
                " WHERE game_number = %s",
                (item.game_number,),
            ).fetchone()
            if stored != (item.table, item.window, item.bets, item.amount, item.royal):
                raise InputError(f"{item.game_number}: a retried post differs from the stored one")
            return False
        conn.execute(
            "UPDATE jackpot_pool SET amount = amount + %s WHERE pool_id = %s", (added, pool_id)
        )
        return True


def settle_window(conn: Conn, pool_id: str, window: int) -> dict[str, int]:
    """Pay the royals of `window` (game number -> minor units) and restart the pool if any won."""
    with conn.transaction():
        row = conn.execute(
            "SELECT amount, seed FROM jackpot_pool WHERE pool_id = %s FOR UPDATE", (pool_id,)
        ).fetchone()
        if row is None:
            raise InputError(f"no jackpot pool {pool_id!r}")
        pool, seed = int(row[0]), int(row[1])
        rows = conn.execute(
            "SELECT game_number, amount, royal FROM jackpot_post"
            " WHERE pool_id = %s AND window_id = %s AND NOT settled",
            (pool_id, window),
        ).fetchall()
        window_bets = sum(int(r[1]) for r in rows)
        royals = {str(r[0]): int(r[1]) for r in rows if r[2]}
        outcome = claim(pool, window_bets, royals, seed)
        for game, amount in outcome.shares.items():
            conn.execute(
                "INSERT INTO jackpot_payout (game_number, amount) VALUES (%s, %s)", (game, amount)
            )
        conn.execute(
            "UPDATE jackpot_post SET settled = true WHERE pool_id = %s AND window_id = %s",
            (pool_id, window),
        )
        conn.execute(
            "UPDATE jackpot_pool SET amount = %s WHERE pool_id = %s",
            (outcome.pool_after, pool_id),
        )
        return outcome.shares


def window_bets(conn: Conn, pool_id: str, window: int) -> int:
    """The Jackpot bets (minor units) posted in `window` of the pool, across every table."""
    row = conn.execute(
        "SELECT coalesce(sum(amount), 0) FROM jackpot_post WHERE pool_id = %s AND window_id = %s",
        (pool_id, window),
    ).fetchone()
    return int(row[0]) if row is not None else 0
