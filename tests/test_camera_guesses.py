"""Contradicting claims are found the same way whether every pair is measured or only near ones;
guessed corners at an index a firm outline read at both ends are left unread, and only those."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.guesses import contested, merge_guesses, off_read_indices, same_index
from drivers.camera.outline import CardOutline
from drivers.camera.reading import CardReading, ReadingSource
from drivers.camera.tuning import INDEX_CENTRE, SAME_INDEX

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


def _read_at(reading: CardReading) -> list[npt.NDArray[Any]]:
    """The centres of the index windows `reading`'s code was read at (both when read at two)."""
    q = np.array(reading.corners, np.float64)
    u, v = INDEX_CENTRE
    first = q[0] + u * (q[1] - q[0]) + v * (q[3] - q[0])
    third = q[2] + u * (q[3] - q[2]) + v * (q[1] - q[2])
    return [first, third] if reading.index_reads >= 2 else [first]


def _height(reading: CardReading) -> float:
    q = np.array(reading.corners, np.float64)
    return float(np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2


def _on_firm_card(claims: list[CardReading], firm: int, n: int) -> bool:
    """Whether guess `n`'s read index lies inside a firm claim's outline of the same code."""
    x, y = _read_at(claims[n])[0]
    return any(
        claims[k].code == claims[n].code
        and cv2.pointPolygonTest(np.array(claims[k].corners, np.float32), (x, y), False) >= 0
        for k in range(firm)
    )


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
    # A guess read inside a firm outline of its own code is judged by its read index alone.
    firm = min(firm, len(claims))
    explained = {n for n in range(firm, len(claims)) if _on_firm_card(claims, firm, n)}
    every = set()
    for i, a in enumerate(claims):
        for j in range(i + 1, len(claims)):
            b = claims[j]
            if a.code == b.code:
                continue
            if {i, j} & explained:
                tol = SAME_INDEX * min(_height(a), _height(b))
                if all(
                    float(np.linalg.norm(p - q)) > tol for p in _read_at(a) for q in _read_at(b)
                ):
                    continue
            elif not same_index(a, b):
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


def _reading(
    code: str, quad: Sequence[tuple[float, float]], reads: int, source: ReadingSource
) -> CardReading:
    return CardReading(
        code=code, face_down=False, corners=(quad[0], quad[1], quad[2], quad[3]),
        confidence=0.99, zone=None, source=source, index_reads=reads,
    )  # fmt: skip


def test_a_guess_reading_a_cards_other_corner_index_does_not_take_the_card_beneath_away() -> None:
    # Seen on the tuning designs (studio, gen-1003, a four-index deck): a QS lying over a QH's
    # upper end. A proposal fitted to the QH's outline read the QS's upper-right index where the
    # QH's hidden index lies, and its outline, the QH's, covers the QH's read index: it was
    # taken for the QH read at its other end as QS, and the QH was lost.
    qs = _reading("QS", [(1055, 574), (944, 576), (942, 422), (1053, 419)], 1, ReadingSource.FIRM)
    qh = [(1102, 573), (1000, 567), (1008, 425), (1110, 431)]
    qh_firm = _reading("QH", qh, 1, ReadingSource.EXTENDED)
    over = [(1021, 420), (1116, 426), (1116, 580), (1022, 573)]
    guess = _reading("QS", over, 1, ReadingSource.PROPOSAL)
    assert [r.code for r in merge_guesses([qs, qh_firm], [guess])] == ["QS", "QH"]
    # Read as a guess too, the QH stands beside the firm QS.
    qh_guess = _reading("QH", qh, 1, ReadingSource.PROPOSAL)
    assert {r.code for r in merge_guesses([qs], [guess, qh_guess])} == {"QS", "QH"}


def test_a_guess_repeating_a_firm_card_does_not_doubt_the_card_beneath() -> None:
    # Seen on the tuning designs (studio, gen-1003): a firm 7S over a 6D showing a quarter,
    # its index in view. A proposal repeating the 7S at its index had an outline turned
    # against the card's, whose other end lay on the 6D's index: the 6D was lost.
    s7 = [(1746, 544), (1700, 775), (1384, 706), (1430, 476)]
    firm = _reading("7S", s7, 2, ReadingSource.FIRM)
    repeat = _reading(
        "7S", [(1736, 532), (1712, 789), (1417, 792), (1392, 532)], 1, ReadingSource.PROPOSAL
    )
    d6 = _reading(
        "6D", [(1402, 804), (1397, 576), (1716, 566), (1722, 794)], 1, ReadingSource.CORNER
    )
    assert [r.code for r in merge_guesses([firm], [repeat, d6])] == ["7S", "6D"]


def test_a_guess_on_a_firm_card_of_its_code_still_contests_an_index_read_as_another_code() -> None:
    # One printed index read twice as two codes is a contest wherever the guess lies: a QS
    # guess inside a firm QS outline, read at the firm QH's read index, doubts the QH.
    qs = _reading("QS", [(0, 0), (300, 0), (300, 400), (0, 400)], 2, ReadingSource.FIRM)
    qh = _reading("QH", [(100, 100), (190, 100), (190, 230), (100, 230)], 1, ReadingSource.FIRM)
    guess = _reading(
        "QS", [(104, 102), (194, 102), (194, 232), (104, 232)], 1, ReadingSource.PROPOSAL
    )
    assert [r.code for r in merge_guesses([qs, qh], [guess])] == ["QS", None]


def test_a_guess_repeating_a_code_read_elsewhere_in_the_frame_adds_nothing() -> None:
    # One deck a round: a code shows once in a frame. Seen on the tuning caches (studio,
    # gen-1005): a 7C under a chip and a face-down KS, its index partly hidden, read QC at
    # 0.985 by a proposal, while the frame's QC lay in another pile, read at 1.0. Before, the
    # two did not overlap and both were reported: a wrong card on the 7C's spot.
    right = _reading(
        "QC", [(1280.7, 703.6), (1266.2, 952.0), (919.8, 929.7), (959.5, 688.1)], 1,
        ReadingSource.PROPOSAL,
    ).model_copy(update={"confidence": 1.0})  # fmt: skip
    on_7c = _reading(
        "QC", [(1430.4, 572.8), (1334.8, 343.6), (1719.1, 157.6), (1814.7, 386.7)], 1,
        ReadingSource.PROPOSAL,
    ).model_copy(update={"confidence": 0.9848})  # fmt: skip
    for guesses in ([right, on_7c], [on_7c, right]):
        assert merge_guesses([], guesses) == [right]
    # Held by a firm card, the code is not repeated by a surer guess either.
    firm = right.model_copy(update={"source": ReadingSource.FIRM, "confidence": 0.95})
    sure = on_7c.model_copy(update={"confidence": 1.0})
    assert merge_guesses([firm], [sure]) == [firm]


@st.composite
def _apart(draw: st.DrawFn) -> list[CardReading]:
    """Coded readings of cards lying apart (no two overlap), codes often repeated."""
    out = []
    for k in range(draw(st.integers(0, 8))):
        x, y = 400.0 * (k % 4), 500.0 * (k // 4)
        quad = [(x, y), (x + 63.0, y), (x + 63.0, y + 88.0), (x, y + 88.0)]
        out.append(
            _reading(draw(st.sampled_from(_CODES[:2])), quad, draw(st.integers(1, 2)),
                     ReadingSource.PROPOSAL).model_copy(
                update={"confidence": draw(st.floats(0.9, 1.0))}
            )
        )  # fmt: skip
    return out


@given(st.one_of(_claims(), _apart()), st.integers(0, 14))
def test_no_guess_repeats_a_code_and_no_believed_code_is_lost(
    claims: list[CardReading], firm: int
) -> None:
    firm = min(firm, len(claims))
    readings = [c.model_copy(update={"source": ReadingSource.FIRM}) for c in claims[:firm]]
    guesses = claims[firm:]
    out = merge_guesses(readings, guesses)
    codes = [r.code for r in out if r.code is not None]
    # A guess in the output names a code nothing else in the output names.
    for r in out:
        if r.code is not None and any(r is g for g in guesses):
            assert codes.count(r.code) == 1
    # Every claim no other contradicts still has its code reported somewhere.
    doubted = contested(readings + guesses, firm)
    assert {c.code for n, c in enumerate(readings + guesses) if n not in doubted} <= set(codes)
