"""Cards at rest on the felt under a camera envelope, and how soon the table confirms each one.

`StillCamera` draws the cards lying on a `Felt` through a `FeltLayout` as a camera in a
`SceneStyle` envelope (`envelopes.STUDIO`) delivers them: every frame gets its own defocus,
motion blur, sensor noise and JPEG quality drawn from the envelope's ranges (and its own felt
texture), so successive frames of cards that do not move differ as a real camera's do. The
lighting (colour gain, gradient, glare spots) is drawn once per `relight()` (the lamps stay put
while a round is dealt, so a glare lying on an index keeps lying there), or every frame with
`glare_per_frame`.

`RoundWatch` is the table's side of one round: it keeps the seats as the dealer laid them and
feeds every frame's readings to the table's own `ZoneStabilizer` (the `FRAMES_REQUIRED`
agreeing frames the runtime's `CameraReader` waits for), judging each `CardSeen` with the
controller's own `sighting_verdict`, so a card counts as confirmed exactly when the table would
confirm it, and a sighting the table would take as a contradiction is a wrong confirmation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

import numpy as np

from drivers.camera.reading import CardReading
from drivers.camera.stability import FRAMES_REQUIRED, UNCLEAR, ZoneStabilizer, observe
from drivers.camera.synthetic.designs import Design
from drivers.camera.synthetic.faces import Image
from drivers.camera.synthetic.felt import Felt, FeltCard, FeltLayout
from drivers.camera.synthetic.generator import SceneStyle, index_chips
from drivers.camera.synthetic.scene import Chip, Glare, render_scene
from studio.cards import Card
from studio.controller.state import Seat, described, sighting_verdict
from studio.games.model import Face

FrameRead = Callable[[], tuple[list[CardReading], float]]
"""Grabs and reads one frame: its readings and the CPU seconds the read took."""

ConfirmationKind = Literal["laid", "revealed"]

LateCause = Literal["slow", "late_first", "unstable", "wrong", "elsewhere", "unknown", "unseen"]
"""Why a card was not confirmed in time, from its zone's view in each frame (`late_cause`)."""

WARM_GREEN = (0.85, 0.92)
WARM_RED = (1.0, 1.1)
"""A warm light's green and red gains (`StillCamera.covered_faces`): the studio envelope's
gains run 0.85-1.1; a warm light lies at their ends (cam-backs4's seed 14127: 1.01, 0.86, 1.10)."""

DOWN, NONE, UNKNOWN, UNCLEAR_VIEW = "down", "-", "?", "*"
"""A zone's view in one frame when it is not a code: a back, nothing, a face up not read, two
readings that disagree. A code read at another zone (or at none) is shown as `code@zone`."""


def still_layout(
    rows: Sequence[Sequence[str]], design: Design, style: SceneStyle, rng: np.random.Generator
) -> FeltLayout:
    """A layout of `rows` of zones at `style`'s resolution, cards a random height in its range.

    The height is drawn from `style.card_px`; it is less when the rows would not fit the frame
    (three rows at 1080p hold cards of at most ~300 px).
    """
    card_px = float(rng.uniform(*style.card_px))
    return FeltLayout.build(rows, design, size=(style.width, style.height), card_px=card_px)


class StillCamera:
    """Frames of the cards on a felt, camera effects drawn afresh each frame (module docstring).

    `rng` draws every effect, so a seed gives the same frames.
    """

    def __init__(
        self,
        layout: FeltLayout,
        style: SceneStyle,
        rng: np.random.Generator,
        *,
        glare_per_frame: bool = False,
    ) -> None:
        self._layout = layout
        self._style = style
        self._rng = rng
        self._glare_per_frame = glare_per_frame
        self._gain: tuple[float, float, float] = (1.0, 1.0, 1.0)
        self._gradient = 0.0
        self._glares: tuple[Glare, ...] = ()
        self.relight()

    def relight(self, gain: tuple[float, float, float] | None = None) -> None:
        """Draw the lighting anew: colour gain, brightness gradient and glare spots.

        With `gain` (blue, green, red) that colour gain is taken instead of a drawn one.
        """
        style, rng = self._style, self._rng
        card_px = self._layout.card_height_px()
        drawn = rng.uniform(*style.gain, 3)
        self._gain = gain or (float(drawn[0]), float(drawn[1]), float(drawn[2]))
        self._gradient = float(rng.uniform(*style.gradient))
        self._glares = tuple(
            Glare(
                float(rng.uniform(0, style.width)),
                float(rng.uniform(0, style.height)),
                float(rng.uniform(0.2, 0.6)) * card_px,
                float(rng.uniform(*style.glare_strength)),
            )
            for _ in range(int(rng.integers(style.glares[0], style.glares[1] + 1)))
        )

    def frame(self, cards: Mapping[str, FeltCard], chips: Sequence[Chip] = ()) -> Image:
        """One frame of `cards` lying in their zones, with this frame's own camera effects.

        `chips` lie over the cards (table mm, as the scene draws them).
        """
        if self._glare_per_frame:
            self.relight()
        style, rng = self._style, self._rng
        scene = replace(
            self._layout.scene(cards, seed=0),
            chips=tuple(chips),
            gain=self._gain,
            gradient=self._gradient,
            glares=self._glares,
            blur_sigma=float(rng.uniform(*style.blur)),
            motion=float(rng.uniform(*style.motion)),
            motion_angle=float(rng.uniform(0, 180)),
            noise=float(rng.uniform(*style.noise)),
            jpeg_quality=int(rng.integers(style.jpeg[0], style.jpeg[1] + 1)),
            seed=int(rng.integers(1 << 31)),
        )
        return render_scene(scene, truth=False).image

    def covered_faces(
        self, faces: Mapping[str, Card], felt_seed: str
    ) -> tuple[Image, Mapping[str, FeltCard]]:
        """One frame of `faces` face up, their index corners under chips, lit warm.

        A chip lies over each card's two index corners (`generator.index_chips`), the light is
        drawn anew with `WARM_GREEN` and `WARM_RED` (blue anywhere in the envelope's range),
        and the frame is returned with the cards as they lie (`bench/covered_faces.py`).
        `felt_seed` seeds where they land in their zones.
        """
        rng = self._rng
        low, high = self._style.gain
        blue, green, red = rng.uniform(low, high), rng.uniform(*WARM_GREEN), rng.uniform(*WARM_RED)
        self.relight((float(blue), float(green), float(red)))
        felt = Felt(felt_seed)
        for zone, card in faces.items():
            felt.place(zone, card, True)
        lying = felt.view()[1]
        width = self._layout.design.width_mm
        placed = self._layout.scene(lying, seed=0).cards
        chips = [c for p in placed for c in index_chips(p, width, rng)]
        return self.frame(lying, chips), lying


@dataclass(frozen=True, slots=True)
class CardConfirmation:
    """How soon the table confirmed one card.

    `kind`: "laid" (as dealt, face up or down) or "revealed" (a face-down card turned up);
    `frames`: frames from the first that shows it to the one whose readings confirmed it, None
    when none did within the window; `seconds`: those frames' periods summed (None likewise);
    `expected`: the view that confirms it (its code, or `DOWN` for a card laid face down);
    `views`: its zone's view in each frame read for it (the code read, or `DOWN`, `NONE`,
    `UNKNOWN`, `UNCLEAR_VIEW`; its own code read at another zone is `code@zone`).
    """

    zone: str
    code: str
    kind: ConfirmationKind
    frames: int | None
    seconds: float | None
    expected: str = ""
    views: tuple[str, ...] = ()


class RoundWatch:
    """The table's view of one round's cards through the camera (module docstring).

    `zones`: every zone the camera reports on; `fps`: the camera's frame rate; a frame's period
    is `1 / fps`, or the CPU time its read took when that is longer (the reader grabs the next
    frame only when it has read the last); `window`: frames to wait for a card before it counts
    as never confirmed. `wrongs` lists, in order, every sighting the table would have taken as a
    contradiction of a seat (a `camera_mismatch`).
    """

    def __init__(self, zones: Sequence[str], *, fps: float, window: int) -> None:
        if fps <= 0 or window < 1:
            raise ValueError("fps must be positive and window at least 1")
        self._stabilizer = ZoneStabilizer(zones)
        self._seats: dict[str, Seat] = {}
        self._period = 1.0 / fps
        self._window = window
        self._clock = datetime(2026, 1, 1, tzinfo=UTC)
        self.wrongs: list[str] = []

    def lay(self, zone: str, card: Card, face_up: bool) -> None:
        """The dealer laid `card` in `zone`, face up or down: the table now waits for it."""
        face = Face.UP if face_up else Face.DOWN
        number = len(self._seats) + 1
        self._seats[zone] = Seat(zone, face, card, number, number - 1, confirmed=False)

    def reveal(self, zone: str) -> None:
        """The face-down card in `zone` was turned: its value must now be seen."""
        seat = self._seats[zone]
        seat.revealed = True
        seat.confirmed = False

    def confirm(
        self, zones: Sequence[str], kind: ConfirmationKind, read: FrameRead
    ) -> list[CardConfirmation]:
        """Read frames with `read` until every seat in `zones` is confirmed or the window ends.

        Returns one `CardConfirmation` per zone, in order. Sightings of other zones are judged
        too (a card confirmed earlier may still be contradicted now); ones about empty zones say
        nothing to the table and are ignored.
        """
        waiting = {z: self._seats[z] for z in zones}
        done: dict[str, tuple[int, float]] = {}
        views: dict[str, list[str]] = {z: [] for z in zones}
        elapsed = 0.0
        for n in range(1, self._window + 1):
            if len(done) == len(waiting):
                break
            readings, cost = read()
            for zone, waited in waiting.items():
                views[zone].append(_view(zone, waited, readings))
            period = max(self._period, cost)
            elapsed += period
            self._clock += timedelta(seconds=period)
            for seen in self._stabilizer.update(readings, self._clock):
                seat = self._seats.get(seen.zone)
                if seat is None:
                    continue
                verdict = sighting_verdict(seat, seen.face, seen.card)
                if verdict is False:
                    want = seat.card.code if seat.card is not None else "?"
                    shown = "face up" if seat.face is Face.UP or seat.revealed else "face down"
                    self.wrongs.append(
                        f"{seen.zone}: {want} lying {shown}, the camera saw"
                        f" {described(seen.face, seen.card)}"
                    )
                elif verdict and not seat.confirmed:
                    seat.confirmed = True
                    if seen.zone in waiting:
                        done[seen.zone] = (n, elapsed)
        out = []
        for zone, seat in waiting.items():
            frames, seconds = done.get(zone, (None, None))
            code = seat.card.code if seat.card is not None else "?"
            expected = DOWN if seat.face is Face.DOWN and not seat.revealed else code
            out.append(
                CardConfirmation(
                    zone,
                    code,
                    kind,
                    frames,
                    seconds,
                    expected,
                    tuple(views[zone][: frames or None]),
                )
            )
        return out


def _view(zone: str, seat: Seat, readings: Sequence[CardReading]) -> str:
    """`zone`'s view in one frame's `readings`, as `CardConfirmation.views` spells it."""
    face, code = observe([r for r in readings if r.zone == zone])
    if (face, code) == UNCLEAR:
        return UNCLEAR_VIEW
    if face == "up":
        return code or UNKNOWN
    if face == "down":
        return DOWN
    own = seat.card.code if seat.card is not None else None
    away = [r.zone or "none" for r in readings if r.code is not None and r.code == own]
    return f"{own}@{away[0]}" if away else NONE


def late_cause(card: CardConfirmation, target_seconds: float) -> LateCause | None:
    """Why `card` was not confirmed within `target_seconds`; None when it was.

    "slow": confirmed on its first agreeing frames, each right, but they took longer than the
    target; "late_first": read right in every frame from its first right read on, which came
    late; "unstable": read right in some frames and otherwise in others between them (an unread
    face too: it does not break the reads' run, but it does not count towards it), so the
    agreeing frames came late or never; never read right at its zone: "wrong" (another code or
    a back seen there), "elsewhere" (its code read at another zone, or outside every zone),
    "unknown" (a face up not read, or readings that disagree), "unseen" (nothing there at all).
    """
    if card.seconds is not None and card.seconds <= target_seconds:
        return None
    views = card.views
    right = [n for n, v in enumerate(views) if v == card.expected]
    if right:
        confirmed_at = len(views) if card.frames is not None else None
        first = right[0]
        if confirmed_at is not None and all(v == card.expected for v in views[first:]):
            return "slow" if first == 0 and confirmed_at <= FRAMES_REQUIRED else "late_first"
        return "unstable"
    if any(v not in (NONE, UNKNOWN, UNCLEAR_VIEW) and "@" not in v for v in views):
        return "wrong"
    if any("@" in v for v in views):
        return "elsewhere"
    if any(v != NONE for v in views):
        return "unknown"
    return "unseen"


@dataclass(frozen=True, slots=True)
class ConfirmationFigures:
    """A run's cards summed up against a target time.

    `within_target`: the share of cards confirmed within `target_seconds` (None with no cards);
    `p50_s`, `p99_s`, `max_s`: nearest-rank percentiles of the time to confirm, where a card
    never confirmed counts as infinitely late (the percentile is then None);
    `never_confirmed`: cards no frame of the window confirmed; `wrong_confirmations`: sightings
    the table would have taken as contradicting a card.
    """

    target_seconds: float
    cards: int
    laid: int
    revealed: int
    within_target: float | None
    p50_s: float | None
    p99_s: float | None
    max_s: float | None
    never_confirmed: int
    wrong_confirmations: int

    @classmethod
    def of(
        cls, cards: Sequence[CardConfirmation], wrongs: int, target_seconds: float
    ) -> ConfirmationFigures:
        """The figures of `cards` with `wrongs` wrong confirmations against `target_seconds`."""
        times = sorted(c.seconds if c.seconds is not None else float("inf") for c in cards)

        def rank(q: float) -> float | None:
            if not times:
                return None
            value = times[max(0, int(np.ceil(q / 100 * len(times))) - 1)]
            return None if value == float("inf") else round(value, 3)

        within = sum(t <= target_seconds for t in times)
        return cls(
            target_seconds=target_seconds,
            cards=len(times),
            laid=sum(c.kind == "laid" for c in cards),
            revealed=sum(c.kind == "revealed" for c in cards),
            within_target=round(within / len(times), 4) if times else None,
            p50_s=rank(50),
            p99_s=rank(99),
            max_s=rank(100),
            never_confirmed=sum(c.frames is None for c in cards),
            wrong_confirmations=wrongs,
        )
