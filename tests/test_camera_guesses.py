"""Contradicting claims are found the same way whether every pair is measured or only near ones;
guessed corners at an index a firm outline read at both ends are left unread, and only those."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.detect import CardOutline
from drivers.camera.guesses import contested, merge_guesses, off_read_indices, same_index
from drivers.camera.reading import CardReading, ReadingSource

_CODES = ("AS", "AH", "7C", "QD")


@st.composite
def _claims(draw: st.DrawFn) -> list[CardReading]:
    """Coded readings of cards 100-300 px tall lying about a few spots: many near pairs."""
    spots = draw(
        st.lists(st.tuples(st.integers(0, 800), st.integers(0, 600)), min_size=1, max_size=3)
    )
    out = []
    for _ in range(draw(st.integers(0, 14))):
        sx, sy = draw(st.sampled_from(spots))
        x = sx + draw(st.floats(-40, 40))
        y = sy + draw(st.floats(-40, 40))
        height = draw(st.floats(100, 300))
        width = height * 63 / 88
        turn = draw(st.integers(0, 3))
        quad = [(x, y), (x + width, y), (x + width, y + height), (x, y + height)]
        quad = quad[turn:] + quad[:turn]
        out.append(
            CardReading(
                code=draw(st.sampled_from(_CODES)),
                face_down=False,
                corners=(quad[0], quad[1], quad[2], quad[3]),
                confidence=draw(st.floats(0.9, 1.0)),
                zone=None,
                source=ReadingSource.PROPOSAL,
                index_reads=draw(st.integers(1, 2)),
            )
        )
    return out


@given(_claims())
def test_contested_is_every_pair_measured(claims: list[CardReading]) -> None:
    every = set()
    for i, a in enumerate(claims):
        for j in range(i + 1, len(claims)):
            if a.code != claims[j].code and same_index(a, claims[j]):
                every |= {i, j}
    assert contested(claims) == every


def _outline(reading: CardReading, support: tuple[float, float, float, float]) -> CardOutline:
    quad = np.array(reading.corners, np.float64)
    return CardOutline(quad, quad.astype(np.int32).reshape(-1, 1, 2), False, True, support)


def _claim_at(outline: CardOutline, turn: int, code: str) -> CardReading:
    """The reading a guess would give, read at its corner `turn` (its first corner there)."""
    q = [tuple(map(float, p)) for p in np.roll(outline.corners, -turn, axis=0)]
    return CardReading(
        code=code, face_down=False, corners=(q[0], q[1], q[2], q[3]), confidence=0.99,
        zone=None, source=ReadingSource.PROPOSAL, index_reads=1,
    )  # fmt: skip


@given(_claims(), _claims())
def test_guessed_corners_left_unread_are_at_read_indices(
    firm: list[CardReading], guessed: list[CardReading]
) -> None:
    outlines = [_outline(g, (1.0, 1.0, 1.0, 1.0)) for g in guessed]
    kept = off_read_indices(outlines, firm)
    by_id = {id(o.contour): o for o in kept}
    for outline in outlines:
        left = by_id.get(id(outline.contour))
        for turn in (0, 2):
            unread = left is None or left.support[turn] == 0.0
            claim = _claim_at(outline, turn, "2C")
            # A dropped corner claims an index a firm outline read: `merge_guesses` would drop
            # its read as a repeat or doubt both.
            if unread:
                assert any(same_index(claim, r) for r in firm)


def test_a_guess_is_left_unread_only_at_indices_a_firm_card_read_at_both_ends() -> None:
    firm = CardReading(
        code="AS", face_down=False, corners=((100.0, 100.0), (163.0, 100.0), (163.0, 188.0),
        (100.0, 188.0)), confidence=0.99, zone=None, source=ReadingSource.FIRM, index_reads=2,
    )  # fmt: skip
    # The same card guessed 3 px off, and a card beside it.
    on = _outline(firm.model_copy(update={"corners": tuple(
        (x + 3.0, y - 2.0) for x, y in firm.corners)}), (1.0, 0.0, 1.0, 0.0))  # fmt: skip
    beside = _outline(firm.model_copy(update={"corners": tuple(
        (x + 300.0, y) for x, y in firm.corners)}), (1.0, 0.0, 1.0, 0.0))  # fmt: skip
    assert [o.support for o in off_read_indices([on, beside], [firm])] == [(1.0, 0.0, 1.0, 0.0)]
    # Read at one end, or not read, a firm card is doubted by a guess naming another code at
    # its index: every guess is read.
    for other in (
        firm.model_copy(update={"index_reads": 1}),
        firm.model_copy(update={"code": None}),
    ):
        assert [o.support for o in off_read_indices([on, beside], [other])] == [
            (1.0, 0.0, 1.0, 0.0),
            (1.0, 0.0, 1.0, 0.0),
        ]


@given(_claims(), st.integers(0, 14))
def test_a_firm_two_corner_claim_is_contradicted_only_by_claims_that_outrank_guesses(
    claims: list[CardReading], firm: int
) -> None:
    # The first `firm` claims are firm readings: one read at both of its indices stands against
    # guesses read at one, which alone are contradicted; every other clash doubts both sides.
    firm = min(firm, len(claims))
    every = set()
    for i, a in enumerate(claims):
        for j in range(i + 1, len(claims)):
            b = claims[j]
            if a.code == b.code or not same_index(a, b):
                continue
            if i < firm <= j and a.index_reads == 2 and b.index_reads == 1:
                every.add(j)
            else:
                every |= {i, j}
    assert contested(claims, firm) == every


def test_guesses_misreading_a_firm_cards_index_do_not_take_the_card_away() -> None:
    # Seen on the tuning designs (studio): a firm 8H read at both ends at 1.0, and proposals
    # a little too small for it reading the same index as QH at 0.98-0.998. Both were doubted
    # and the 8H was lost; the firm two-corner read now stands and the QH guesses are dropped.
    pts = ((0.0, 0.0), (63.0, 0.0), (63.0, 88.0), (0.0, 88.0))
    firm = CardReading(
        code="8H", face_down=False, corners=pts, confidence=1.0, zone=None, index_reads=2
    )
    small = ((1.0, 1.0), (58.0, 1.0), (58.0, 81.0), (1.0, 81.0))
    guesses = [
        CardReading(
            code=code, face_down=False, corners=small, confidence=conf, zone=None,
            source=ReadingSource.PROPOSAL, index_reads=1,
        )
        for code, conf in (("QH", 0.9978), ("8H", 1.0), ("QH", 0.9826))
    ]  # fmt: skip
    assert [r.code for r in merge_guesses([firm], guesses)] == ["8H"]
    # Read at one index only, the firm reading is no stronger than a guess: neither stands.
    once = firm.model_copy(update={"index_reads": 1})
    assert "QH" not in {r.code for r in merge_guesses([once], guesses)}
    assert [r.code for r in merge_guesses([once], guesses[:1])] == [None]
