"""Ultimate Texas Hold'em main-game return: showdown counts, strategy, river decision, figures."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from studio.cards import Card, parse_cards
from studio.games.ultimate_holdem import BLIND
from studio.hands import Category, evaluate
from studio.ranker import combinations_array
from studio.returns.holdem import holdem_rows, simulated_return
from studio.returns.holdem_boards import BOARD_COUNT, canonical_boards, random_boards
from studio.returns.holdem_optimal import SituationSums
from studio.returns.holdem_play import FLOPS, board_figures
from studio.returns.holdem_showdown import DEALER_HANDS, showdown
from studio.returns.holdem_situations import (
    FLOP_COUNT,
    PAIR_COUNT,
    SituationTable,
    _canonical_codes,
    flop_ids,
    hole_class,
    hole_class_name,
    pair_ids,
)
from studio.returns.holdem_strategy import flop_play, preflop_play


def _brute_force(board: list[Card], hole: list[Card], play: int) -> tuple[float, float]:
    """Expected net and Blind bonus per Ante over every dealer pair, settled one by one."""
    player = evaluate([*board, *hole])
    odds = float(BLIND.pay(player.category) or 0)
    rest = [c for c in range(52) if Card.from_index(c) not in {*board, *hole}]
    net = bonus = 0.0
    for pair in combinations(rest, 2):
        dealer = evaluate([*board, *(Card.from_index(c) for c in pair)])
        qualified = dealer.category >= Category.ONE_PAIR
        if player > dealer:
            net += (1 if qualified else 0) + play + odds
            bonus += odds
        elif dealer > player:
            net -= (1 if qualified else 0) + play + 1
    return net / DEALER_HANDS, bonus / DEALER_HANDS


def _hole_index(shown_holes: np.ndarray, hole: tuple[Card, ...]) -> int:
    wanted = sorted(c.index for c in hole)
    matches = np.flatnonzero((np.sort(shown_holes, axis=1) == wanted).all(axis=1))
    return int(matches[0])


@pytest.mark.parametrize(
    ("board", "hole"),
    [
        ("2C 7D 9H JS KC", "3D 4H"),  # high card: the dealer often fails to qualify
        ("5H 6H 7H 8H KD", "9C 2C"),  # straight on a four-flush board
        ("TS JS QS 4D 4C", "AS KS"),  # royal flush: the Blind pays 500:1
        ("8C 8D 8H 3S 3C", "2D 2H"),  # the board plays: every hand ties or loses
    ],
)
def test_showdown_matches_a_brute_force_settlement(board: str, hole: str) -> None:
    board_cards, hole_cards = parse_cards(board), parse_cards(hole)
    shown = showdown([[c.index for c in board_cards]])
    j = _hole_index(shown.holes[0], hole_cards)
    for play in (1, 4):
        net, bonus = _brute_force(list(board_cards), list(hole_cards), play)
        assert shown.net(play)[0, j] == pytest.approx(net, abs=1e-12)
    assert shown.blind_bonus[0, j] == pytest.approx(bonus, abs=1e-12)
    assert shown.river_play()[0, j] == (net > -2)


def test_river_decision_agrees_with_brute_force_on_random_deals() -> None:
    rng = np.random.default_rng(11)
    boards = random_boards(rng, 3)
    shown = showdown(boards)
    for b in range(3):
        board = [Card.from_index(int(c)) for c in boards[b]]
        for j in rng.integers(0, shown.holes.shape[1], size=2):
            hole = [Card.from_index(int(c)) for c in shown.holes[b, j]]
            net, _ = _brute_force(board, hole, 1)
            assert shown.net(1)[b, j] == pytest.approx(net, abs=1e-12)
            assert shown.river_play()[b, j] == (net > -2)
            assert shown.river_net()[b, j] == pytest.approx(max(net, -2.0), abs=1e-12)


def test_canonical_boards_cover_every_board_once() -> None:
    boards, weights = canonical_boards()
    assert len(boards) == 134_459
    assert int(weights.sum()) == BOARD_COUNT
    # Four suits holding different ranks can be relabelled 24 ways; three suits alike (one card
    # each) and a fourth holding two leave only the choice of the fourth.
    assert weights.max() == 24
    assert weights.min() == 4


def _codes(text: str) -> np.ndarray:
    return np.array([c.index for c in parse_cards(text)])


@pytest.mark.parametrize(
    ("hole", "plays"),
    [
        ("3C 3D", True),
        ("2C 2D", False),
        ("AC 2D", True),
        ("KS 2S", True),
        ("KS 4D", False),
        ("KS 5D", True),
        ("QH 6H", True),
        ("QH 7D", False),
        ("QH 8D", True),
        ("JC 8C", True),
        ("JC 9D", False),
        ("JC TD", True),
        ("TC 9C", False),
    ],
)
def test_preflop_strategy_on_known_hands(hole: str, plays: bool) -> None:
    a, b = _codes(hole)
    assert bool(preflop_play(a, b)) is plays


@pytest.mark.parametrize(
    ("hole", "flop", "plays"),
    [
        ("9C 4D", "9H KS 2C", True),  # hidden pair
        ("2C 2D", "9H KS 5C", False),  # pocket deuces are not enough
        ("2C 2D", "9H 9S 5C", True),  # ... but two pair is
        ("7C 4D", "9H 9S 5C", False),  # a pair on the board only
        ("TH 4D", "2H 7H KH", True),  # four to a flush with a hidden ten
        ("9H 4D", "2H 7H KH", False),  # ... a nine is not enough
        ("TH 4H", "2H 7C KH", True),  # suited, two on the flop, hidden ten
        ("9H 4H", "2H 7C KH", False),
        ("6C 7D", "8H 9S TC", True),  # a straight
        ("JC 4D", "2H 7S KC", False),
    ],
)
def test_flop_strategy_on_known_hands(hole: str, flop: str, plays: bool) -> None:
    assert bool(flop_play(_codes(hole), _codes(flop))) is plays


def test_simulation_is_reproducible_and_plausible() -> None:
    first = simulated_return(40, seed=5)
    again = simulated_return(40, seed=5)
    other = simulated_return(40, seed=6)
    assert first == again
    assert first != other
    assert first.per_ante_ci is not None and first.on_total_ci is not None
    assert first.per_ante_ci[0] < first.per_ante < first.per_ante_ci[1]
    assert 0.9 < first.per_ante < 1.05
    assert 0.97 < first.on_total < 1.01
    shares = first.preflop + first.flop + first.river + first.fold
    assert shares == pytest.approx(1.0)


def test_rows_for_the_report() -> None:
    calls: list[tuple[int, int]] = []
    rows = holdem_rows(lambda done, total: calls.append((done, total)), samples=20, seed=1)
    assert [(r.game, r.variant, r.bet, r.basis) for r in rows] == [
        ("ultimate-holdem", "live", "main", "ante"),
        ("ultimate-holdem", "live", "main", "total"),
    ]
    assert [r.published for r in rows] == [pytest.approx(0.9782), pytest.approx(0.9947)]
    assert all(r.method == "simulation" and r.ci95 is not None for r in rows)
    assert all("simulation" in r.note for r in rows)
    assert calls and calls[-1] == (20, 20)


def _plain_table(boards: np.ndarray) -> SituationTable:
    """Number the situations of `boards` one class each (no suit symmetry), for small checks."""
    shown = showdown(boards)
    pair = pair_ids()[shown.holes[..., 0], shown.holes[..., 1]].astype(np.int64)
    flop = np.sort(boards[:, FLOPS], axis=2)
    flop_id = flop_ids()[flop[..., 0], flop[..., 1], flop[..., 2]]
    codes = (pair[:, None, :] * FLOP_COUNT + flop_id[:, :, None]).ravel()
    unique = np.unique(codes)
    lookup = np.full((FLOP_COUNT, PAIR_COUNT), -1, dtype=np.int32)
    lookup[unique % FLOP_COUNT, unique // FLOP_COUNT] = np.arange(len(unique), dtype=np.int32)
    cards = combinations_array(52, 2)[unique // FLOP_COUNT]
    hole = hole_class(cards[:, 0], cards[:, 1])
    return SituationTable(lookup, hole, np.ones(len(unique), np.int64), len(unique))


def test_optimal_solver_matches_a_direct_derivation_on_one_board() -> None:
    board = np.array([[c.index for c in parse_cards("2C 7D 9H JS KH")]])
    sums = SituationSums(_plain_table(board))
    shown = showdown(board)
    sums.add(board, [1.0], shown)
    best = sums.solve()

    # On one board each (hole pair, flop) happens once: the flop choice is per pair and flop,
    # the pre-flop choice per starting hand over its pairs and the ten flops.
    check = np.maximum(shown.net(2), shown.river_net())[0]
    raise4 = shown.net(4)[0]
    hand = hole_class(shown.holes[0, :, 0], shown.holes[0, :, 1])
    total = 0.0
    for k in np.unique(hand):
        mine = hand == k
        total += max(raise4[mine].sum(), shown.net(3)[0, mine].sum(), check[mine].sum())
    assert best.net == pytest.approx(total / len(hand), abs=1e-12)
    assert best.preflop + best.flop + best.river + best.fold == pytest.approx(1.0)


def test_optimal_play_beats_the_simple_strategy_on_the_same_boards() -> None:
    boards = random_boards(np.random.default_rng(8), 12).astype(np.intp)
    sums = SituationSums(_plain_table(boards))
    sums.add(boards, np.ones(len(boards)), showdown(boards))
    best = sums.solve()
    simple = board_figures(boards)
    assert best.net >= float(simple.net.mean()) - 1e-12
    # Optimal pre-flop play never chooses 3x; the multiples are 4 or check only.
    assert set(np.unique(best.preflop_play).tolist()) <= {0, 4}


def test_situations_that_differ_by_suit_names_share_a_class() -> None:
    def code(hole: str, flop: str) -> int:
        h, f = _codes(hole)[None, :], np.sort(_codes(flop))[None, :]
        return int(_canonical_codes(h, f)[0])

    assert code("AH KH", "2H 7H 9C") == code("AS KS", "2S 7S 9D") == code("KC AC", "9H 7C 2C")
    assert code("AH KH", "2H 7H 9C") != code("AH KS", "2H 7H 9C")
    assert code("AH KD", "2H 7D 9C") != code("AH KD", "2D 7H 9C")


@pytest.mark.parametrize(
    ("hole", "name"), [("AH KH", "AKs"), ("KD AC", "AKo"), ("7S 7C", "77"), ("2C 9C", "92s")]
)
def test_starting_hand_classes_have_their_usual_names(hole: str, name: str) -> None:
    a, b = _codes(hole)
    assert hole_class_name(int(hole_class(a, b))) == name


def test_exact_path_on_a_small_universe(monkeypatch: pytest.MonkeyPatch) -> None:
    import studio.returns.holdem as holdem

    boards = random_boards(np.random.default_rng(21), 5).astype(np.intp)
    monkeypatch.setattr(holdem, "canonical_boards", lambda: (boards, np.ones(5, np.int64)))
    monkeypatch.setattr(holdem, "situation_table", lambda: _plain_table(boards))
    calls: list[tuple[int, int]] = []
    rows = holdem.holdem_rows(lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, 5) and calls[-1] == (5, 5)
    assert all(r.method == "exact" and r.ci95 is None for r in rows)
    assert "optimal" in rows[0].note

    best = holdem.exact_return()
    simple = board_figures(boards)
    assert best.play == "optimal" and len(best.preflop_multiples) == 169
    assert best.blind_bonus == pytest.approx(float(simple.blind_bonus.mean()))
    assert best.per_ante >= 1.0 + float(simple.net.mean()) - 1e-12
    assert rows[0].computed == pytest.approx(best.per_ante)
    assert rows[1].computed == pytest.approx(best.on_total)
    assert best.preflop + best.flop + best.river + best.fold == pytest.approx(1.0)


def test_situation_codes_ignore_suit_names_and_keep_the_cards() -> None:
    rng = np.random.default_rng(4)
    deals = np.argsort(rng.random((2000, 52)), axis=1)[:, :5]
    holes, flops = np.sort(deals[:, :2], axis=1), np.sort(deals[:, 2:], axis=1)
    codes = _canonical_codes(holes, flops)
    renamed = np.argsort(rng.random((2000, 4)), axis=1)
    relabel = (deals // 4) * 4 + np.take_along_axis(renamed, deals % 4, axis=1)
    again = _canonical_codes(np.sort(relabel[:, :2], axis=1), np.sort(relabel[:, 2:], axis=1))
    assert (codes == again).all()
    # The canonical situation holds the same ranks, and is its own canonical form.
    pairs, triples = combinations_array(52, 2), combinations_array(52, 3)
    hole_c, flop_c = pairs[codes // FLOP_COUNT], triples[codes % FLOP_COUNT]
    assert (np.sort(hole_c // 4, axis=1) == np.sort(holes // 4, axis=1)).all()
    assert (np.sort(flop_c // 4, axis=1) == np.sort(flops // 4, axis=1)).all()
    assert (_canonical_codes(hole_c.astype(np.intp), flop_c.astype(np.intp)) == codes).all()
