"""The reading of one index corner: the deck's learned index reader decides its code.

A corner window (cut through the card's outline by the deck's `index_window`) is read by the
deck's network (`drivers.camera.index_model`: the shipped universal reader fine-tuned on the
deck's 52 references at `studio calibrate deck`). What it decides is not decided again by hand
rules: every bar it reads with is in the one tuning table (`drivers.camera.tuning`), chosen on
the tuning designs only. Every doubt resolves to unknown: a wrong card is worse than none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from calibration.profile import DeckCalibration, DeckTemplates
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.index_model import (
    CHANNELS,
    INPUT_SIZE,
    MIN_CONTRAST,
    NONE,
    Array,
    Image,
    window_tensor,
)
from drivers.camera.tuning import INDEX_READERS, LEARNED_TUNING, ReaderTuning


class IndexNetwork(Protocol):
    """What the classifier asks of a reader: its class names and a batch's probabilities.

    The deck's `index_model.IndexModel` is one; a bench's `reader_ensemble.ReaderEnsemble`
    (several readers read as one) is another.
    """

    @property
    def ranks(self) -> tuple[str, ...]:
        """The rank head's class names, ending with `index_model.NONE`."""
        ...

    @property
    def suits(self) -> tuple[str, ...]:
        """The suit head's class names, ending with `index_model.NONE`."""
        ...

    def probabilities(self, batch: Array) -> tuple[Array, Array]:
        """Rank and suit class probabilities for a batch (N, CHANNELS, H, W) of windows."""
        ...


@dataclass(frozen=True, slots=True)
class IndexRead:
    """The result of reading one corner: `code` ("AS") or None for unknown, and a confidence.

    `hint` is the reader's best code even when too unsure to read (None without one): a card
    whose other corner hints at another code is unknown.
    """

    code: str | None
    confidence: float
    hint: str | None = None
    not_index: float | None = None
    """The network's probability that the window holds no index of the deck: a back's pattern
    is "none" to it."""


class IndexClassifier:
    """Reads a corner window (BGR, upright, cut by the deck's `index_window`) into a card code.

    `reader` names the index reader (`tuning.INDEX_READERS`). Raises
    `RecognizerConfigurationError` for an unknown reader, or a deck calibrated before it had a
    learned reader (`templates.model` None): it must be calibrated again. `network`, when
    given, reads instead of the deck's own reader (a bench's `reader_ensemble.ReaderEnsemble`).
    """

    def __init__(
        self,
        deck: DeckCalibration,
        templates: DeckTemplates,
        *,
        reader: str = "learned",
        tuning: ReaderTuning = LEARNED_TUNING,
        network: IndexNetwork | None = None,
    ) -> None:
        if reader not in INDEX_READERS:
            raise RecognizerConfigurationError(
                f"unknown index reader {reader!r}: one of {', '.join(sorted(INDEX_READERS))}"
            )
        if templates.model is None:
            raise RecognizerConfigurationError(
                "the deck has no learned index reader (calibrated before it existed): "
                "calibrate it again with studio calibrate deck"
            )
        self._deck = deck
        self._model: IndexNetwork = templates.model if network is None else network
        self._tuning = tuning

    def read(self, window: Image, *, guessed: bool = False) -> IndexRead | None:
        """Read `window`; None when it holds no print at all (blank, washed out).

        `guessed` says the corner was cut through a guessed outline (a proposal or a detected
        index corner), which the reader reads only when surer (`ReaderTuning.abstain_guessed`).
        """
        return self.read_all([(window, guessed)])[0]

    def read_all(
        self,
        windows: Sequence[tuple[Image, bool]],
        groups: Sequence[Sequence[int]] = (),
        settled: float = 0.0,
    ) -> list[IndexRead | None]:
        """`read` of each (window, guessed) pair, in order: the same reads, fewer network calls.

        The network runs once on every window's own cut, and once on the moved cuts
        (`ReaderTuning.moved`) of those whose own cut names a code: the moved cuts can only
        confirm a code, so a window naming none is not cut again.

        A code reads when both heads are at least `abstain` sure (`abstain_guessed` on a
        guessed outline) on the window and on every moved cut of it, all naming that code; an
        unsure code is a `hint` from `hint` up. The confidence is the weaker head's probability
        of its best class, the least over the cuts.

        `groups` are sets of positions in `windows` that the caller takes for one printed
        index (the two index corners of one card, or guessed outlines' corners at one index).
        Of a group's windows whose own cuts name the same code, the surest is checked on its
        moved cuts first; when it reads at `settled` or above, the others are not cut again:
        the index has held under moved outlines already. A guessed window then reads that
        code on its own cut alone from `abstain_guessed` up, with the lesser of both
        confidences; any other comes back as no code, with that code as its `hint` from `hint`
        up (its confidence its own cut's): the caller takes the card as read on the surest
        corner. Otherwise the others are checked as every window is.
        """
        model = self._model
        tensors = window_tensors([window for window, _ in windows])
        rows = [t for t in tensors if t is not None]
        if not rows:
            return [None] * len(windows)
        pr, ps = model.probabilities(np.stack(rows))
        none_rank = model.ranks.index(NONE)
        first: list[tuple[int, int, int] | None] = []  # (row, rank class, suit class)
        k = 0
        for t in tensors:
            first.append(None if t is None else (k, int(pr[k].argmax()), int(ps[k].argmax())))
            k += t is not None
        coded = {
            n: entry
            for n, entry in enumerate(first)
            if entry is not None and NONE not in (model.ranks[entry[1]], model.suits[entry[2]])
        }

        def sure(n: int) -> float:
            row, i, j = coded[n]
            return float(min(pr[row, i], ps[row, j]))

        later: dict[int, int] = {}  # a window -> the window of its index checked first
        for group in groups:
            by_code: dict[tuple[int, int], list[int]] = {}
            for n in group:
                if n in coded:
                    by_code.setdefault(coded[n][1:], []).append(n)
            for same in by_code.values():
                keep = max(same, key=sure)
                later.update((n, keep) for n in same if n != keep)
        out: list[IndexRead | None] = [None] * len(windows)
        for n, entry in enumerate(first):
            if entry is not None and n not in coded:
                row, i, j = entry
                not_index = float(pr[row, none_rank])
                out[n] = self._decide(
                    pr[row : row + 1], ps[row : row + 1], i, j, not_index, windows[n][1]
                )
        # Every code is checked on moved cuts (at one index, on its surest window), however
        # sure its first cut: on the tuning designs, reading first cuts at 0.999 alone let in
        # five wrong reads (hearts taken for diamonds, a club for a spade) that a moved cut
        # refused, and at 0.99999 none, but harsh recall fell 0.8 points (docs/camera.md,
        # "Speed at 1080p").
        now = [n for n in coded if n not in later]
        self._check_moved(windows, coded, pr, ps, now, out)
        again = []
        for other, keep in later.items():
            held = out[keep]
            if held is not None and held.code is not None and held.confidence >= settled:
                row, i, j = coded[other]
                code = model.ranks[i] + model.suits[j]
                own = sure(other)
                # A guessed window is a claim of its own in the merge (`merge_guesses`): it
                # reads on its own cut. A firm card's other corner adds nothing to the card
                # its surest corner settles: it stays a hint.
                coded_too = windows[other][1] and own >= self._tuning.abstain_guessed
                out[other] = IndexRead(
                    code if coded_too else None,
                    round(min(own, held.confidence) if coded_too else own, 6),
                    code if own >= self._tuning.hint else None,
                    not_index=float(pr[row, none_rank]),
                )
            else:
                again.append(other)
        self._check_moved(windows, coded, pr, ps, sorted(again), out)
        return out

    def _check_moved(
        self,
        windows: Sequence[tuple[Image, bool]],
        coded: dict[int, tuple[int, int, int]],
        pr: Array,
        ps: Array,
        todo: Sequence[int],
        out: list[IndexRead | None],
    ) -> None:
        """Read each window of `todo` on its moved cuts too, into `out[n]`.

        `coded[n]` is the row of `pr` and `ps` holding the window's own cut and the rank and
        suit classes it names (a code). A window reads nothing as soon as one moved cut names
        another code, whatever its other cuts say (`_decide`), so each is cut in two rounds of
        one network call each: its first moved cut, then the rest only where that one agreed.
        The outcome is the one all five cuts give together (the network reads each input
        alike in any batch); on the tuning frames one coded window in nine fails its moved
        cuts, and the first cut catches half of those.
        """
        if not todo:
            return
        model = self._model
        none_rank = model.ranks.index(NONE)
        first = self._moved_rows(windows, todo, _MOVES[:1])
        agreed = [
            n
            for n in todo
            if all(
                int(r.argmax()) == coded[n][1] and int(s.argmax()) == coded[n][2]
                for r, s in zip(*first[n], strict=True)
            )
        ]
        rest = self._moved_rows(windows, agreed, _MOVES[1:])
        for n in todo:
            row, i, j = coded[n]
            cut_r = [pr[row : row + 1], first[n][0]]
            cut_s = [ps[row : row + 1], first[n][1]]
            if n in rest:
                cut_r.append(rest[n][0])
                cut_s.append(rest[n][1])
            guessed = windows[n][1]
            out[n] = self._decide(
                np.concatenate(cut_r),
                np.concatenate(cut_s),
                i,
                j,
                float(pr[row, none_rank]),
                guessed,
            )

    def _moved_rows(
        self,
        windows: Sequence[tuple[Image, bool]],
        todo: Sequence[int],
        moves: Sequence[tuple[int, int, bool]],
    ) -> dict[int, tuple[Array, Array]]:
        """The network's rank and suit rows of each window of `todo` cut through `moves`.

        The cuts are `_moved`'s, read in one network call; a cut too flat to read is left out.
        """
        cut = [(n, self._moved(windows[n][0], moves)) for n in todo]
        made = iter(window_tensors([w for _, cuts in cut for w in cuts]))
        kept = {n: [t for t in (next(made) for _ in cuts) if t is not None] for n, cuts in cut}
        extra = [t for rows in kept.values() for t in rows]
        if extra:
            mr, ms = self._model.probabilities(np.stack(extra))
        else:
            n_ranks, n_suits = len(self._model.ranks), len(self._model.suits)
            mr, ms = np.zeros((0, n_ranks), np.float32), np.zeros((0, n_suits), np.float32)
        out: dict[int, tuple[Array, Array]] = {}
        m = 0
        for n, rows in kept.items():
            out[n] = (mr[m : m + len(rows)], ms[m : m + len(rows)])
            m += len(rows)
        return out

    def confirm_all(
        self, reads: Sequence[IndexRead], cuts: Sequence[Sequence[Image]]
    ) -> list[IndexRead]:
        """Each coded read of a guessed outline, kept only when its `cuts` agree.

        `cuts[n]` are more windows of the corner `reads[n]` was read at (the outline scaled,
        `ReaderTuning.scaled`). Every cut must name the same code, and the read's confidence
        becomes the least of both heads over them too; under `abstain_guessed` it is no code
        (its `hint` stays). One network call for all.
        """
        made = iter(window_tensors([c for group in cuts for c in group]))
        tensors = [[next(made) for _ in group] for group in cuts]
        rows = [t for group in tensors for t in group if t is not None]
        pr, ps = self._model.probabilities(np.stack(rows)) if rows else (None, None)
        out: list[IndexRead] = []
        k = 0
        for read, group in zip(reads, tensors, strict=True):
            if read.code is None:
                out.append(read)
                k += sum(t is not None for t in group)
                continue
            i = self._model.ranks.index(read.code[:-1])
            j = self._model.suits.index(read.code[-1])
            sure = read.confidence
            agree = True
            for t in group:
                if t is None or pr is None or ps is None:
                    # A cut showing no print cannot confirm an index.
                    agree = False
                    continue
                agree &= int(pr[k].argmax()) == i and int(ps[k].argmax()) == j
                sure = min(sure, float(pr[k, i]), float(ps[k, j]))
                k += 1
            if agree and sure >= self._tuning.abstain_guessed:
                out.append(IndexRead(read.code, round(sure, 6), read.code, read.not_index))
            else:
                out.append(
                    IndexRead(
                        None,
                        round(sure, 6) if agree else 0.0,
                        read.code if agree else None,
                        read.not_index,
                    )
                )
        return out

    def contradicts(self, reads: Sequence[IndexRead], windows: Sequence[Image]) -> list[bool]:
        """Whether each of `windows` names a code other than `reads[n]`'s own (code or lean).

        `windows[n]` is another cut of the corner `reads[n]` was read at (moved out toward the
        card's edges, `ReaderTuning.outward`). "None" in either head, or a window too flat to
        read, contradicts nothing. One network call for all.
        """
        tensors = window_tensors(windows)
        rows = [t for t in tensors if t is not None]
        if not rows:
            return [False] * len(windows)
        model = self._model
        pr, ps = model.probabilities(np.stack(rows))
        named = iter(
            (model.ranks[int(r.argmax())], model.suits[int(s.argmax())])
            for r, s in zip(pr, ps, strict=True)
        )
        out: list[bool] = []
        for read, tensor in zip(reads, tensors, strict=True):
            classes = None if tensor is None else next(named)
            out.append(
                classes is not None
                and NONE not in classes
                and "".join(classes) != (read.code or read.hint)
            )
        return out

    def _decide(
        self, pr: Array, ps: Array, i: int, j: int, not_index: float, guessed: bool
    ) -> IndexRead:
        """One window's read from its heads' probabilities over its cuts.

        The first row of `pr` and `ps` is the window's own cut, whose best classes are rank `i`
        and suit `j`; `not_index` is its probability of no index.
        """
        model = self._model
        rank, suit = model.ranks[i], model.suits[j]
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

    def _moved(self, window: Image, moves: Sequence[tuple[int, int, bool]]) -> list[Image]:
        """`window` cut through outlines moved by `ReaderTuning.moved`, one per `moves` entry.

        `moves` are entries of `_MOVES`; the cuts come back in their order.
        """
        h, w = window.shape[:2]
        out = []
        shift, grow = self._tuning.moved
        for dx, dy, grown in moves:
            k = 1 + grow if grown else 1
            m = np.array([[k, 0, dx * shift * h + (1 - k) * w / 2], [0, k, dy * shift * h]])
            out.append(cv2.warpAffine(window, m, (w, h), borderMode=cv2.BORDER_REPLICATE))
        return out


_MOVES: tuple[tuple[int, int, bool], ...] = (
    (0, 0, True),
    (1, 0, False),
    (-1, 0, False),
    (0, 1, False),
    (0, -1, False),
)
"""The moved cuts of `ReaderTuning.moved`: (across, down, grown) for the outline shifted by its
share of the window's height each way across and down, and grown by its second share about
the window's top middle. The grown cut goes first: on the tuning frames it was the one most
often naming another code (69 of 1,162 studio and 89 of 1,323 harsh coded windows checked; each
shift 58-71)."""


def window_tensors(windows: Sequence[Image]) -> list[Array | None]:
    """`index_model.window_tensor` of each of `windows`, equal to the bit, made faster.

    The same steps on the same values: the ink and paper levels are counted from the window's
    histogram (the k-th smallest of 8-bit levels, exactly what the partition picks, at a
    quarter of its cost), and the float arithmetic after the resize runs once on all windows
    rather than as a dozen small numpy calls per window. Windows that are not 8-bit BGR go
    through `window_tensor` itself.
    """
    out: list[Array | None] = [None] * len(windows)
    kept: list[int] = []
    levels: list[tuple[int, int]] = []
    colours: list[tuple[float, float, float]] = []
    smalls: list[Image] = []
    for n, window in enumerate(windows):
        if window.ndim != 3 or window.shape[2] != CHANNELS or window.dtype != np.uint8:
            out[n] = window_tensor(window)
            continue
        grey = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY)
        last = grey.size - 1
        ranks = (round(0.02 * last), round(0.9 * last))
        # The k-th smallest level is the first whose running count passes k. OpenCV counts
        # the levels in float32, exact for any window (under 2**24 pixels), in a third of
        # `np.bincount`'s time.
        running = cv2.calcHist([grey], [0], None, [256], [0, 256]).ravel().cumsum()
        ink, paper = (int(k) for k in np.searchsorted(running, ranks, side="right"))
        if paper - ink < MIN_CONTRAST:
            continue
        # Levels above `paper - 11` are those at least `paper - 10` (whole grey levels).
        paper_px = cv2.threshold(grey, paper - 11, 1, cv2.THRESH_BINARY)[1]
        b, g, r, _ = cv2.mean(window, mask=paper_px)
        kept.append(n)
        levels.append((paper, paper - ink))
        colours.append((b, g, r))
        smalls.append(cv2.resize(window, INPUT_SIZE, interpolation=cv2.INTER_AREA))
    if not kept:
        return out
    paper_bgr = np.array(colours, np.float32)
    top = np.array([p for p, _ in levels], np.float32)
    spread = np.array([c for _, c in levels], np.float32)
    # The same float32 operations as `window_tensor`'s, in place on one array (each
    # temporary of a stage's windows cost as much as the operation), laid out channel first
    # as the network takes it before they run: a factor per channel then scales whole planes,
    # where on pixel-interleaved colours numpy's inner loop ran three values long (the
    # stage's arithmetic 0.5 ms a studio frame less, the same values).
    small = np.stack(smalls).transpose(0, 3, 1, 2).astype(np.float32, order="C")
    small *= (top[:, None] / np.maximum(paper_bgr, np.float32(1.0)))[:, :, None, None]
    np.subtract(top[:, None, None, None], small, out=small)
    small /= spread[:, None, None, None]
    np.clip(small, -0.5, 1.5, out=small)
    for n, tensor in zip(kept, small, strict=True):
        out[n] = tensor
    return out
