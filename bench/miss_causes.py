"""Why the recognizer missed a readable card: one cause per missed card, for `bench/camera.py`.

A missed card (readable, face up, its code not read) is looked at again, apart from the
recognizer: the finder's candidates (`finder.find_candidates`: firm outlines, moved onto the
paper's edge as the recognizer reads them (`outline_fit`), snapped copies,
row proposals, detected index corners, proposals' weakly edged corners the detector vouches for
(`finder.confirmed_corners`), the guesses' copies anchored on the paper's corner
(`finder.anchored`); a superset of what the recognizer tries) are checked
against the drawn card, and each candidate that puts a visible index window in place is read by
the deck's learned reader exactly as the recognizer cuts it. The card's cause is the first of:

- `hidden`: the renderer calls the card readable but no index window is 90% in view here;
- `not_found`: no candidate covers the card at all (finder miss, no outline or proposal);
- `misplaced`: candidates cover the card but none puts an index window within 4% of the card's
  height of where it is (an outline found, but its corner in the wrong place);
- `read_dropped`: a placed corner reads the right code, yet the frame's readings lack it (the
  card-level decision: the other corner unsure or contradicting, or the merge of guesses);
- `wrong_lean`: the placed corners' best read names another code (the reader abstained on it);
- `unsure`: the reader's best placed corner names the right code with every cut agreeing, but
  under the abstain bar (the confidence is kept for the reliability of that choice);
- `moved`: the right code at the placed cut, but a moved cut names another (the outline-error
  rule);
- `not_index`: the reader takes the placed corner for no index ("none"), or it holds no print.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from camera_finder import bilinear, visible_turns

from calibration.deck import CANON_SIZE
from calibration.profile import DeckCalibration, DeckTemplates
from drivers.camera.classify import IndexClassifier
from drivers.camera.detect import card_threshold
from drivers.camera.finder import find_candidates, readable_turns
from drivers.camera.index_model import NONE
from drivers.camera.outline import CardOutline
from drivers.camera.outline_fit import fitted_for_reading
from drivers.camera.reading import CardReading
from drivers.camera.synthetic.scene import RenderedFrame, Scene
from drivers.camera.synthetic.scoring import card_height_px, overlap
from drivers.camera.tuning import ReaderTuning

CAUSES = (
    "hidden",
    "not_found",
    "misplaced",
    "read_dropped",
    "wrong_lean",
    "unsure",
    "moved",
    "not_index",
)
"""Every cause, in the order they are tried (see the module docstring)."""
WINDOW_TOL = 0.04
"""A candidate places an index window within this share of the card's height (as the finder
bench counts it)."""
_WINDOW = np.array([[0.02, 0.02], [0.27, 0.02], [0.27, 0.33], [0.02, 0.33]])


def read_candidates(image: npt.NDArray[Any], gray: npt.NDArray[Any]) -> list[CardOutline]:
    """The finder's candidates in `image` (BGR; `gray` its grey), placed as the recognizer reads
    them: firm outlines moved onto the paper's edge (`outline_fit`), guesses as found."""
    return fitted_for_reading(gray, find_candidates(image), card_threshold(gray))


@dataclass
class MissCauses:
    """Missed readable cards counted by cause, and by cause within each difficulty tag."""

    counts: Counter[str] = field(default_factory=Counter)
    by_tag: dict[str, Counter[str]] = field(default_factory=dict)
    unsure: list[float] = field(default_factory=list)
    """The confidence of each `unsure` miss's best placed corner."""

    def add(self, cause: str, tags: set[str], confidence: float | None = None) -> None:
        """Count one missed card of `cause` with its difficulty `tags`."""
        self.counts[cause] += 1
        for tag in tags | {"all"}:
            self.by_tag.setdefault(tag, Counter())[cause] += 1
        if confidence is not None:
            self.unsure.append(confidence)

    def merge(self, other: MissCauses) -> None:
        """Add `other`'s counts to these."""
        self.counts.update(other.counts)
        for tag, counts in other.by_tag.items():
            self.by_tag.setdefault(tag, Counter()).update(counts)
        self.unsure.extend(other.unsure)

    def table(self) -> dict[str, int]:
        """Count per cause, every cause listed."""
        return {c: self.counts[c] for c in CAUSES}


class MissDiagnosis:
    """Finds the cause of each missed card of a frame for one calibrated deck."""

    def __init__(
        self, deck: DeckCalibration, templates: DeckTemplates, tuning: ReaderTuning
    ) -> None:
        self._classifier = IndexClassifier(deck, templates, reader="learned", tuning=tuning)
        self._model = templates.model
        cw, ch = CANON_SIZE
        x0, y0, x1, y1 = deck.index_window
        self._window = (round(x0 * cw), round(y0 * ch), round(x1 * cw), round(y1 * ch))
        self._canon = np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], np.float32)

    def frame(
        self,
        scene: Scene,
        frame: RenderedFrame,
        readings: list[CardReading],
        tags: dict[int, set[str]],
        out: MissCauses,
    ) -> None:
        """Add the cause of every readable card of `frame` missing from `readings` to `out`."""
        for k, cause, confidence in self.causes(scene, frame, readings):
            out.add(cause, tags.get(k, set()), confidence)

    def causes(
        self, scene: Scene, frame: RenderedFrame, readings: list[CardReading]
    ) -> list[tuple[int, str, float | None]]:
        """Each readable card of `frame` missing from `readings`: its number, cause, confidence.

        The confidence is that of an `unsure` miss's best placed corner, else None.
        """
        codes = {r.code for r in readings}
        missed = [
            k for k, t in enumerate(frame.cards) if t.face_up and t.readable and t.code not in codes
        ]
        if not missed:
            return []
        gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
        cands = read_candidates(frame.image, gray)
        return [(k, *self._cause(k, scene, frame, cands)) for k in missed]

    def _cause(
        self, k: int, scene: Scene, frame: RenderedFrame, cands: list[CardOutline]
    ) -> tuple[str, float | None]:
        truth = frame.cards[k]
        turns = visible_turns(k, frame, scene)
        if not turns:
            return "hidden", None
        size = card_height_px(truth)
        corners: list[tuple[CardOutline, int]] = []
        for cand in cands:
            for own in readable_turns(cand):
                got = bilinear(np.roll(cand.corners, -own, axis=0), _WINDOW)
                for turn in turns:
                    want = bilinear(np.roll(truth.corners, -turn, axis=0), _WINDOW)
                    if float(np.linalg.norm(got - want, axis=1).max()) <= WINDOW_TOL * size:
                        corners.append((cand, own))
                        break
        if not corners:
            covering = any(
                overlap(c.corners, truth.corners) > 0.3 or overlap(truth.corners, c.corners) > 0.3
                for c in cands
            )
            return ("misplaced" if covering else "not_found"), None
        verdicts: list[tuple[str, float | None]] = []
        for cand, own in corners:
            window = self._corner(frame.image, np.roll(cand.corners, -own, axis=0))
            verdicts.append(self._verdict(window, truth.code, cand.speculative))
        order = ("read_dropped", "unsure", "moved", "wrong_lean", "not_index")
        best = min(verdicts, key=lambda v: (order.index(v[0]), -(v[1] or 0.0)))
        return best

    def _verdict(self, window: Any, code: str, guessed: bool) -> tuple[str, float | None]:
        read = self._classifier.read(window, guessed=guessed)
        if read is None:
            return "not_index", None
        if read.code == code:
            return "read_dropped", None
        if read.code is not None:
            return "wrong_lean", None
        guess = self._model.guess(window) if self._model is not None else None
        if guess is None or NONE in (guess.rank, guess.suit):
            return "not_index", None
        if guess.rank + guess.suit != code:
            return "wrong_lean", None
        if read.confidence > 0.0:
            return "unsure", read.confidence
        return "moved", None

    def _corner(self, frame: Any, quad: npt.NDArray[Any]) -> Any:
        """The index window at `quad`'s first corner, cut as the recognizer cuts it."""
        x0, y0, x1, y1 = self._window
        h = cv2.getPerspectiveTransform(self._canon, quad.astype(np.float32))
        m = h @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
        return cv2.warpPerspective(
            frame,
            m,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
