"""The progressive jackpot: its sharing arithmetic (properties) and the pool in PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from fractions import Fraction

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from postgres_support import Cluster

from studio.archive.migrate import migrate
from studio.archive.store import Conn
from studio.errors import InputError
from studio.jackpot.pool import Post, current, open_pool, post, settle_window
from studio.jackpot.sharing import claim, contribution

amounts = st.integers(min_value=0, max_value=10**9)


@given(
    pool=amounts,
    seed=amounts,
    royal_bets=st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=4),
    others=st.integers(min_value=0, max_value=10**7),
)
def test_shares_and_carry_account_for_the_whole_pool(
    pool: int, seed: int, royal_bets: list[int], others: int
) -> None:
    royals = {f"T{i:02}-1": bet for i, bet in enumerate(royal_bets)}
    window = sum(royal_bets) + others
    outcome = claim(pool, window, royals, seed)
    assert sum(outcome.shares.values()) + outcome.carry == pool
    won = any(royal_bets)
    assert outcome.pool_after == (seed + outcome.carry if won else pool)
    for game, bet in royals.items():
        if bet:
            # Never more than the exact proportional share, and less by under one minor unit.
            assert 0 <= bet * pool - outcome.shares[game] * window < window
    if window and others == 0 and len(royals) == 1:
        assert outcome.shares == {"T00-1": pool}


@given(a=st.integers(min_value=0, max_value=10**6), b=st.integers(min_value=0, max_value=10**6))
def test_a_larger_bet_never_claims_less(a: int, b: int) -> None:
    shares = claim(10**7, a + b, {"T01-1": a, "T02-1": b}, 0).shares
    first, second = shares.get("T01-1", 0), shares.get("T02-1", 0)
    if a >= b:
        assert first >= second
    else:
        assert first <= second


@given(amount=amounts, rate=st.fractions(min_value=0, max_value=1, max_denominator=1000))
def test_contribution_rounds_down_to_the_minor_unit(amount: int, rate: Fraction) -> None:
    added = contribution(amount, rate)
    assert added <= amount * rate < added + 1


def test_bad_figures_are_refused() -> None:
    with pytest.raises(InputError, match="more than their window"):
        claim(100, 5, {"T01-1": 10}, 0)
    with pytest.raises(InputError, match="rate"):
        contribution(100, Fraction(3, 2))


@pytest.fixture
def conn(cluster: Cluster) -> Iterator[Conn]:
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        migrate(c, "studio.jackpot")
        yield c


RATE = Fraction(1, 5)


def test_a_retried_post_counts_once(conn: Conn) -> None:
    open_pool(conn, "studio", 100_000)
    item = Post("T01-20261129-100000", "T01", 1, 3, 300, royal=False)
    assert post(conn, "studio", item, RATE) is True
    assert post(conn, "studio", item, RATE) is False
    assert current(conn, "studio") == 100_060
    with pytest.raises(InputError, match="differs"):
        post(conn, "studio", Post(item.game_number, "T01", 1, 4, 400, royal=False), RATE)


def test_two_royals_at_two_tables_in_one_window_share_the_pool(cluster: Cluster) -> None:
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        c.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        migrate(c, "studio.jackpot")
        open_pool(c, "studio", 1_000_000)
    posts = [
        Post("T01-1", "T01", 7, 1, 100, royal=True),
        Post("T02-1", "T02", 7, 3, 300, royal=True),
        Post("T03-1", "T03", 7, 6, 600, royal=False),
    ]

    def settle(item: Post) -> None:
        # Each table's settlement on its own connection, all at once, each posting twice.
        with psycopg.connect(cluster.dsn, autocommit=True) as c:
            post(c, "studio", item, RATE)
            post(c, "studio", item, RATE)

    threads = [threading.Thread(target=settle, args=(p,)) for p in posts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with psycopg.connect(cluster.dsn, autocommit=True) as c:
        assert current(c, "studio") == 1_000_200  # 20% of the 1000 bet, once
        shares = settle_window(c, "studio", 7)
        assert shares == {"T01-1": 100_020, "T02-1": 300_060}
        # The unclaimed 6/10 carries into the restarted pool; settling again pays nothing.
        assert current(c, "studio") == 1_000_000 + 600_120
        assert settle_window(c, "studio", 7) == {}
