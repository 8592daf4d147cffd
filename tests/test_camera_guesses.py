"""Contradicting claims are found the same way whether every pair is measured or only near ones."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.camera.guesses import contested, same_index
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
