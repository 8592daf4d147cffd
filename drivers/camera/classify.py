"""The reading of one index corner: the deck's learned index reader decides its code.

A corner window (cut through the card's outline by the deck's `index_window`) is read by the
deck's network (`drivers.camera.index_model`: the shipped universal reader fine-tuned on the
deck's 52 references at `studio calibrate deck`). What it decides is not decided again by hand
rules: every bar it reads with is in the one tuning table (`drivers.camera.tuning`), chosen on
the tuning designs only. Every doubt resolves to unknown: a wrong card is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profile import DeckCalibration, DeckTemplates
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.index_model import NONE, Array, Image, IndexModel, window_tensor
from drivers.camera.tuning import INDEX_READERS, LEARNED_TUNING, ReaderTuning


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
    learned reader (`templates.model` None): it must be calibrated again.
    """

    def __init__(
        self,
        deck: DeckCalibration,
        templates: DeckTemplates,
        *,
        reader: str = "learned",
        tuning: ReaderTuning = LEARNED_TUNING,
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
        self._model: IndexModel = templates.model
        self._tuning = tuning

    def read(self, window: Image, *, guessed: bool = False) -> IndexRead | None:
        """Read `window`; None when it holds no print at all (blank, washed out).

        `guessed` says the corner was cut through a guessed outline (a proposal or a detected
        index corner), which the reader reads only when surer (`ReaderTuning.abstain_guessed`).
        """
        return self._learned(self._model, window, guessed)

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
