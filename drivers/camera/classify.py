"""Rank and suit classification of one index corner against a deck's templates.

A glyph takes the class of its best-correlated template only when that correlation is high and
the glyph also sits clearly on the best template's side of the line between the best and the
runner-up (a two-class discriminant: spades and clubs share most of their outline, so a plain
correlation margin is too blunt). The ink colour must agree with the suit. A corner the
templates refuse may still be read by the deck's learned index reader
(`drivers.camera.index_model`), under stricter bars; it is never asked about a corner the
templates read, so it costs only where it can help. Every doubt resolves to unknown: a wrong
card is worse than none.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from calibration.profile import DeckCalibration, DeckTemplates
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.face_ink import PAPER_GROUND, Symbol, find_face_ink, same_layout, symbol
from drivers.camera.glyphs import (
    RED_SHARE,
    Glyph,
    Image,
    aspect,
    find_index,
    normalise,
    standardise,
)
from drivers.camera.index_model import NONE, Array, IndexModel, window_tensor
from drivers.camera.tuning import INDEX_READERS, LEARNED_TUNING, ReaderTuning

MIN_SCORE = 0.85
"""Least correlation with the best template. These three thresholds were chosen on 60 rendered
frames of another seed than the bench's: together they kept ~90% of right corner reads and none
of the 20 wrong ones (wrong reads scored up to 0.97 but never cleared all three)."""
MIN_LEAD = 0.2
"""Least position past the midpoint between runner-up (-0.5) and best template (+0.5)."""
MIN_GAP = 0.02
"""Least lead of the best correlation over the runner-up's, in correlation units: when two
templates nearly coincide the discriminant's lead is noise, and this catches it."""
STRICT_SUITS = frozenset({"S", "C", "D"})
STRICT_LEAD = 0.3
STRICT_GAP = 0.03
"""Suits that blur can counterfeit, or be counterfeited by, must clear these higher bars than
the general lead and gap. Spades and clubs share most of their outline, and every black-suit
wrong read the bench found was one taken for the other, each scraping past the general bars
(on a seed of their own these kept ~80% of right black-suit reads). Blur fills a heart's notch
until it looks like a diamond: a heart read as a diamond at lead 0.202 (just past the general
0.2) is the one red wrong read found on 31,772 corners of seven bench seeds (11, 4242, 99991,
20261129, 8080, 5, 6); these bars cost 65 of 17,159 right corner reads there."""
SOFT_BLACK_GAP = 0.04
"""Below the sharpness that a spade needs (`MIN_SHARPNESS`), a club must lead the spade by this
much: an index that soft has lost a spade's point and a club's lobes alike, and motion blur
smears a spade towards a club. The three spades read as clubs on 2,700 bench frames (nine
seeds) came from indices of sharpness 2.93-4.31 with gaps of 0.030-0.035. On six of those seeds
(6, 11, 12, 13, 4242, 99991) the rule refuses 428 of 9,879 right spade, club and diamond corner
reads (4.3%); a bar tied to a softer index (4.0) missed the one at 4.31, found on a seed held
out from its choice."""

MIN_SHARPNESS = {"S": 5.6, "D": 3.5}
"""Least index sharpness to read a spade or a diamond: the softer of rank and suit, each its
height over the width of its edge (`drivers.camera.glyphs.sharpness`). Defocus fills a suit's
notches until a club looks like a spade and a heart like a diamond, so reads of the two solid
suits need a crisp index. On ~9,000 rendered corners of seeds 31, 77 and 1234 (bench styles,
both designs, outlines jittered by 1-1.5 px) and 2,800 small blurred test-style corners, the
sharpest club taken for a spade scored 5.12 and the sharpest heart taken for a diamond 2.79
(a later one scored 3.58: `STRICT_SUITS`). Hearts have no gate, and a soft club only a higher
lead over the spade (`SOFT_BLACK_GAP`): refusing every soft index cost ~10% of reads."""
COLOUR_DOUBT = (0.15, 0.35)
"""Ink redness shares (`drivers.camera.glyphs.red_share`; red above 0.3) too near the line to trust
the colour: a dark red under a dim cast can fall under it, and the suit is then matched among
the wrong colour (a diamond read as a spade)."""
WEAK_RANK = (0.7, 0.35, 0.05)
"""A rank whose correlation misses `MIN_SCORE` (a small soft index) still takes its class with
correlation >= 0.7, lead >= 0.35 and gap >= 0.05: on ~9,000 rendered corners no wrong rank
candidate led by more than 0.25 or correlated above 0.78."""
NEAREST_LEVELS = 2
"""Template levels a glyph is compared with: the two whose sharpness is nearest the index's. A
blurred club compared with a crisp spade template can beat a crisp club template; compared only
with templates as soft as itself it does not (corner reads up 5-10% on seeds 31 and 77)."""
LEARNED_MIN_P = 0.97
"""Least probability of both heads of the learned reader (`drivers.camera.index_model`) to read a
corner the templates refuse."""
LEARNED_CLUB_P = 0.99
"""Least probability of both heads to read a club alone: the black suits are told apart by
shape only, and at 0.97 one blurred 125 px ten of spades read as the ten of clubs (rank 0.977,
suit 0.994) among 2,945 corners of seed 1234 (`bench/camera_corners.py`). Red suits also have
their colour (yet one plain five of diamonds was read as the king of hearts: `read` now lets
the network confirm only the templates' own best guess)."""
ALONE_SUITS = frozenset("HDC")
"""Suits the learned reader may read on its own. Defocus fills a club's notches until it looks
like a spade, and the network cannot tell a soft club from a spade: on small
blurred classic corners (seed 606) its wrong spade reads (blurred clubs) reached 0.997 while its
right ones topped at 0.996, and every wrong learned read on the first bench seeds was a club
read as a spade (the later ones, spades read as clubs, are why `read` is stricter). A spade is
read by the templates (which read it only when crisp) or not at all."""
LEARNED_HINT_P = 0.5
"""A corner the templates refuse whose learned read is this sure of a code hints at that code
(`IndexRead.hint`): too unsure to read, sure enough to contradict the card's other corner."""
FACE_TALLEST_SHARE = 0.85
FACE_OVER_INDEX = 1.3
"""A face symbol decides a suit only when it is at least 85% as tall as the tallest suit-like
symbol on the face and 1.3 times the index suit: pips, a jumbo deck's centre symbol and a court
picture's symbol are all larger than the index (1.8-5x on the synthetic decks), while another
card's index lying across the face, or a chip's print, is not."""
FACE_WAY_MARGIN = 0.03
"""A face symbol whose other way up fits another suit within this much of its best fit is in
doubt (an upside-down blurred club once scored 0.90 as a spade, 0.08 under its own fit)."""
MAX_ASPECT_ERROR = 0.3
"""A glyph whose height/width differs from its template's by more than 30% is not that glyph."""


_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IndexRead:
    """The result of reading one corner: `code` ("AS") or None for unknown, and a confidence.

    `hint` is the learned reader's best code even when too unsure to read (None without one):
    a card whose other corner hints at another code is unknown. `rank` and `suit` are the
    templates' scores behind the read, also when they refused it (None on a learned read).
    """

    code: str | None
    confidence: float
    hint: str | None = None
    rank: GlyphScore | None = None
    suit: GlyphScore | None = None
    not_index: float | None = None
    """The learned reader's probability that the window holds no index of the deck (None from
    the templates): a back's pattern is "none" to it."""


@dataclass(frozen=True, slots=True)
class GlyphScore:
    """One glyph's best class (None when in doubt), its correlation and its discriminant lead.

    `candidate` is the best class even when refused; `height` the height in pixels of the glyph
    as compared (a flat card's scale, `calibration.deck.CANON_SIZE`; a face symbol's after
    `shrunk`).
    """

    key: str | None
    score: float
    lead: float
    gap: float = 1.0
    candidate: str | None = None
    rival: float = -1.0
    height: int = 0


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
        reader: str = "templates",
        tuning: ReaderTuning = LEARNED_TUNING,
    ) -> None:
        if reader not in INDEX_READERS:
            raise RecognizerConfigurationError(
                f"unknown index reader {reader!r}: one of {', '.join(sorted(INDEX_READERS))}"
            )
        if reader == "learned" and templates.model is None:
            # A profile calibrated before the network existed keeps reading, as it always did.
            _log.warning(
                "the deck has no learned index reader: its templates decide "
                "(calibrate it again with studio calibrate deck for the learned reader)"
            )
        self._deck = deck
        self._model: IndexModel | None = templates.model
        self.learned_decides = reader == "learned" and templates.model is not None
        """Whether the deck's network alone decides each corner (`INDEX_READERS`)."""
        self._tuning = tuning
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
        levels: list[int],
        strict: frozenset[str] = frozenset(),
        rivals: tuple[str, ...] = (),
        weak_ok: bool = False,
    ) -> GlyphScore:
        sample = standardise(normalise(glyph, size))
        shape = aspect(box)
        # Every allowed class competes, whatever its shape: the aspect check only vetoes the
        # winner, so a lone survivor of a shape filter can never win unopposed.
        scores = sorted(
            ((*max((float(sample @ templates[k][i]), i) for i in levels), k) for k in allowed),
            reverse=True,
        )
        if not scores:
            return GlyphScore(None, 0.0, 0.0)
        best, level, key = scores[0]
        if abs(shape / aspects[key] - 1.0) > MAX_ASPECT_ERROR:
            return GlyphScore(None, max(0.0, best), 0.0, 0.0, key, height=box[3])
        lead = 0.5
        gap = best - scores[1][0] if len(scores) > 1 else 1.0
        if len(scores) > 1:
            # Compare both classes at the sharpness level that fits the glyph best.
            mine, other = templates[key][level], templates[scores[1][2]][level]
            d = mine - other
            mid = (mine + other) / 2
            lead = float((sample - mid) @ d / max(1e-9, float(d @ d)))
        min_lead = max(self.min_lead, STRICT_LEAD) if key in strict else self.min_lead
        min_gap = max(self.min_gap, STRICT_GAP) if key in strict else self.min_gap
        # A suit of the other ink colour cannot win, but one that fits the shape better means
        # the colour was misjudged (a dark red under a cast, a diamond taken for a spade).
        rival = max((float(sample @ templates[k][i]) for k in rivals for i in levels), default=-1.0)
        passes = best >= self.min_score and lead >= min_lead and gap >= min_gap
        clear = best >= WEAK_RANK[0] and lead >= WEAK_RANK[1] and gap >= WEAK_RANK[2]
        if not (passes or (weak_ok and clear)) or rival > best:
            return GlyphScore(None, max(0.0, best), lead, gap, key, rival, box[3])
        return GlyphScore(key, best, lead, gap, key, rival, box[3])

    def _fit(self, glyph: Glyph, suit: str, levels: list[int]) -> float:
        """The best correlation of a suit `glyph` with `suit`'s templates at `levels`."""
        sample = standardise(normalise(glyph, self._deck.suit_size))
        return max(float(sample @ self._suits[suit][i]) for i in levels)

    def _levels(self, sharp: float) -> list[int]:
        """The template levels nearest `sharp` (all of them for a deck without level sharpness)."""
        known = self._deck.level_sharpness
        if len(known) != self._deck.levels:
            return list(range(self._deck.levels))
        distance = [abs(math.log(max(0.5, sharp) / max(0.5, k))) for k in known]
        return sorted(sorted(range(len(known)), key=distance.__getitem__)[:NEAREST_LEVELS])

    def scores(self, window: Image) -> tuple[GlyphScore, GlyphScore, float] | None:
        """Rank and suit scores and the index's sharpness; None when `window` holds no index.

        The suit is unknown when the ink's colour is in doubt (`COLOUR_DOUBT`).
        """
        ink = find_index(window)
        if ink is None:
            return None
        deck = self._deck
        levels = self._levels(ink.sharpness)
        rank = self._best(
            ink.rank,
            ink.rank_box,
            self._ranks,
            deck.rank_aspect,
            deck.rank_size,
            deck.ranks,
            levels,
            weak_ok=True,
        )
        colour = [s for s in deck.suits if (s in deck.red_suits) == ink.red]
        other = tuple(s for s in deck.suits if s not in colour)
        suit = self._best(
            ink.suit,
            ink.suit_box,
            self._suits,
            deck.suit_aspect,
            deck.suit_size,
            colour,
            levels,
            strict=STRICT_SUITS,
            rivals=other,
        )
        if COLOUR_DOUBT[0] <= ink.redness <= COLOUR_DOUBT[1]:
            suit = replace(suit, key=None)
        return rank, suit, ink.sharpness

    def read(self, window: Image, *, guessed: bool = False) -> IndexRead | None:
        """Read `window`; None when it holds no index ink at all (blank, back, washed out).

        The templates read first, and their read stands. Only a corner they refuse is shown to
        the learned reader (it costs as much again): it reads only the code of the templates'
        best (refused) guesses for rank and suit, when sure of both
        (`LEARNED_MIN_P`; a club `LEARNED_CLUB_P`), never a spade (`ALONE_SUITS`), and never on
        a `guessed` outline (a proposal): its corner may be any patch of the felt or of other
        cards, and the network, trained on index corners only, can be sure of one anyway (two
        proposals' corners over spades read as clubs at 0.996 and 0.997, seeds 99991 and 13).
        A refused corner it leans on at `LEARNED_HINT_P` carries that code as a `hint`, so a
        card's other corner can be contradicted.
        """
        if self.learned_decides and self._model is not None:
            return self._learned(self._model, window, guessed)
        found = self.scores(window)
        if found is None:
            return None  # No index ink: nothing for the network to confirm (see below).
        template = replace(judge(*found), rank=found[0], suit=found[1])
        if guessed and template.code is not None and _soft_solid(template.code, found[2]):
            template = replace(template, code=None)
        if self._model is None or template.code is not None:
            return template
        guess = self._model.guess(window)
        if guess is None or (guess.rank == NONE and guess.suit == NONE):
            return template
        code = guess.rank + guess.suit if NONE not in (guess.rank, guess.suit) else None
        sure = min(guess.rank_p, guess.suit_p)
        hint = code if sure >= LEARNED_HINT_P else None
        least = LEARNED_CLUB_P if guess.suit == "C" else LEARNED_MIN_P
        # The network reads only what the templates' own best guesses say, refused as they were:
        # two readers that work differently agreeing. Alone, it once read a plain five of
        # diamonds, its suit half under a chip, as the king of hearts at 0.976 (seed 21).
        agrees = code is not None and (found[0].candidate, found[1].candidate) == (
            guess.rank,
            guess.suit,
        )
        if agrees and not guessed and guess.suit in ALONE_SUITS and sure >= least:
            return IndexRead(code, round(sure, 4), hint)
        return replace(template, hint=hint)

    def _learned(self, model: IndexModel, window: Image, guessed: bool) -> IndexRead | None:
        """The network's read of `window`, deciding alone (`ReaderTuning` holds every bar).

        None when the window holds no print at all. A code reads when both heads are at least
        `abstain` sure (`abstain_guessed` on a guessed outline); an unsure code is a `hint`
        from `hint` up. The confidence is the weaker head's probability of its best class.
        """
        tensor = window_tensor(window)
        if tensor is None:
            return None
        cuts = [tensor, *self._moved(window)]
        pr, ps = model.probabilities(np.stack(cuts))
        i, j = int(pr[0].argmax()), int(ps[0].argmax())
        rank, suit = model.ranks[i], model.suits[j]
        not_index = float(pr[0, model.ranks.index(NONE)])
        code = rank + suit if NONE not in (rank, suit) else None
        if code is None:
            return IndexRead(None, 0.0, not_index=not_index)
        # A read must survive the outline being a little off: every moved cut names the same
        # code, and the confidence is the least sure head over all of them.
        if any(int(r.argmax()) != i or int(s.argmax()) != j for r, s in zip(pr, ps, strict=True)):
            return IndexRead(None, 0.0, not_index=not_index)
        sure = float(min(pr[:, i].min(), ps[:, j].min()))
        bar = self._tuning.abstain_guessed if guessed else self._tuning.abstain
        if sure >= bar:
            return IndexRead(code, round(sure, 6), code, not_index=not_index)
        hint = code if sure >= self._tuning.hint else None
        return IndexRead(None, round(sure, 6), hint, not_index=not_index)

    def _moved(self, window: Image) -> list[Array]:
        """`window` cut through outlines moved by `ReaderTuning.moved` (network inputs)."""
        h, w = window.shape[:2]
        out = []
        shift, grow = self._tuning.moved
        for dx, dy, k in ((1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1), (0, 0, 1 + grow)):
            m = np.array([[k, 0, dx * shift * h + (1 - k) * w / 2], [0, k, dy * shift * h]])
            moved = cv2.warpAffine(window, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
            tensor = window_tensor(moved)
            if tensor is not None:
                out.append(tensor)
        return out

    def same_colour_twin(self, hint: str | None, code: str) -> bool:
        """Whether a learned `hint` leaves `code` standing: none, or the same rank and colour."""
        if hint is None:
            return True
        red = self._deck.red_suits
        return hint[:-1] == code[:-1] and (hint[-1] in red) == (code[-1] in red)

    def read_face(
        self,
        card: Image,
        rank: GlyphScore,
        suit: GlyphScore,
        visible: Image | None = None,
        layout: list[Symbol] | None = None,
    ) -> IndexRead:
        """Confirm an index's refused suit on the face of the flat card (BGR, upright) it is on.

        `rank` is the rank the index read (its key set); `suit.candidate` the templates' best,
        refused, guess for the index suit. Every symbol on the face is shrunk to the index
        suit's height (the templates were learned at that scale: a symbol twice as large is
        crisper than any of them) and compared both ways up (most decks print their lower pips
        upside down; this project's synthetic decks turn every centre symbol). A symbol fitting
        no suit template (`MIN_SCORE`) is not one (a letter, a picture's stripe). The code is
        read only when no symbol leans to another suit (`FACE_WAY_MARGIN`, unless that suit fits
        it as well its own way up; the other colour's rival; in doubt of its colour every suit
        competes) and one of the face's largest
        (`FACE_TALLEST_SHARE`, `FACE_OVER_INDEX`) takes `suit` outright: the correlation,
        lead and gap bars and the sharpness gates of `judge` with its own sharpness. `visible`
        masks the part of the flat card in view on a card partly covered (`find_face_ink`).
        With `layout` (where the deck prints the rank's symbols: `DeckCalibration.face_layouts`)
        the face's largest symbols must be those, in those places (`same_layout`), and no other
        ink may lie on the face: on a proposal's outline, whose face may be partly another
        card's, nothing else shows that the face is this card's.
        A wrong read needs the index and the face, two sizes of one symbol, to be wrong the
        same way.
        """
        deck = self._deck
        want = suit.candidate
        taken: list[tuple[GlyphScore, float, int]] = []
        symbols: list[tuple[Symbol, int]] = []
        tallest = 0
        inks = find_face_ink(card, deck.index_window, visible)
        for ink in inks:
            if COLOUR_DOUBT[0] <= ink.redness <= COLOUR_DOUBT[1]:
                colour = list(deck.suits)  # In doubt of the colour, every suit competes on shape.
            else:
                red = ink.redness > RED_SHARE
                colour = [s for s in deck.suits if (s in deck.red_suits) == red]
            other = tuple(s for s in deck.suits if s not in colour)
            levels = self._levels(ink.sharpness)
            glyph, box = shrunk(ink.glyph, ink.box, suit.height)
            both = [
                self._best(g, box, self._suits, deck.suit_aspect, deck.suit_size, colour, levels,
                           strict=STRICT_SUITS, rivals=other)
                for g in (glyph, glyph[::-1, ::-1])
            ]  # fmt: skip
            fit = [max(s.score, s.rival) for s in both]
            if max(fit) < self.min_score:
                continue  # Not a suit symbol: a letter, a picture's stripe, a speck.
            # The way up it fits best is its own (upside down, a spade is nearly a heart), and
            # there a symbol fitting another suit, or the other colour better, vetoes. So does
            # the other way up naming another suit almost as well: which way is in doubt.
            way = int(fit[1] > fit[0])
            own, turned = both[way], both[1 - way]
            doubt = turned.candidate != want and turned.score >= fit[way] - FACE_WAY_MARGIN
            if doubt and turned.candidate is not None:
                # A suit fitting both ways up alike (a diamond) was already weighed, and beaten,
                # the way the symbol is taken: which way is up does not change its case.
                upright = (glyph, glyph[::-1, ::-1])[way]
                doubt = (
                    self._fit(upright, turned.candidate, levels) < turned.score - FACE_WAY_MARGIN
                )
            if (
                (own.score >= self.min_score and own.candidate != want)
                or (own.rival >= self.min_score and own.rival > own.score)
                or doubt
            ):
                return IndexRead(None, 0.0)
            tallest = max(tallest, ink.box[3])
            symbols.append((symbol(ink, card.shape), ink.box[3]))
            # A symbol off the paper (`PAPER_GROUND`) may decide a red suit, never a black one:
            # a small jumbo king of clubs was read as the king of spades on its picture's panel
            # (`bench/camera_still.py`, seed 20261130), and so were heavily blurred court clubs
            # of both designs, measured against the paper or against the panel alike.
            if own.key == want and (ink.ground <= PAPER_GROUND or want in deck.red_suits):
                taken.append((own, ink.sharpness, ink.box[3]))
        # The deciding symbol is one of the face's largest and larger than the index suit: a
        # smaller one agreeing may be another card's index or a chip's print.
        deciding = [
            (s, sharp)
            for s, sharp, height in taken
            if height >= FACE_TALLEST_SHARE * tallest and height >= FACE_OVER_INDEX * suit.height
        ]
        if not deciding:
            return IndexRead(None, 0.0)
        if layout is not None:
            found = [s for s, height in symbols if height >= FACE_TALLEST_SHARE * tallest]
            biggest = max((p[2] for p in layout), default=0.0)
            printed = [p for p in layout if p[2] >= FACE_TALLEST_SHARE * biggest]
            # Nothing else may lie on the face: no smaller symbol, no letter, no line (another
            # card's index or edge, whose pips could fill the layout's places).
            if len(inks) != len(found) or not same_layout(found, printed):
                return IndexRead(None, 0.0)
        return judge(rank, *max(deciding, key=lambda d: d[1]))


def shrunk(
    glyph: Glyph, box: tuple[int, int, int, int], height: int
) -> tuple[Glyph, tuple[int, int, int, int]]:
    """`glyph` (with its box) area-resampled to `height` pixels tall when it is taller."""
    x, y, w, h = box
    if height <= 0 or h <= height:
        return glyph, box
    width = max(1, round(w * height / h))
    small: Glyph = cv2.resize(glyph, (width, height), interpolation=cv2.INTER_AREA)
    return small, (x, y, width, height)


def _soft_solid(code: str, sharpness: float) -> bool:
    """Whether `code` is a club or a diamond read from an index too soft for a spade.

    On a proposal's outline such a read is refused. A proposal's corner is cut from a guessed
    outline, a little off, and off-cut soft glyphs look like their neighbours more than on a
    firm outline. A small, motion-blurred king of spades read as the king of clubs, the club
    leading by 0.051, past `SOFT_BLACK_GAP` (held-out seed 20261130 of `bench/camera_still.py`),
    and a small blurred jack of hearts as the jack of diamonds (sharpness 4.09, past the
    diamond's `MIN_SHARPNESS`; gap 0.121, same bench) where the firm outline on the same card
    left its suit in doubt. The bar is the spade's (`MIN_SHARPNESS`).
    """
    return code[-1] in "CD" and sharpness < MIN_SHARPNESS["S"]


def judge(rank: GlyphScore, suit: GlyphScore, sharpness: float) -> IndexRead:
    """The read of an index from its rank and suit scores and its sharpness.

    A code only when both glyphs took a class and the suit clears the gates a soft index must
    pass; otherwise unknown, with the confidence of the weaker glyph.
    """
    confidence = round(min(rank.score, suit.score), 4)
    if rank.key is None or suit.key is None:
        return IndexRead(None, confidence)
    if sharpness < MIN_SHARPNESS.get(suit.key, 0.0):
        return IndexRead(None, confidence)
    if suit.key == "C" and sharpness < MIN_SHARPNESS["S"] and suit.gap < SOFT_BLACK_GAP:
        return IndexRead(None, confidence)
    return IndexRead(rank.key + suit.key, confidence)
