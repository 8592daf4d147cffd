"""How much of a card is paper: inside its border and in the border itself.

A face shows paper inside its border, a back print (`tuning.PAPER_SHARE_FACE_UP`); every card
has a paper margin (`tuning.PAPER_SHARE_BORDER`). A light back's print is brighter than the felt
and nearly grey, so it counts as paper there; `own_paper` tells it from a face (a face's inside is
the same paper as its own border, a back's print is darker or tinted against it), and
`light_back` is the one rule that calls it a back (`docs/camera-history.md`, "Light backs read
as backs").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from drivers.camera.detect import SAMPLE_STEP
from drivers.camera.tuning import (
    LIGHT_BACK_GREY,
    LIGHT_BACK_TINT,
    OWN_PAPER_LEVEL,
    OWN_PAPER_TINT,
    PAPER_CHROMA,
)

Image = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class PaperShares:
    """Shares of paper-white pixels inside a card's border (`inner`) and in the border itself."""

    inner: float
    border: float


@dataclass(frozen=True, slots=True)
class OwnPaper:
    """Shares of a card's inside that are its own border's paper.

    `own` at the border paper's grey level, `tint` at its tint too.
    """

    own: float
    tint: float


@dataclass(frozen=True, slots=True)
class _Card:
    """A card's pixels: its bounding box, its border ring and its inside (masks of the box)."""

    box: tuple[int, int, int, int]
    ring: npt.NDArray[Any]
    inside: npt.NDArray[Any]


def _card(contour: npt.NDArray[Any], shape: tuple[int, ...]) -> _Card:
    """The card's pixels in view: its ring and inside, cut to the part of a frame of `shape`.

    The masks are drawn with a pixel of margin round the card, so that erosion meets its
    edge on every side (a card square to the frame fills its bounding box, and without the
    margin its ring would be empty), and then cut to the frame: a guessed or extended outline
    may run past the frame's edge, and only the pixels in view are counted.
    """
    bx, by, bw, bh = cv2.boundingRect(contour)
    mask: npt.NDArray[Any] = np.zeros((bh + 2, bw + 2), np.uint8)
    cv2.drawContours(mask, [contour - np.array([bx - 1, by - 1])], -1, 1, -1)
    # A back's white border is ~6% of its width: a ring of ~4% of the short side lies on it.
    ring_k = max(3, int(0.08 * min(bw, bh)) | 1)
    shrunk = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (ring_k, ring_k)))
    k = max(3, int(0.2 * min(bw, bh)) | 1)
    inside = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))) > 0
    x, y = min(max(bx, 0), shape[1]), min(max(by, 0), shape[0])
    w, h = min(bx + bw, shape[1]) - x, min(by + bh, shape[0]) - y
    w, h = max(w, 0), max(h, 0)
    view = (slice(y - by + 1, y - by + 1 + h), slice(x - bx + 1, x - bx + 1 + w))
    ring = (mask[view] > 0) & (shrunk[view] == 0)
    return _Card((x, y, w, h), ring, inside[view])


def _channels(frame: Image, box: tuple[int, int, int, int]) -> tuple[Image, Image, Image, Image]:
    """The box's blue, green and red, and its chroma (the channels' spread)."""
    x, y, w, h = box
    if not (w and h):
        empty: Image = np.zeros((h, w), np.uint8)
        return empty, empty, empty, empty
    b, g, r = cv2.split(frame[y : y + h, x : x + w])
    # OpenCV's per-channel max and min: numpy's reduction over the colour axis cost 10x more.
    chroma = cv2.subtract(cv2.max(cv2.max(b, g), r), cv2.min(cv2.min(b, g), r))
    return b, g, r, chroma


class FramePaper:
    """The colour of a frame's paper, measured when first asked (`white`).

    A tinted light tints every card's paper alike: a warm one takes a pink paper's margin past
    `PAPER_CHROMA` (cam-backs4: 210/177/244 on the frame), so that a back's margin no longer
    counts as paper. Judged against the frame's own paper instead, it is paper again.
    """

    def __init__(self, frame: Image, gray: Image, thr: float, step: int = SAMPLE_STEP) -> None:
        """Measure `frame` (BGR) of grey `gray` and paper level `thr` at every `step`-th pixel.

        A `step` of 1 takes the frame given for that subsample already.
        """
        self._frame, self._gray = frame[::step, ::step], gray[::step, ::step]
        self.level = thr
        """The frame's grey level between felt and paper (`detect.card_threshold`)."""
        self._white: tuple[float, float, float] | None = None

    def white(self) -> tuple[float, float, float]:
        """The median blue, green and red of the frame's pixels over the paper level.

        Most of them are cards' paper (faces are mostly paper, backs have a margin); every
        fourth row and column is enough for a median.
        """
        if self._white is None:
            bright = self._gray > self.level
            pixels = self._frame[bright]
            if not len(pixels):
                self._white = (255.0, 255.0, 255.0)
            else:
                b, g, r = (float(v) for v in np.median(pixels, axis=0))
                self._white = (b, g, r)
        return self._white


def paper_shares(
    frame: Image,
    gray: Image,
    thr: float,
    contour: npt.NDArray[Any],
    white: tuple[float, float, float] | None = None,
) -> PaperShares:
    """Shares of paper-white pixels inside the border of the card outlined by `contour`.

    Paper is grey over `thr` (the frame's felt/paper level) and nearly grey (`PAPER_CHROMA`);
    with `white` (`FramePaper.white`), nearly grey once each channel is scaled to bring that
    colour to grey.
    """
    card = _card(contour, gray.shape)
    x, y, w, h = card.box
    if white is None:
        *_, chroma = _channels(frame, card.box)
    else:
        chroma = _balanced_chroma(frame, card.box, white)
    paper = (gray[y : y + h, x : x + w] > thr) & (chroma < PAPER_CHROMA)
    # Counted, not indexed out: a share of whole counts, as the mean of the picked pixels.
    n_inside, n_ring = np.count_nonzero(card.inside), np.count_nonzero(card.ring)
    inner = np.count_nonzero(paper & card.inside) / n_inside if n_inside else 1.0
    border = np.count_nonzero(paper & card.ring) / n_ring if n_ring else 0.0
    return PaperShares(inner, border)


def _balanced_chroma(
    frame: Image, box: tuple[int, int, int, int], white: tuple[float, float, float]
) -> Image:
    """The box's chroma once its channels are scaled so that `white` becomes grey."""
    x, y, w, h = box
    if not (w and h):
        return np.zeros((h, w), np.float32)
    level = sum(white) / 3
    scale = np.array([level / max(c, 1.0) for c in white], np.float32)
    balanced = frame[y : y + h, x : x + w].astype(np.float32) * scale
    out: Image = balanced.max(axis=2) - balanced.min(axis=2)
    return out


def own_paper(
    frame: Image,
    gray: Image,
    thr: float,
    contour: npt.NDArray[Any],
    level: float,
    tint: int,
    white: tuple[float, float, float] | None = None,
) -> OwnPaper:
    """The shares of the card's inside that are its border's paper (the measured cue).

    A pixel is the border's paper when nearly grey, at least `level` times the median grey of
    the border ring's paper (as `paper_shares` counts it, over `thr`) and, for `tint`, within
    `tint` (of 255) of its median blue and red against green. A card with no paper on its ring
    gets its inside's share over `thr` for both. With `white` (`FramePaper.white`), nearly grey
    is judged once the channels are scaled to bring that colour to grey, as `paper_shares` does.
    """
    card = _card(contour, gray.shape)
    x, y, w, h = card.box
    b, g, r, chroma = _channels(frame, card.box)
    if white is not None:
        chroma = _balanced_chroma(frame, card.box, white)
    grey = gray[y : y + h, x : x + w]
    pale = chroma < PAPER_CHROMA
    on_ring = (grey > thr) & pale & card.ring
    n_inside = np.count_nonzero(card.inside)
    if not n_inside or not np.any(on_ring):
        share = np.count_nonzero((grey > thr) & pale & card.inside) / n_inside if n_inside else 1.0
        return OwnPaper(share, share)
    mine = (grey >= level * float(np.median(grey[on_ring]))) & pale & card.inside
    bg = cv2.subtract(b, g, dtype=cv2.CV_16S)
    rg = cv2.subtract(r, g, dtype=cv2.CV_16S)
    tb, tr = float(np.median(bg[on_ring])), float(np.median(rg[on_ring]))
    tinted = mine & (np.abs(bg - tb) <= tint) & (np.abs(rg - tr) <= tint)
    return OwnPaper(np.count_nonzero(mine) / n_inside, np.count_nonzero(tinted) / n_inside)


def light_back(
    frame: Image,
    gray: Image,
    thr: float,
    contour: npt.NDArray[Any],
    white: tuple[float, float, float] | None = None,
) -> bool:
    """Whether the card outlined by `contour` shows a light back's print, not its border's paper.

    Under `LIGHT_BACK_TINT` of its inside is the border's paper at `OWN_PAPER_LEVEL` of its grey
    and within `OWN_PAPER_TINT` of its tint, and under `LIGHT_BACK_GREY` at its grey alone.
    A card whose margin passed as paper only against the frame's paper (`white`) is judged so
    here too: under that light a face's paper is not nearly grey on its own, and none of its
    inside would count as its border's paper (cam-backs5: a face with both indices under chips
    was called a light back).
    """
    own = own_paper(frame, gray, thr, contour, OWN_PAPER_LEVEL, OWN_PAPER_TINT, white)
    return own.tint < LIGHT_BACK_TINT and own.own < LIGHT_BACK_GREY
