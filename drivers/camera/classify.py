"""Rank and suit classification of one index corner against a deck's templates.

A glyph takes the class of its best-correlated template only when that correlation is high and
the glyph also sits clearly on the best template's side of the line between the best and the
runner-up (a two-class discriminant: spades and clubs share most of their outline, so a plain
correlation margin is too blunt). The ink colour must agree with the suit. Every doubt resolves
to unknown: a wrong card is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass

from calibration.glyphs import Glyph, Image, aspect, find_index, normalise, standardise
from calibration.profile import DeckCalibration, DeckTemplates

MIN_SCORE = 0.85
"""Least correlation with the best template. These three thresholds were chosen on 60 rendered
frames of another seed than the bench's: together they kept ~90% of right corner reads and none
of the 20 wrong ones (wrong reads scored up to 0.97 but never cleared all three)."""
MIN_LEAD = 0.2
"""Least position past the midpoint between runner-up (-0.5) and best template (+0.5)."""
MIN_GAP = 0.02
"""Least lead of the best correlation over the runner-up's, in correlation units: when two
templates nearly coincide the discriminant's lead is noise, and this catches it."""
BLACK_SUIT_LEAD = 0.3
BLACK_SUIT_GAP = 0.03
"""Spades and clubs share most of their outline, and every wrong read the bench has found was
one taken for the other, each scraping past the general lead and gap: a black suit must clear
these higher bars (on a seed of their own they kept ~80% of right black-suit reads)."""
MIN_SHARPNESS = 4.6
"""Least index sharpness for a black suit: the softer of rank and suit, each its height over
the width of its edge (`calibration.glyphs.sharpness`). Below it a glyph is too blurred to
trust whatever it matches. On 90 rendered frames of a seed of their own, every wrong corner
read scored 4.4 or less; 4.6 kept 78% of the right black-suit reads."""
MIN_SHARPNESS_RED = 4.2
"""The same gate for red suits, whose outlines differ more (kept ~80% of right reads)."""
MAX_ASPECT_ERROR = 0.3
"""A glyph whose height/width differs from its template's by more than 30% is not that glyph."""


@dataclass(frozen=True, slots=True)
class IndexRead:
    """The result of reading one corner: `code` ("AS") or None for unknown, and a confidence."""

    code: str | None
    confidence: float


@dataclass(frozen=True, slots=True)
class GlyphScore:
    """One glyph's best class (None when in doubt), its correlation and its discriminant lead."""

    key: str | None
    score: float
    lead: float
    gap: float = 1.0


class IndexClassifier:
    """Reads a corner window (BGR, upright, cut by the deck's `index_window`) into a card code."""

    def __init__(
        self,
        deck: DeckCalibration,
        templates: DeckTemplates,
        *,
        min_score: float = MIN_SCORE,
        min_lead: float = MIN_LEAD,
        min_gap: float = MIN_GAP,
    ) -> None:
        self._deck = deck
        self._ranks = {k: [standardise(t) for t in v] for k, v in templates.ranks.items()}
        self._suits = {k: [standardise(t) for t in v] for k, v in templates.suits.items()}
        self.min_score = min_score
        self.min_lead = min_lead
        self.min_gap = min_gap

    def _best(
        self,
        glyph: Glyph,
        box: tuple[int, int, int, int],
        templates: dict[str, list[Glyph]],
        aspects: dict[str, float],
        size: tuple[int, int],
        allowed: list[str],
        strict: bool = False,
    ) -> GlyphScore:
        sample = standardise(normalise(glyph, size))
        shape = aspect(box)
        # Every allowed class competes, whatever its shape: the aspect check only vetoes the
        # winner, so a lone survivor of a shape filter can never win unopposed.
        scores = sorted(
            (
                (*max((float(sample @ t), i) for i, t in enumerate(templates[k])), k)
                for k in allowed
            ),
            reverse=True,
        )
        if not scores:
            return GlyphScore(None, 0.0, 0.0)
        best, level, key = scores[0]
        if abs(shape / aspects[key] - 1.0) > MAX_ASPECT_ERROR:
            return GlyphScore(None, max(0.0, best), 0.0, 0.0)
        lead = 0.5
        gap = best - scores[1][0] if len(scores) > 1 else 1.0
        if len(scores) > 1:
            # Compare both classes at the sharpness level that fits the glyph best.
            mine, other = templates[key][level], templates[scores[1][2]][level]
            d = mine - other
            mid = (mine + other) / 2
            lead = float((sample - mid) @ d / max(1e-9, float(d @ d)))
        min_lead = max(self.min_lead, BLACK_SUIT_LEAD) if strict else self.min_lead
        min_gap = max(self.min_gap, BLACK_SUIT_GAP) if strict else self.min_gap
        if best < self.min_score or lead < min_lead or gap < min_gap:
            return GlyphScore(None, max(0.0, best), lead, gap)
        return GlyphScore(key, best, lead, gap)

    def scores(self, window: Image) -> tuple[GlyphScore, GlyphScore, float] | None:
        """Rank and suit scores and the rank's sharpness; None when `window` holds no index."""
        ink = find_index(window)
        if ink is None:
            return None
        deck = self._deck
        rank = self._best(
            ink.rank, ink.rank_box, self._ranks, deck.rank_aspect, deck.rank_size, deck.ranks
        )
        colour = [s for s in deck.suits if (s in deck.red_suits) == ink.red]
        suit = self._best(
            ink.suit,
            ink.suit_box,
            self._suits,
            deck.suit_aspect,
            deck.suit_size,
            colour,
            strict=not ink.red,
        )
        return rank, suit, ink.sharpness

    def read(self, window: Image) -> IndexRead | None:
        """Read `window`; None when it holds no index ink at all (blank, back, washed out)."""
        found = self.scores(window)
        if found is None:
            return None
        rank, suit, sharp = found
        confidence = round(min(rank.score, suit.score), 4)
        # Spades and clubs differ only in fine detail (a point or a lobe): they need a crisper
        # glyph than the red suits, which differ in outline.
        needed = MIN_SHARPNESS if suit.key not in self._deck.red_suits else MIN_SHARPNESS_RED
        if rank.key is None or suit.key is None or sharp < needed:
            return IndexRead(None, confidence)
        return IndexRead(rank.key + suit.key, confidence)
