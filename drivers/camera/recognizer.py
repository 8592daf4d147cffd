"""`CardRecognizer`: one frame in, a `CardReading` for every card outline out.

Per outline: read both index corners (a card lies either way up, and a neighbour may hide one
corner), agree or say unknown, decide face down from how little paper the visible face shows
(or, for a light back, how little of it is its own border's paper, once no guess read a face
there), and place the card in a zone through the table calibration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from calibration.deck import CANON_SIZE
from calibration.profile import CalibrationProfile, DeckTemplates
from calibration.table import TableGeometry
from drivers.camera.classify import IndexClassifier, IndexNetwork, IndexRead
from drivers.camera.corners import deck_aspect
from drivers.camera.dense_corners import shipped_dense
from drivers.camera.detect import (
    SAMPLE_STEP,
    Detection,
    Image,
    card_threshold,
    detect_cards,
    inside,
    sampled_threshold,
)
from drivers.camera.edges import local_edges
from drivers.camera.errors import RecognizerConfigurationError
from drivers.camera.finder import (
    TURNED,
    anchored,
    confirmed_corners,
    dense_found_corners,
    detected_corners,
    not_read_again,
    refined_corners,
    region_heights,
)
from drivers.camera.guesses import merge_guesses, off_read_indices
from drivers.camera.index_corners import shipped_detector
from drivers.camera.other_corners import MIRRORED, is_mirrored, mirror_window
from drivers.camera.outline import CardOutline, Quad, long_side, side_pairs
from drivers.camera.outline_fit import fitted_for_reading
from drivers.camera.paper import FramePaper, light_back, paper_shares
from drivers.camera.proposals import propose, snap_outline
from drivers.camera.reading import Box, CardReading, ReadingSource
from drivers.camera.tuning import (
    INDEX_CENTRE,
    LEARNED_TUNING,
    MIN_CORNER_SUPPORT,
    OTHER_CORNERS_ASPECT,
    PAPER_SHARE_BORDER,
    PAPER_SHARE_FACE_UP,
    PAST_EDGE_INSET,
    READ_ASPECT,
    REGION_EXPLAINED,
    SAME_INDEX,
    WINDOW_IN_VIEW_PX,
    ReaderTuning,
)
from drivers.camera.visible import explained, same_card, visible_part


class DecisionListener(Protocol):
    """Told of a recognizer's card-level decisions, as it makes them (benches explaining misses).

    A listener only looks: what it is given is the recognizer's own, not a copy, and the
    readings do not depend on whether anybody listens.
    """

    def decided(
        self, outline: CardOutline, reads: list[IndexRead], reading: CardReading | None
    ) -> None:
        """`outline`'s index corners read `reads`, and the card-level decision gave `reading`."""

    def scaled(self, found: list[IndexRead | None], checked: list[IndexRead | None]) -> None:
        """Corner reads `found` on guessed outlines became `checked` on their scaled outlines."""


class CardRecognizer:
    """Recognises cards in BGR frames with a calibration profile that has a deck.

    `min_card_px` is the smallest card height (pixels) looked for: 80 covers a 120 px card at
    1080p seen at 720p. `corners=False` leaves out the learned index-corner detector (and the
    dense one, whose corners it vouches for); `dense=False` the dense one alone. `reader`
    names what decides a corner's code (`tuning.INDEX_READERS`), `tuning` the learned reader's
    thresholds. `listeners` are told of every card-level decision (`DecisionListener`);
    `network`, when given, reads instead of the deck's own reader (`IndexClassifier`).
    Raises `RecognizerConfigurationError` when the profile has no deck, the reader is unknown,
    or the deck has no learned index reader (calibrated before it existed).
    """

    def __init__(
        self,
        profile: CalibrationProfile,
        templates: DeckTemplates | None,
        *,
        min_card_px: float = 80.0,
        corners: bool = True,
        reader: str = "learned",
        tuning: ReaderTuning = LEARNED_TUNING,
        listeners: Sequence[DecisionListener] = (),
        network: IndexNetwork | None = None,
        dense: bool = True,
    ) -> None:
        if profile.deck is None or templates is None:
            raise RecognizerConfigurationError(
                "the calibration profile has no deck: run `studio calibrate deck` first"
            )
        self._deck = profile.deck
        # Every outline sized from a card's height takes the deck's shape (poker within
        # calibration's error: `corners.deck_aspect`); a bridge card guessed poker-wide puts
        # its index window off the print.
        self._aspect = deck_aspect(profile.deck.card_aspect)
        self._classifier = IndexClassifier(
            profile.deck, templates, reader=reader, tuning=tuning, network=network
        )
        self._tuning = tuning
        self._listeners = tuple(listeners)
        self._geometry = TableGeometry.from_profile(profile)
        self._min_card_px = min_card_px
        # Loaded (and its digest checked) now, so a bad model stops the start, not a frame.
        self._corners = shipped_detector() if corners else None
        self._dense = shipped_dense() if corners and dense else None
        cw, ch = CANON_SIZE
        x0, y0, x1, y1 = profile.deck.index_window
        self._window = (round(x0 * cw), round(y0 * ch), round(x1 * cw), round(y1 * ch))
        self._canon = np.array([[0, 0], [cw - 1, 0], [cw - 1, ch - 1], [0, ch - 1]], np.float32)
        # The index window's inner 70% and its middle on the canonical card
        # (`_window_visible`): the same for every corner, so made once.
        x0, y0, x1, y1 = self._window
        dx, dy = 0.15 * (x1 - x0), 0.15 * (y1 - y0)
        inner = [[x0 + dx, y0 + dy], [x1 - dx, y0 + dy], [x1 - dx, y1 - dy], [x0 + dx, y1 - dy]]
        self._window_points = np.array([[*inner, [(x0 + x1) / 2, (y0 + y1) / 2]]], np.float64)
        # A four-index deck's top-right and bottom-left corners are read through quads taken
        # the other way round (`other_corners`), at the deck's top-right window.
        right = profile.deck.upper_right_window
        self._mirror = (
            mirror_window(right, cw, ch) if profile.deck.four_index and right is not None else None
        )
        self._inset = round(PAST_EDGE_INSET * cw)

    @property
    def reads_parts(self) -> bool:
        """Whether a part of a frame reads as it would in the whole frame (`recognize`'s `region`).

        Only with a table calibration, which gives the card's size at every point. Without
        one, guesses are sized by the frame's own firm cards, which a part may not hold.
        """
        return self._geometry is not None

    def recognize(self, frame: Image, region: Box | None = None) -> list[CardReading]:
        """Return a reading for every card outline in `frame` (BGR, any size).

        `region` (x0, y0, x1, y1 pixels, end exclusive) reads only that part of the frame, as a
        frame of its own that knows where it lies: the readings' corners and zones are the
        whole frame's. A card the region's edge cuts is read as the part in view, so a caller
        keeps only the readings of cards it knows lie inside (`still.StillRecognizer` reads
        the parts round what changed, with a margin). Raises `ValueError` for a region that is
        not a non-empty part of the frame.
        """
        if region is None:
            return self._recognize(frame, (0, 0))
        x0, y0, x1, y1 = region
        h, w = frame.shape[:2]
        if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
            raise ValueError(f"region {region} is not a part of a {w}x{h} frame")
        # The part is judged by the whole frame's paper, level and colour, as the whole frame
        # would be: measured on the part alone they are its content's (a back's light print
        # taken for the paper, its margin then none: a back laid alone went unseen until the
        # table's timeout where the whole frame read it face down). A subsample measures both
        # (`detect.SAMPLE_STEP`), taken once: the colour only when a card asks for it.
        sample = np.ascontiguousarray(frame[::SAMPLE_STEP, ::SAMPLE_STEP])
        sample_gray = cv2.cvtColor(sample, cv2.COLOR_BGR2GRAY)
        paper = FramePaper(sample, sample_gray, sampled_threshold(sample_gray), step=1)
        part = self._recognize(frame[y0:y1, x0:x1], (x0, y0), paper)
        return [self._moved(r, x0, y0) for r in part]

    def _moved(self, reading: CardReading, dx: int, dy: int) -> CardReading:
        """`reading`, made in a part of the frame at (dx, dy), with the whole frame's corners."""
        quad = np.asarray(reading.corners, np.float64) + np.array([dx, dy], np.float64)
        pts = [(round(float(x), 1), round(float(y), 1)) for x, y in quad]
        corners = (pts[0], pts[1], pts[2], pts[3])
        return reading.model_copy(update={"corners": corners, "zone": self._zone(quad)})

    def _recognize(
        self, frame: Image, at: tuple[int, int], paper: FramePaper | None = None
    ) -> list[CardReading]:
        """`recognize` on `frame`, a part of the camera's frame whose top-left lies at `at`.

        Only the table geometry's card size needs the whole frame's points here: the zones
        of the readings (made in the part's own points) are set again by the caller. `paper`
        is the whole frame's paper, level and colour (None: `frame` is the whole frame).
        """
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        expected = self._expected(at)
        found = detect_cards(
            gray,
            min_long_px=self._min_card_px,
            expected=expected,
            frame=frame,
            aspect=self._aspect,
            paper=None if paper is None else paper.level,
        )
        if not found.outlines and not found.regions:
            return []
        thr = found.paper
        # Unread firm cards whose inside is a light back's print (`_decide`): unknown faces
        # until the guesses are merged.
        backs: list[CardReading] = []
        # Each stage's outlines are read together: one network call for all their corners.
        firm = _without_repeats(
            list(
                zip(
                    found.outlines,
                    self._read_many(
                        frame,
                        gray,
                        thr,
                        found.outlines,
                        ReadingSource.FIRM,
                        backs=backs,
                        light=FramePaper(frame, gray, thr) if paper is None else paper,
                    ),
                    strict=True,
                )
            )
        )
        # Edge maps are computed once per bright region, and only where needed.
        edge_maps: dict[int, tuple[Image, npt.NDArray[Any]]] = {}

        def region_edges(k: int) -> tuple[Image, npt.NDArray[Any]]:
            if k not in edge_maps:
                edge_maps[k] = local_edges(gray, found.regions[k].contour)
            return edge_maps[k]

        def outline_edges(o: CardOutline) -> tuple[Image, npt.NDArray[Any]] | None:
            for k, region in enumerate(found.regions):
                if inside(region.contour, o.contour):
                    return region_edges(k)
            return None

        # An outline that does not read may only be a few pixels off: try it moved onto edges.
        snapped = [
            snap_outline(gray, o, outline_edges(o))
            for o, r in firm
            if r is not None and r.code is None and not r.face_down
        ]
        # A strip that read nothing on its outline anchored at one index corner (`_read_many`)
        # is tried anchored at each corner in view, as a guess.
        strips = [
            o for o, r in firm if o.partial and r is not None and r.code is None and not r.face_down
        ]
        snapped += anchored(gray, strips, thr, aspect=self._aspect)
        # Guessed corners whose read leaned to a code under the bar, to be placed again.
        leaning: list[CardOutline] = []
        retry = _coded(self._read_many(frame, gray, thr, snapped, ReadingSource.SNAPPED, leaning))
        readings = [r for _, r in firm if r is not None]
        # Outlines that read (a code at the reader's bar, or a back) are cards beyond doubt:
        # they explain their region and give the frame's card size to proposals elsewhere. A
        # card read under the bar from its two ends (`ReaderTuning.both_ends`) is reported but
        # leaves the guesses as they were, made in its region and sized without it: counted
        # here, it resized a tuning frame's proposals, and those that had contested a
        # detected corner's wrong 4C on a 4S were no longer made.
        sure_read = [
            (o, r)
            for o, r in firm
            if r is not None
            and (r.face_down or (r.code is not None and r.confidence >= self._tuning.abstain))
        ]
        sure = [o for o, _ in sure_read]
        longs = [long_side(o.corners) for o in sure if not o.partial]
        frame_long = float(np.median(longs)) if longs else None
        guesses: list[CardReading] = list(retry)
        guesses.extend(self._read_in_view(frame, gray, thr, found, firm, leaning))
        open_regions: dict[int, float | None] = {}
        proposals: list[CardOutline] = []
        for k, region in enumerate(found.regions):
            area = float(cv2.contourArea(region.contour))
            covered = sum(
                float(cv2.contourArea(o.contour))
                for o in sure
                if not o.partial and inside(region.contour, o.contour)
            )
            if covered >= REGION_EXPLAINED * area or _explained(region.contour, sure_read):
                continue
            (cx, cy), _, _ = cv2.minAreaRect(region.contour)
            want = expected(float(cx), float(cy)) if expected is not None else None
            open_regions[k] = want
            proposals += propose(
                gray, region, want or frame_long, region_edges(k), aspect=self._aspect
            )
        # A proposal's corner over another card has weak edges: the detector may vouch for it.
        if self._corners is not None:
            proposals += confirmed_corners(gray, proposals, self._corners, thr, aspect=self._aspect)
        # A guess at an index a firm card read at both ends changes nothing (`off_read_indices`);
        # left unread after the vouching, which would take a corner set to 0 for a weak one.
        proposals = off_read_indices(proposals, readings)
        proposals += anchored(gray, proposals, thr, aspect=self._aspect)
        guesses += _coded(
            self._read_many(frame, gray, thr, proposals, ReadingSource.PROPOSAL, leaning)
        )
        # Where outlines fail (fans, merged rows), the learned detector finds index corners on
        # the open regions' rims; each is read at that corner only.
        if open_regions and self._corners is not None:
            heights = region_heights(
                found, [open_regions.get(k) for k in range(len(found.regions))]
            )
            at_corners = detected_corners(
                gray, found, heights, self._corners, regions=set(open_regions), aspect=self._aspect
            )
            at_corners = off_read_indices(at_corners, readings)
            at_corners += anchored(gray, at_corners, thr, aspect=self._aspect)
            guesses += _coded(
                self._read_many(frame, gray, thr, at_corners, ReadingSource.CORNER, leaning)
            )
            if self._dense is not None:
                # A dense corner at a window read already is left out before the vouching (it
                # would cost the detector its patches) and its vouched copies after it.
                read = proposals + at_corners
                at_dense = dense_found_corners(
                    gray, found, heights, self._dense, set(open_regions), aspect=self._aspect
                )
                at_dense = confirmed_corners(
                    gray,
                    not_read_again(at_dense, read),
                    self._corners,
                    thr,
                    anchored_only=True,
                    aspect=self._aspect,
                )
                at_dense = not_read_again(at_dense, read)
                at_dense = off_read_indices(at_dense, readings)
                at_dense += anchored(gray, at_dense, thr, aspect=self._aspect)
                guesses += _coded(
                    self._read_many(frame, gray, thr, at_dense, ReadingSource.DENSE, leaning)
                )
        guesses += self._read_again(frame, gray, thr, leaning, readings)
        return _backs_down(merge_guesses(readings, guesses), backs)

    def read_as_placed(self, frame: Image, quads: Sequence[Quad]) -> list[CardReading | None]:
        """Each of `quads` in the BGR `frame` read as a firm, whole card outline lying there.

        A quad is a card's four image corners in the order outlines take (clockwise from an
        index corner, first side short: `outline.portrait`). Each is read with every check a
        firm outline found in a frame is read with (the reader's moved cuts, the cut-off
        guard, the paper shares and the face-down test), but exactly where it lies: it is not
        fitted onto the paper's edge (`outline_fit.fitted_for_reading`), and the reading's
        outline is the quad given. Benches and tests measure with it what the reader makes of
        an outline where the fit left it (a few percent inside its card, `bench/cutoff_index.py`),
        which the fit would move. Nothing else of the frame is looked for or read.
        """
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        outlines = [
            CardOutline(q, np.round(q).astype(np.int32).reshape(-1, 1, 2), partial=False)
            for q in (np.asarray(quad, np.float64) for quad in quads)
        ]
        return self._read_many(
            frame, gray, card_threshold(gray), outlines, ReadingSource.FIRM, fit=False
        )

    def _read_again(
        self,
        frame: Image,
        gray: Image,
        thr: float,
        leaning: list[CardOutline],
        readings: list[CardReading],
    ) -> list[CardReading]:
        """Guessed corners that leaned to a code, read again where the detector places them.

        A guessed outline's window a few percent off its index leaves the reader unsure; each
        such corner (`_read_many`'s `leaning`) is placed again by the index-corner detector
        (`finder.refined_corners`), off the indices firm cards read at both ends
        (`off_read_indices`), and read under the guessed outlines' bars: only readings that
        name a card are returned (`ReadingSource.REFINED`).
        """
        if not leaning or self._corners is None:
            return []
        again = off_read_indices(refined_corners(gray, leaning, self._corners), readings)
        return _coded(self._read_many(frame, gray, thr, again, ReadingSource.REFINED))

    def _read_in_view(
        self,
        frame: Image,
        gray: Image,
        thr: float,
        found: Detection,
        firm: list[tuple[CardOutline, CardReading | None]],
        leaning: list[CardOutline] | None = None,
    ) -> list[CardReading]:
        """Partial outlines that did not read, read again on the part of their card in view.

        Their strip is often too thin to show an index window whole (`visible.visible_part`);
        read again, they are guesses (the guessed outlines' bar), reported only when they read.
        Corners that leaned to a code go to `leaning` (`_read_many`).
        """
        again: list[CardOutline] = []
        outlines = [o for o, _ in firm]
        regions = [r.contour for r in found.regions]
        for o, r in firm:
            if not o.partial or r is None or r.code is not None or r.face_down:
                continue
            seen = visible_part(o, regions, outlines)
            if seen is not None:
                again.append(replace(seen, speculative=True))
        if not again:
            return []
        return _coded(self._read_many(frame, gray, thr, again, ReadingSource.IN_VIEW, leaning))

    def _read(
        self, frame: Image, gray: Image, thr: float, outline: CardOutline
    ) -> CardReading | None:
        return self._read_many(frame, gray, thr, [outline], ReadingSource.FIRM)[0]

    def _read_many(
        self,
        frame: Image,
        gray: Image,
        thr: float,
        outlines: Sequence[CardOutline],
        source: ReadingSource,
        leaning: list[CardOutline] | None = None,
        backs: list[CardReading] | None = None,
        light: FramePaper | None = None,
        *,
        fit: bool = True,
    ) -> list[CardReading | None]:
        """A reading of each of `outlines` (None where it shows no card), in order.

        `source` is the kind of outline they are (a firm outline extended from a strip is
        reported as `EXTENDED`). With `leaning` given, each guessed outline (speculative) whose
        index corner read no code but leaned to one (`IndexRead.hint`) is added to it, rolled to
        start at that corner (`finder.refined_corners` places it again). With `backs` given,
        each unknown face-up reading whose inside is a light back's print (`_decide`) is added
        to it (`_backs_down` reports it face down unless a guess replaced it). With `fit`
        (every stage of `recognize`), the outlines are first placed as the reader reads them
        (`outline_fit.fitted_for_reading`); without it they are read where they lie
        (`read_as_placed`).

        Every index corner of them all goes to the reader at once (`IndexClassifier.read_all`:
        one network call for the lot), then each card is decided on its corners (`_decide`).
        """
        outlines = (
            fitted_for_reading(gray, outlines, thr, aspect=self._aspect) if fit else list(outlines)
        )
        corners: list[tuple[int, npt.NDArray[Any]]] = []
        for n, outline in enumerate(outlines):
            # A window cut through an outline squashed shorter than a card can look is cut too
            # low or magnified (`READ_ASPECT`): its card is not read on it.
            if _aspect(outline.corners) < READ_ASPECT:
                continue
            for turn in (0, 2):
                if outline.support[turn] < MIN_CORNER_SUPPORT:
                    continue
                # The quad rolled to start at this corner (np.roll's numpy overhead, ~50 proposal
                # outlines a frame, cost ~2 ms).
                quad = outline.corners[TURNED[turn]]
                if outline.partial and not self._window_visible(quad, outline):
                    continue
                corners.append((n, quad))
        found = self._read_corners(frame, outlines, corners)
        if self._mirror is not None:
            # A four-index deck's other corners can only add a card its index corners did not
            # read (`_decide`): they are read for those alone, in a second network call.
            coded = {n for (n, _), read in zip(corners, found, strict=True) if read and read.code}
            more = [
                c
                for n, outline in enumerate(outlines)
                if n not in coded
                for c in self._other_corners(n, outline)
            ]
            corners += more
            found += self._read_corners(frame, outlines, more)
        reads: list[list[tuple[IndexRead, npt.NDArray[Any]]]] = [[] for _ in outlines]
        for (n, quad), read in zip(corners, found, strict=True):
            if read is not None:
                reads[n].append((read, quad))
                if (
                    leaning is not None
                    and outlines[n].speculative
                    and read.code is None
                    and read.hint is not None
                ):
                    leaning.append(replace(outlines[n], corners=quad))
        decided = [
            self._decide(frame, gray, thr, outline, got, source, backs, light)
            for outline, got in zip(outlines, reads, strict=True)
        ]
        for listener in self._listeners:
            for outline, got, reading in zip(outlines, reads, decided, strict=True):
                listener.decided(outline, [r for r, _ in got], reading)
        return decided

    def _read_corners(
        self,
        frame: Image,
        outlines: Sequence[CardOutline],
        corners: list[tuple[int, npt.NDArray[Any]]],
    ) -> list[IndexRead | None]:
        """The read of each of `corners` (an outline's number, the quad rolled to the corner).

        All in one network call (`IndexClassifier.read_all`), then the guessed outlines' codes
        checked on scaled cuts and the firm ones' on cuts moved out (`_confirm_scaled`,
        `_confirm_outward`).
        """
        if not corners:
            return []
        # A proposal's outline is a guess: the learned reader reads it alone only when
        # surer (every wrong learned read seen was a blurred club on a proposal).
        found = self._classifier.read_all(
            [(self._corner(frame, quad), outlines[n].speculative) for n, quad in corners],
            groups=_index_groups(outlines, corners),
        )
        cut = [(outlines[n], quad) for n, quad in corners]
        return self._confirm_outward(frame, cut, self._confirm_scaled(frame, cut, found))

    def _other_corners(self, n: int, outline: CardOutline) -> list[tuple[int, npt.NDArray[Any]]]:
        """A four-index deck's top-right and bottom-left corners of a firm `outline` (number `n`).

        As `MIRRORED` quads: none on a two-index deck, a guess, a strip extended to a card or
        an outline squashed under `OTHER_CORNERS_ASPECT`. A whole card's firm outline lies on
        its own edges, so its other corners are as sure a place as its index corners; `_decide`
        reads a card there only when both name one code and its index corners read none.
        Guesses and strips were read there too, and made new wrong reads on the harsh tuning
        caches (docs/camera.md, "Four-index decks").
        """
        if (
            self._mirror is None
            or outline.speculative
            or outline.partial
            or _aspect(outline.corners) < OTHER_CORNERS_ASPECT
        ):
            return []
        return [(n, outline.corners[MIRRORED[corner]]) for corner in (1, 3)]

    def _confirm_scaled(
        self,
        frame: Image,
        cut: list[tuple[CardOutline, npt.NDArray[Any]]],
        found: list[IndexRead | None],
    ) -> list[IndexRead | None]:
        """`found`, each code read on a guessed outline checked on that outline scaled.

        The outline is scaled about the read corner (`ReaderTuning.scaled`): a guessed
        outline's size is the frame's, not its card's, and a read that holds at one size only
        is not an index read.
        """
        todo = [
            n
            for n, ((outline, _), read) in enumerate(zip(cut, found, strict=True))
            if outline.speculative and read is not None and read.code is not None
        ]
        if not todo:
            return found
        cuts = [
            [self._corner(frame, cut[n][1][0] + (cut[n][1] - cut[n][1][0]) * k)
             for k in self._tuning.scaled]
            for n in todo
        ]  # fmt: skip
        checked = self._classifier.confirm_all([r for n in todo if (r := found[n])], cuts)
        out = list(found)
        for n, read in zip(todo, checked, strict=True):
            out[n] = read
        for listener in self._listeners:
            listener.scaled(found, out)
        return out

    def _confirm_outward(
        self,
        frame: Image,
        cut: list[tuple[CardOutline, npt.NDArray[Any]]],
        found: list[IndexRead | None],
    ) -> list[IndexRead | None]:
        """`found`, each firm corner's code or lean refused where the outline moved out refutes it.

        Refuted: the corner cut through its outline moved out by each share of
        `ReaderTuning.outward` names another code every time (`IndexClassifier.contradicts`).
        A firm outline left inside its card moves both windows in, and an index tight to the
        card's edge loses its top to the window's edge: what is left may read as another rank.
        Moved out toward the card's edges, the window shows the whole index. The shares are cut
        in turn, each only for corners every share before contradicted: on the tuning designs
        the first (2%) named the corner's own code on 98% of right reads.
        """
        if not self._tuning.outward:
            return found
        todo = [
            n
            for n, ((outline, _), read) in enumerate(zip(cut, found, strict=True))
            if not outline.speculative and read is not None and (read.code or read.hint)
        ]
        for share in self._tuning.outward:
            if not todo:
                return found
            windows = [self._corner(frame, moved_out(cut[n][1], share)) for n in todo]
            against = self._classifier.contradicts([r for n in todo if (r := found[n])], windows)
            todo = [n for n, refuted in zip(todo, against, strict=True) if refuted]
        out = list(found)
        for n in todo:
            if (read := found[n]) is not None:
                out[n] = IndexRead(None, 0.0, None, read.not_index)
        return out

    def _decide(
        self,
        frame: Image,
        gray: Image,
        thr: float,
        outline: CardOutline,
        reads: list[tuple[IndexRead, npt.NDArray[Any]]],
        source: ReadingSource,
        backs: list[CardReading] | None = None,
        light: FramePaper | None = None,
    ) -> CardReading | None:
        """The card `outline` shows, from the reads of its index corners (the quad of each).

        An unknown face-up card whose inside is not its own border's paper (`paper.light_back`:
        a light back's print counts as paper against the felt) is added to `backs` when given.
        """
        if outline.back_only:
            return self._back(frame, gray, thr, outline, reads, backs)
        # A four-index deck's other corners (`_other_corners`) only add a card its index
        # corners did not read: they are decided apart, after them.
        other = [(r, q) for r, q in reads if self._mirrored(q)]
        if other:
            reads = [(r, q) for r, q in reads if not self._mirrored(q)]
        codes = {r.code for r, _ in reads if r.code is not None}
        # A corner too unsure to read that still leans to another code contradicts the read.
        hints = {r.hint for r, _ in reads if r.code is None and r.hint is not None}
        if len(codes) == 1 and hints - codes:
            codes = codes | hints
        zone = self._zone(outline.corners)
        if source is ReadingSource.FIRM and outline.partial:
            source = ReadingSource.EXTENDED
        # One code, read at the reader's own bar: the card, even when its other corner in view
        # read nothing (that corner does not contradict it; a hint of another code does).
        if len(codes) == 1:
            read, quad = max(((r, q) for r, q in reads if r.code), key=lambda rq: rq[0].confidence)
            agreeing = sum(r.code == read.code for r, _ in reads)
            return _reading(read.code, False, quad, read.confidence, zone, source, agreeing)
        both = _both_ends(reads, self._tuning)
        if both is None and not codes and len(other) == 2:
            both = _other_ends(other, {r.hint for r, _ in reads} - {None})
        if both is not None:
            code = both[0].code or both[0].hint
            return _reading(code, False, both[1], both[0].confidence, zone, source, 2)
        if outline.speculative:
            return None
        confidence = 0.0 if len(codes) > 1 else max((r.confidence for r, _ in reads), default=0.0)
        paper = paper_shares(frame, gray, thr, outline.contour)
        # A whole card's margin a tinted light took past paper's grey is judged again against
        # the frame's own paper (`paper.FramePaper`); so judged, the card stands only as a
        # back: a face, a panel or a chip it let through would be a new unknown card.
        tinted = paper.border < PAPER_SHARE_BORDER and light is not None and not outline.partial
        white = light.white() if tinted and light is not None else None
        if white is not None:
            paper = paper_shares(frame, gray, thr, outline.contour, white)
        inner, border = paper.inner, paper.border
        if border < PAPER_SHARE_BORDER:
            return None
        # A back's dense pattern holds ink, but the network learned backs as "none": only a
        # corner it takes for an index (`ReaderTuning.index_like`) makes a paperless card a face.
        index_like = any(_index_like(r, self._tuning) for r, _ in reads)
        face_down = inner < PAPER_SHARE_FACE_UP and not index_like
        confidence = 0.0 if face_down else confidence
        reading = _reading(None, face_down, outline.corners, confidence, zone, source, 0)
        # A light back stays an unknown face here: the recognizer still looks for a face on
        # its spot (proposals, snapped and in-view outlines) as it does for an unread face.
        # Called face down now, the guesses that would have replaced a face the cue took for a
        # back were no longer made or merged (two and one cards on the large tuning caches).
        unread_face = not face_down and not index_like
        # A margin judged against the frame's paper has its inside judged against it too: by
        # its own grey a tinted face's paper is none of its border's paper (a face with both
        # indices under chips passed for a light back, cam-backs5).
        if (
            backs is not None
            and unread_face
            and light_back(frame, gray, thr, outline.contour, white)
        ):
            backs.append(reading)
        elif tinted and not face_down:
            return None
        return reading

    def _back(
        self,
        frame: Image,
        gray: Image,
        thr: float,
        outline: CardOutline,
        reads: list[tuple[IndexRead, npt.NDArray[Any]]],
        backs: list[CardReading] | None = None,
    ) -> CardReading | None:
        """A small back found as its bright region (`CardOutline.back_only`), or None.

        It is a card only as a back: no corner read or taken for an index, a paper margin and
        no paper inside, as `_decide`'s face-down test has it. A face there has its own
        outlines and guesses; the region adds nothing to them. A light back whose print the
        blur brightened to paper (`paper.light_back`) is an unknown face added to `backs`, as
        `_decide` has a firm one: `_backs_down` reports it face down unless a guess on its
        spot reads a code.
        """
        if any(r.code is not None or _index_like(r, self._tuning) for r, _ in reads):
            return None
        paper = paper_shares(frame, gray, thr, outline.contour)
        if paper.border < PAPER_SHARE_BORDER:
            return None
        zone = self._zone(outline.corners)
        if paper.inner < PAPER_SHARE_FACE_UP:
            return _reading(None, True, outline.corners, 0.0, zone, ReadingSource.FIRM, 0)
        if backs is None or not light_back(frame, gray, thr, outline.contour):
            return None
        reading = _reading(None, False, outline.corners, 0.0, zone, ReadingSource.FIRM, 0)
        backs.append(reading)
        return reading

    def _corner(self, frame: Image, quad: npt.NDArray[Any]) -> Image:
        """The index window at `quad`'s first corner, upright.

        Through a `MIRRORED` quad (a four-index deck's other corners) it is the top-right
        window, flipped back.
        """
        mirrored = self._mirrored(quad)
        x0, y0, x1, y1 = self._mirror if mirrored and self._mirror is not None else self._window
        # The part of a top-right window past the card's edge is the paper inside it, repeated
        # (`tuning.PAST_EDGE_INSET`); a window on the card starts where it starts.
        start = max(x0, self._inset) if x0 < 0 else x0
        h = cv2.getPerspectiveTransform(self._canon, quad.astype(np.float32))
        shift = np.array([[1, 0, start], [0, 1, y0], [0, 0, 1]], np.float64)
        m = h @ shift
        out: Image = cv2.warpPerspective(
            frame,
            m,
            (x1 - start, y1 - y0),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        if start != x0:
            out = cv2.copyMakeBorder(out, 0, 0, start - x0, 0, cv2.BORDER_REPLICATE)
        if mirrored:
            flipped: Image = cv2.flip(out, 1)
            return flipped
        return out

    def _mirrored(self, quad: npt.NDArray[Any]) -> bool:
        """Whether `quad` is a four-index deck's `MIRRORED` corner (never on a two-index deck)."""
        return self._mirror is not None and is_mirrored(quad)

    def _window_visible(self, quad: npt.NDArray[Any], outline: CardOutline) -> bool:
        """True when the index window of `quad`'s top-left corner lies inside the visible region.

        The window's own corner sits on the card's rounded corner, so its inner 70% is tested.
        """
        h = cv2.getPerspectiveTransform(self._canon, quad.astype(np.float32))
        img = cv2.perspectiveTransform(self._window_points, h)[0]
        # The region's own outline detours round index ink cut out by the edge cut: use its hull.
        hull = cv2.convexHull(outline.contour)
        return all(
            cv2.pointPolygonTest(hull, (float(x), float(y)), True) >= -WINDOW_IN_VIEW_PX
            for x, y in img
        )

    def _expected(self, at: tuple[int, int]) -> Callable[[float, float], float | None] | None:
        """The card height at a point of a part of the frame lying at `at`, or None."""
        geometry = self._geometry
        if geometry is None:
            return None
        if at == (0, 0):
            return geometry.card_height_px
        dx, dy = at
        return lambda x, y: geometry.card_height_px(x + dx, y + dy)

    def _zone(self, corners: npt.NDArray[Any]) -> str | None:
        if self._geometry is None:
            return None
        cx, cy = corners.mean(axis=0)
        return self._geometry.zone_at(float(cx), float(cy))


def _backs_down(readings: list[CardReading], backs: list[CardReading]) -> list[CardReading]:
    """`readings` (merged) with the light backs (`backs`) still in them reported face down.

    A light back that a guess read a code on its spot replaced (`merge_guesses` replaces an
    unknown face so) was a face after all, and is gone from `readings`; one still there is a
    back: the table waits for a face-down card where a dealer's card lies, and an unread face
    would keep it waiting.
    """
    if not backs:
        return readings
    return [
        r.model_copy(update={"face_down": True, "confidence": 0.0}) if r in backs else r
        for r in readings
    ]


def _both_ends(
    reads: list[tuple[IndexRead, npt.NDArray[Any]]], tuning: ReaderTuning
) -> tuple[IndexRead, npt.NDArray[Any]] | None:
    """The weaker of an outline's two index corners when both lean to one code under the bar.

    Both corners name no code, both lean to the same code (`IndexRead.hint`: every cut of each
    naming it) and the weaker is at least `ReaderTuning.both_ends` sure; else None. The quad
    returned is the surer corner's (the reading's first corner is where it was read).
    """
    if len(reads) != 2 or any(r.code is not None or r.hint is None for r, _ in reads):
        return None
    (a, qa), (b, qb) = reads
    if a.hint != b.hint or min(a.confidence, b.confidence) < tuning.both_ends:
        return None
    weaker = a if a.confidence <= b.confidence else b
    return weaker, qa if a.confidence >= b.confidence else qb


def _other_ends(
    reads: list[tuple[IndexRead, npt.NDArray[Any]]], leaning: set[str | None]
) -> tuple[IndexRead, npt.NDArray[Any]] | None:
    """A four-index card's read at its top-right and bottom-left corners, when both name one code.

    Both corners (`reads`, two) must read the same code at the reader's bar, and the index
    corners lean (`leaning`: their hints) to no other: two windows at opposite ends of the card.
    The read returned is the weaker one, with the surer one's quad (where it was read).
    """
    (a, qa), (b, qb) = reads
    if a.code is None or a.code != b.code or leaning - {a.code}:
        return None
    weaker = a if a.confidence <= b.confidence else b
    return IndexRead(weaker.code, weaker.confidence, weaker.code, weaker.not_index), (
        qa if a.confidence >= b.confidence else qb
    )


def moved_out(quad: npt.NDArray[Any], share: float) -> npt.NDArray[Any]:
    """`quad` moved `share` of its height out past both sides meeting at its first corner.

    That is toward the card's edges at the corner read, the way an outline lying inside its
    card has to go to reach them.
    """
    q = np.asarray(quad, np.float64)
    down, across = q[3] - q[0], q[1] - q[0]
    height = float(np.linalg.norm(down))
    step = down / max(1e-9, height) + across / max(1e-9, float(np.linalg.norm(across)))
    out: npt.NDArray[Any] = q - share * height * step
    return out


def _aspect(quad: npt.NDArray[Any]) -> float:
    """An outline's long sides over its short sides (each pair's mean): a card's is about 1.4."""
    first, second = side_pairs(quad)
    return max(first, second) / max(1e-6, min(first, second))


def _index_like(read: IndexRead, tuning: ReaderTuning) -> bool:
    """Whether a corner looks like an index: a code, or a window the network does not call none.

    The bar is `ReaderTuning.index_like`: the network learned backs, chips and faces as "none".
    """
    if read.code is not None:
        return True
    # A read with no probability of "none" cannot show a back: keeping the card face up
    # (unknown) is the side that cannot hide a face.
    return read.not_index is None or read.not_index < tuning.index_like


def _index_groups(
    outlines: Sequence[CardOutline], corners: list[tuple[int, npt.NDArray[Any]]]
) -> list[list[int]]:
    """Groups of `corners` (positions) that claim one printed index, for `read_all`.

    Guessed outlines' corners whose index windows' centres lie within `SAME_INDEX` of the
    card's height of each other are one index (`guesses.same_index`): of those naming one
    code the surest is checked on moved cuts first, and when it reads, the others read on
    their own cuts (`IndexClassifier.read_all`). On the tuning designs the moved cuts were
    most of a frame's network inputs, and most of them checked guessed outlines lying on
    one card's index (a region's proposals snap onto the same card many times over).
    A firm outline's two corners are not grouped: which of them a card is read at is its
    reading's first corner, which `merge_guesses` compares with other claims, and a
    corner read without its moved cuts may not be the one they would have chosen (on the
    tuning designs, grouping them too changed five more frames' cards, either way).
    """
    guessed = [k for k, (n, _) in enumerate(corners) if outlines[n].speculative]
    if len(guessed) < 2:
        return []
    q = np.stack([corners[k][1] for k in guessed]).astype(np.float64)
    u, v = INDEX_CENTRE
    centre = q[:, 0] + u * (q[:, 1] - q[:, 0]) + v * (q[:, 3] - q[:, 0])
    height = (
        np.linalg.norm(q[:, 3] - q[:, 0], axis=1) + np.linalg.norm(q[:, 2] - q[:, 1], axis=1)
    ) / 2
    apart = np.linalg.norm(centre[:, None] - centre[None, :], axis=2)
    near = (apart <= SAME_INDEX * np.minimum(height[:, None], height[None, :])).tolist()
    # Each window joins the first group whose first window's index lies near its own.
    seeds: list[tuple[int, list[int]]] = []
    for a in range(len(guessed)):
        for seed, members in seeds:
            if near[a][seed]:
                members.append(guessed[a])
                break
        else:
            seeds.append((a, [guessed[a]]))
    return [members for _, members in seeds if len(members) > 1]


def _without_repeats(
    firm: list[tuple[CardOutline, CardReading | None]],
) -> list[tuple[CardOutline, CardReading | None]]:
    """`firm` with the unknown readings of a card another outline of it read dropped (None).

    A large card falls apart into strips (the edge cut along its index ink and border line),
    each extended to the whole card: once one outline of the card reads its code, the others
    (`visible.same_card`) are that card again, not an unreadable card beside it. So is a strip
    lying within a whole card's outline read with a code, whichever way it was grown: the margin
    between a card's printed border line and its edge, grown across its own card to a card
    lying sideways, was an unknown card on the read one (a lone card read as its code and four
    unknown cards; on a table, a zone showing two cards, so the card never confirmed). Another
    card's visible strip cannot lie there: a card over a whole card breaks its outline.
    """
    # Outlines, and where their reads lie once fitted onto the paper's edge: a whole outline
    # found skewed is fitted onto its card, where its strips were grown.
    coded = [
        (o.corners, np.asarray(r.corners, np.float64), o.partial)
        for o, r in firm
        if r is not None and r.code is not None
    ]

    def repeat(o: CardOutline, r: CardReading) -> bool:
        quad = np.asarray(r.corners, np.float64)
        if any(same_card(o.corners, c) or same_card(quad, q) for c, q, _ in coded):
            return True
        whole = (q.astype(np.float32) for _, q, partial in coded if not partial)
        return o.partial and any(inside(q, o.contour) for q in whole)

    return [
        (o, None)
        if r is not None and r.code is None and not r.face_down and repeat(o, r)
        else (o, r)
        for o, r in firm
    ]


def _explained(region: npt.NDArray[Any], sure: list[tuple[CardOutline, CardReading]]) -> bool:
    """Whether the outlines read sure in `region` (`sure` in `recognize`) leave nothing in view.

    Sure: read at the reader's bar, or a back (a card read under the bar from its two ends
    leaves its region to the guesses, as it does not cover one either).

    A whole card counts by its reading's outline (fitted onto the paper's edge), a strip
    extended to a card by its part in view only: the rest of its outline lies under a
    neighbour whose own index may show there (`visible.explained`). The card's height is the
    whole cards' median there (a strip's outline is a guess of it).
    """
    cards: list[npt.NDArray[Any]] = []
    strips: list[npt.NDArray[Any]] = []
    for o, r in sure:
        if not inside(region, o.contour):
            continue
        if o.partial:
            strips.append(o.contour)
        else:
            cards.append(np.array(r.corners, np.float64))
    if not cards:
        return False
    height = float(np.median([long_side(q) for q in cards]))
    return explained(region, cards, strips, height)


def _coded(readings: list[CardReading | None]) -> list[CardReading]:
    """The readings that name a card."""
    return [r for r in readings if r is not None and r.code is not None]


def corner_window(card: Image, window: tuple[float, float, float, float]) -> Image:
    """Cut the index window (fractions of width and height) from a flattened upright card."""
    h, w = card.shape[:2]
    x0, y0, x1, y1 = window
    out: Image = card[round(y0 * h) : round(y1 * h), round(x0 * w) : round(x1 * w)]
    return out


def _reading(
    code: str | None,
    face_down: bool,
    quad: npt.NDArray[Any],
    confidence: float,
    zone: str | None,
    source: ReadingSource,
    index_reads: int,
) -> CardReading:
    pts = [(round(float(x), 1), round(float(y), 1)) for x, y in quad]
    return CardReading(
        code=code,
        face_down=face_down,
        corners=(pts[0], pts[1], pts[2], pts[3]),
        confidence=round(float(confidence), 4),
        zone=zone,
        source=source,
        index_reads=index_reads,
    )
