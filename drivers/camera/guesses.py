"""Merging the reads of guessed outlines (proposals, detected index corners) into the readings.

A coded `CardReading`'s first corner is the index corner it was read at (the recognizer rolls
the outline so), so two readings can be told apart by *where their indices are*, not only by how
much their outlines overlap: cards dealt in a row or a fan overlap by most of their area while
each shows its own index, and a code read at one printed index is a claim about that index only.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.outline import CardOutline, lengths
from drivers.camera.reading import CardReading
from drivers.camera.tuning import INDEX_CENTRE, SAME_INDEX, SAME_SPOT


def _overlap(a: CardReading, b: CardReading) -> float:
    """Intersection of two readings' quads over the smaller one's area."""
    qa = np.array(a.corners, np.float32)
    qb = np.array(b.corners, np.float32)
    inter, _ = cv2.intersectConvexConvex(qa, qb)
    small = min(float(cv2.contourArea(qa)), float(cv2.contourArea(qb)))
    return float(inter) / max(1.0, small)


def _indices(reading: CardReading) -> tuple[list[npt.NDArray[Any]], npt.NDArray[Any] | None, float]:
    """Where a coded reading's code was read, where its other index lies unread, its height.

    The centres of the index windows its code was read at: its first corner always (the
    recognizer rolls the outline so), its third too when that corner named the code as well
    (`index_reads` 2), and then there is no unread index (None).
    """
    q = np.array(reading.corners, np.float64)
    u, v = INDEX_CENTRE
    first = q[0] + u * (q[1] - q[0]) + v * (q[3] - q[0])
    third = q[2] + u * (q[3] - q[2]) + v * (q[1] - q[2])
    height = float(np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    if reading.index_reads >= 2:
        return [first, third], None, height
    return [first], third, height


def _turned(a: CardReading, b: CardReading) -> bool:
    """Whether `b` is `a`'s own card read at the index `a` left unread (its other end).

    `b` was read where `a`'s other index lies, and `b`'s outline, at `a`'s size if smaller (a
    guessed outline takes the frame's card size), covers the index `a` was read at: a card of
    its own lying over `a`'s other index cannot, since `a`'s index was read, so in view.
    """
    a_read, a_other, ha = _indices(a)
    b_read, _, hb = _indices(b)
    tol = SAME_INDEX * min(ha, hb)
    if a_other is None or all(float(np.linalg.norm(p - a_other)) > tol for p in b_read):
        return False
    q = np.array(b.corners, np.float64)
    grown = q[0] + (q - q[0]) * max(1.0, ha / max(hb, 1.0))
    point = (float(a_read[0][0]), float(a_read[0][1]))
    return cv2.pointPolygonTest(grown.astype(np.float32), point, False) >= 0


def same_index(a: CardReading, b: CardReading) -> bool:
    """Whether coded readings `a` and `b` claim one printed index.

    True when an index `a`'s code was read at lies within `SAME_INDEX` of the card's height of
    one `b`'s was read at, or when one is the other's card read at its unread other index
    (`_turned`). An index a reading left unread is no claim by itself: on a row or a fan the
    card lying over it hides it, and what shows there is that card's own index.
    """
    return _read_together(a, b) or _turned(a, b) or _turned(b, a)


def _read_together(a: CardReading, b: CardReading) -> bool:
    """Whether an index `a`'s code was read at lies within `SAME_INDEX` of one `b`'s was."""
    a_read, _, ha = _indices(a)
    b_read, _, hb = _indices(b)
    tol = SAME_INDEX * min(ha, hb)
    return any(float(np.linalg.norm(p - q)) <= tol for p in a_read for q in b_read)


def _explained(claims: list[CardReading], firm: int) -> set[int]:
    """The guesses in `claims` (positions from `firm` on) read on a firm card of their own code.

    A guess whose read index lies inside the outline of a firm reading (one of the first `firm`
    claims) naming the same code read that card's print: its claim is that card's, and its
    guessed outline beyond the index says nothing of where its card lies. On the tuning
    designs (studio) such outlines, a proposal fitted to the card beneath, reached over that
    card's own read index, so `_turned` took the two for one card read two ways: a QS guess read
    at the upper-right index of a four-index deck over a QH's hidden end, and a 7S guess
    repeating a firm 7S over a 6D lying beneath it; each lost the card beneath.
    """
    quads = [(c.code, np.array(c.corners, np.float32)) for c in claims[:firm]]
    out: set[int] = set()
    for n in range(firm, len(claims)):
        g = claims[n]
        read = _indices(g)[0][0]
        point = (float(read[0]), float(read[1]))
        if any(code == g.code and cv2.pointPolygonTest(q, point, False) >= 0 for code, q in quads):
            out.add(n)
    return out


def contested(claims: list[CardReading], firm: int = 0) -> set[int]:
    """The positions in `claims` (coded readings) that another claim contradicts.

    A claim is contradicted by one naming another code at the same printed index
    (`same_index`), whichever of the two was made first. The first `firm` claims are firm
    readings: one whose two index corners both named its code outranks a guess read at one
    index (`outranks`), which alone is then contradicted.
    """
    mutual, outranked = _disputes(claims, firm)
    return mutual | outranked


def _disputes(claims: list[CardReading], firm: int) -> tuple[set[int], set[int]]:
    """`contested`'s positions, split: those in a clash of equals, and those only outranked."""
    mutual: set[int] = set()
    outranked: set[int] = set()
    explained = _explained(claims, firm)
    for i, j in _near_pairs(claims):
        a, b = claims[i], claims[j]
        if a.code == b.code:
            continue
        # A guess read on a firm card of its own code is judged by its read index alone.
        if i in explained or j in explained:
            if not _read_together(a, b):
                continue
        elif not same_index(a, b):
            continue
        if i < firm <= j and outranks(a, b):
            outranked.add(j)
        else:
            mutual |= {i, j}
    return mutual, outranked - mutual


def outranks(firm: CardReading, guess: CardReading) -> bool:
    """Whether the firm reading `firm` stands against `guess`, naming another code at its index.

    True when both of `firm`'s index corners named its code and `guess` was read at one index
    only. The firm outline was found on the card's own edges and its two windows, at opposite
    ends of the card, each read the code on every moved cut; a guessed outline takes the
    frame's card size and may cut a window a little too small or too large (the tuning
    designs' studio frames: proposals read a firm 8H, read at both ends at 1.0, as QH at
    0.98-0.998, and the 8H was lost twice; no firm two-corner reading was wrong there).
    """
    return firm.index_reads >= 2 and guess.index_reads < 2


def _near_pairs(claims: list[CardReading]) -> list[tuple[int, int]]:
    """The pairs (i < j) of `claims` with an index of each within `SAME_INDEX` of each other.

    All pairs are measured at once, with a margin far above float rounding, so that
    `same_index` itself (which decides) is called on the few near pairs only: called on every
    pair of a frame's tens of claims it cost more than the rest of the merge.
    """
    if len(claims) < 2:
        return []
    q = np.array([r.corners for r in claims], np.float64)
    u, v = INDEX_CENTRE
    first = q[:, 0] + u * (q[:, 1] - q[:, 0]) + v * (q[:, 3] - q[:, 0])
    third = q[:, 2] + u * (q[:, 3] - q[:, 2]) + v * (q[:, 1] - q[:, 2])
    height = (
        np.linalg.norm(q[:, 3] - q[:, 0], axis=1) + np.linalg.norm(q[:, 2] - q[:, 1], axis=1)
    ) / 2
    tol = SAME_INDEX * np.minimum(height[:, None], height[None, :]) * (1 + 1e-6) + 1e-6

    def within(p: npt.NDArray[Any], r: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
        near: npt.NDArray[np.bool_] = np.linalg.norm(p[:, None] - r[None, :], axis=2) <= tol
        return near

    # `same_index` (and `_turned`) only ever holds when some index of one (its first or
    # third corner's) lies within the tolerance of some index of the other.
    cross = within(first, third)
    near = within(first, first) | cross | cross.T | within(third, third)
    i, j = np.nonzero(np.triu(near, 1))
    return [(int(a), int(b)) for a, b in zip(i, j, strict=True)]


def merge_guesses(readings: list[CardReading], guesses: list[CardReading]) -> list[CardReading]:
    """Add the reads of speculative outlines to the firm readings without doubling a card.

    Every coded claim (firm coded readings and guesses) is first checked against all the
    others at once: two naming different codes at the same printed index (`same_index`)
    contradict each other, and neither is believed: the firm reading is left unknown and the
    guess adds nothing (a wrong card is worse than none), unless the firm reading read its
    code at both indices and the guess at one (`outranks`): the guess alone is then dropped,
    and stands as no card. This does not depend on the order the guesses come in: merged one
    by one, a clash left the firm reading unknown and a later
    guess repeating the contradicting code then replaced it (on the tuning designs a proposal
    too small for its card read an 8S's index as QS twice: the first read cleared the 8S, the
    second took its place). Then each uncontradicted guess, surest first: one repeating a
    code a reading already holds, anywhere in the frame (a firm reading, or a surer guess),
    adds nothing (`_held`); otherwise it is a card of its own, even over most of another card
    (a row, a fan): it replaces the unknown readings on its spot (`SAME_SPOT`), and coded
    readings there, read at other indices, stay. The surest of the contradicted guesses stands
    as an unknown card where no reading covers its spot.
    """
    firm = [i for i, r in enumerate(readings) if r.code is not None]
    claims = [readings[i] for i in firm] + list(guesses)
    mutual, outranked = _disputes(claims, len(firm))
    doubted = mutual | outranked
    out = [
        r.model_copy(update={"code": None, "confidence": 0.0, "index_reads": 0})
        if k in firm and firm.index(k) in doubted
        else r
        for k, r in enumerate(readings)
    ]
    believed = [g for n, g in enumerate(guesses) if len(firm) + n not in doubted]
    for g in sorted(believed, key=lambda r: -r.confidence):
        if _held(g, out):
            continue
        same = [i for i, r in enumerate(out) if r.code is None and _overlap(r, g) >= SAME_SPOT]
        out = [r for i, r in enumerate(out) if i not in same]
        out.append(g)
    # Contradicting guesses still say a face-up card lies there: the surest of them stands as
    # an unknown card where no reading does. An outranked guess misread the firm card's own
    # index: it says nothing of another card.
    for n in sorted(mutual - set(range(len(firm))), key=lambda n: -claims[n].confidence):
        g = claims[n]
        if not any(_overlap(r, g) >= SAME_SPOT for r in out):
            out.append(g.model_copy(update={"code": None, "confidence": 0.0, "index_reads": 0}))
    return out


def _held(guess: CardReading, readings: list[CardReading]) -> bool:
    """Whether a reading of `readings` already names `guess`'s code, wherever it lies.

    Each round is dealt from one 52-card deck (docs/games.md), so a code shows once in a
    frame: a guess repeating a held code either read that card's own print again (over it,
    which the merge always dropped) or misread another card's partly covered index as it (on
    the tuning caches, a proposal's QC at 0.985 on a 7C under a chip, the QC read at 1.0 in
    another pile; a refined 2C at 0.973 on a fanned 2S, the 2C read at 1.0 beside it). The
    reading already held is the firm card's or the surer guess's (`merge_guesses` adds the
    guesses surest first); every repeat on those caches was the less sure claim, and wrong.
    """
    return any(r.code == guess.code for r in readings)


def off_read_indices(outlines: list[CardOutline], readings: list[CardReading]) -> list[CardOutline]:
    """`outlines` (guesses) without their index corners on an index a reading read at both ends.

    A guessed corner whose index window's centre lies within `SAME_INDEX` of the card's height
    of one a coded reading read at both its indices was read at claims that printed index
    (`same_index`): read, it can only repeat that code, which `merge_guesses` drops, or name
    another, which that reading outranks (`outranks`): either way the merge drops it. Such a
    corner's support is set to 0 (it is neither read nor anchored, `finder.readable_turns`);
    an outline with no corner left is dropped. On the tuning designs most reads of guesses
    were such repeats (a region that holds an unread card is proposed over whole, the cards
    it read included): ~9 coded proposal reads a frame for ~0.7 cards they added, and reading
    and anchoring the proposals was half a frame's time.
    """
    # Only readings read at both ends: a guess read at one index cannot stand against them
    # (`outranks`). A firm reading read at one end (a strip extended to a card especially)
    # is doubted by a guess naming another code there, and that doubt is kept: on the harsh
    # tuning frames it alone kept a 6H read as 9H at 0.98 on an extended strip unknown.
    coded = [r for r in readings if r.code is not None and r.index_reads >= 2]
    if not coded or not outlines:
        return list(outlines)
    read = [(p, h) for r in coded for ps, _, h in [_indices(r)] for p in ps]
    at = np.array([p for p, _ in read], np.float64)
    read_height = np.array([h for _, h in read], np.float64)
    # Every guess's two index corners are measured against every read index at once: one
    # corner at a time, a frame's ~100 guessed corners cost ~2 ms of small numpy calls.
    quads = np.stack([np.asarray(o.corners, np.float64).reshape(4, 2) for o in outlines])
    on_read = _on_read_indices(quads, at, read_height)
    out: list[CardOutline] = []
    for o, hit in zip(outlines, on_read, strict=True):
        support = list(o.support)
        for turn in (0, 2):
            if support[turn] > 0.0 and hit[turn // 2]:
                support[turn] = 0.0
        if support[0] > 0.0 or support[2] > 0.0:
            kept = (support[0], support[1], support[2], support[3])
            out.append(o if kept == o.support else replace(o, support=kept))
    return out


def _on_read_indices(
    quads: npt.NDArray[np.float64], at: npt.NDArray[np.float64], heights: npt.NDArray[np.float64]
) -> list[tuple[bool, bool]]:
    """Whether each quad's index windows at corners 0 and 2 lie on an index read already.

    Per quad of `quads` (N x 4 x 2): its window centre at each corner lies within `SAME_INDEX`
    of the card's height of one of the read index centres `at` (of cards `heights` tall).
    """
    u, v = INDEX_CENTRE
    hits = []
    for turn in (0, 2):
        q = quads[:, [turn, (turn + 1) % 4, (turn + 2) % 4, (turn + 3) % 4]]
        centre = q[:, 0] + u * (q[:, 1] - q[:, 0]) + v * (q[:, 3] - q[:, 0])
        height = (lengths(q[:, 3] - q[:, 0]) + lengths(q[:, 2] - q[:, 1])) / 2
        apart = np.linalg.norm(at[None, :, :] - centre[:, None, :], axis=2)
        hits.append((apart <= SAME_INDEX * np.minimum(heights[None, :], height[:, None])).any(1))
    return list(zip(hits[0].tolist(), hits[1].tolist(), strict=True))
