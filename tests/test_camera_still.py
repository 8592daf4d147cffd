"""Reusing a still frame's read: never a card that was taken away or replaced."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
from camera_support import deck_profile
from hypothesis import given
from hypothesis import strategies as st

from calibration.profile import TableCalibration
from drivers.camera.reading import Box, CardReading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.stability import FRAMES_REQUIRED, ZoneStabilizer
from drivers.camera.still import StillRecognizer, changed_parts, parts_to_read
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from drivers.camera.tuning import STILL_BLOCK, STILL_PART_SHARE
from studio.cards import Card

VIEW = np.array([[2.6, 0, 960], [0, 2.6, 540], [0, 0, 1.0]])
"""Table millimetres to the frame's pixels."""


def _recognizer() -> CardRecognizer:
    """The jumbo deck's recognizer, with the table calibration of the scenes' camera."""
    profile, templates = deck_profile("jumbo")
    table = TableCalibration(
        image_to_table=np.linalg.inv(VIEW).tolist(),
        method="points",
        image_size=(1920, 1080),
        residual_mm=0.0,
    )
    return CardRecognizer(profile.model_copy(update={"table": table}), templates)


def _scene(codes: tuple[str, ...], seed: int) -> Scene:
    cards = tuple(
        PlacedCard(Card.parse(code), -220 + 220 * k, 0, 8.0 * k) for k, code in enumerate(codes)
    )
    # One felt for every frame, as on a real table; the sensor noise is each frame's own.
    return Scene(
        width=1920, height=1080, table_to_image=VIEW, design=JUMBO, cards=cards,
        noise=3.0, jpeg_quality=85, seed=seed, felt_seed=7,
    )  # fmt: skip


def _codes(still: StillRecognizer, scene: Scene) -> set[str | None]:
    return {r.code for r in still.recognize(render_scene(scene, truth=False).image)}


def test_a_still_table_is_read_until_reads_agree_then_reused() -> None:
    still = StillRecognizer(_recognizer())
    codes = [_codes(still, _scene(("9D", "4H", "QS"), seed=n)) for n in range(1, 6)]
    assert {"9D", "4H", "QS"} <= codes[0]
    assert all(c == codes[0] for c in codes)
    # The table confirms on three agreeing frames: those are three reads, not one repeated.
    assert (still.reads, still.reuses) == (FRAMES_REQUIRED, 5 - FRAMES_REQUIRED)


def _settled(codes: tuple[str, ...]) -> StillRecognizer:
    """A reader that has read a still table until it reuses its read."""
    still = StillRecognizer(_recognizer())
    for n in range(FRAMES_REQUIRED + 1):
        _codes(still, _scene(codes, seed=n + 1))
    assert still.reuses == 1
    return still


def test_a_card_replaced_between_frames_is_read_anew() -> None:
    still = _settled(("9D", "4H", "QS"))
    # The same place, the same angle: only the card's print differs.
    replaced = _codes(still, _scene(("9D", "7C", "QS"), seed=9))
    assert "4H" not in replaced
    assert "7C" in replaced
    assert (still.reads, still.reuses) == (FRAMES_REQUIRED + 1, 1)
    # Only the part round the replaced card was read; its neighbours kept their reads.
    assert still.part_reads == 1 and {"9D", "QS"} <= replaced


def test_a_card_taken_away_is_never_reported_again() -> None:
    still = _settled(("9D", "4H", "QS"))
    gone = _codes(still, _scene(("9D", "4H"), seed=9))
    assert "QS" not in gone
    assert still.reads == FRAMES_REQUIRED + 1


def test_forget_reads_the_next_frame_afresh() -> None:
    still = _settled(("9D",))
    still.forget()
    _codes(still, _scene(("9D",), seed=9))
    assert (still.reads, still.reuses) == (FRAMES_REQUIRED + 1, 1)


class _Unsure:
    """A reader that sees one face-up card it cannot read, in every frame."""

    reads_parts = True

    def __init__(self) -> None:
        self.calls = 0

    def recognize(self, frame: np.ndarray, region: Box | None = None) -> list[CardReading]:
        self.calls += 1
        corners = ((900.0, 400.0), (1040.0, 400.0), (1040.0, 600.0), (900.0, 600.0))
        return [CardReading(code=None, face_down=False, corners=corners, confidence=0.0, zone=None)]


def test_a_still_picture_with_an_unread_card_is_read_every_frame() -> None:
    # Another read of the same picture may read the card: it is never answered from an old read.
    reader = _Unsure()
    still = StillRecognizer(reader)
    for n in range(FRAMES_REQUIRED + 3):
        still.recognize(render_scene(_scene(("9D",), seed=n + 1), truth=False).image)
    assert reader.calls == FRAMES_REQUIRED + 3
    assert still.reuses == 0


class _Scripted:
    """A reader that reads, call by call, the codes of a script (each in its own zone), whatever
    the picture: a real reader that misses a card in some frames and not in others."""

    reads_parts = True

    def __init__(self, script: Sequence[tuple[str, ...]]) -> None:
        self._script = script
        self.calls = 0

    def recognize(self, frame: np.ndarray, region: Box | None = None) -> list[CardReading]:
        codes = self._script[min(self.calls, len(self._script) - 1)]
        self.calls += 1
        corners = ((900.0, 400.0), (1040.0, 400.0), (1040.0, 600.0), (900.0, 600.0))
        return [
            CardReading(code=c, face_down=False, corners=corners, confidence=1.0, zone=c)
            for c in codes
        ]


def _frame(codes: tuple[str, ...], seed: int) -> np.ndarray:
    image: np.ndarray = render_scene(_scene(codes, seed=seed), truth=False).image
    return image


def test_a_card_laid_unseen_in_its_first_frames_is_confirmed_when_a_later_frame_reads_it() -> None:
    # 9D lies alone and is settled; then 4H is laid beside it, and the reader misses 4H in the
    # first three frames of the new picture, which agree on what was read before it changed.
    # Reusing them would never look for 4H again: the table would wait for it in vain.
    script = [("9D",)] * (2 * FRAMES_REQUIRED) + [("9D", "4H")]
    reader = _Scripted(script)
    still = StillRecognizer(reader)
    stabilizer = ZoneStabilizer(("9D", "4H"))
    ts = datetime(2026, 1, 1, tzinfo=UTC)
    seen: list[str | None] = []
    for n in range(FRAMES_REQUIRED):
        seen += [s.card for s in stabilizer.update(still.recognize(_frame(("9D",), n + 1)), ts)]
    for n in range(2 * FRAMES_REQUIRED + 1):
        readings = still.recognize(_frame(("9D", "4H"), 10 + n))
        seen += [s.card for s in stabilizer.update(readings, ts)]
    assert seen == ["9D", "4H"]
    # The changed picture was read every frame until its new reads agreed, then reused.
    assert (reader.calls, still.reuses) == (3 * FRAMES_REQUIRED, 1)


def test_a_picture_come_back_to_the_settled_one_is_reused_again() -> None:
    # A hand over the felt that covers no card: its frames read as before, and so do the frames
    # after it has gone, which show the settled picture again: they are reused as before.
    reader = _Scripted([("9D",)])
    still = StillRecognizer(reader)
    for n in range(FRAMES_REQUIRED):
        still.recognize(_frame(("9D",), n + 1))
    for n in range(FRAMES_REQUIRED + 1):  # the changed picture, read every frame
        still.recognize(_frame(("9D", "4H"), 10 + n))
    assert (still.reads, still.reuses) == (2 * FRAMES_REQUIRED + 1, 0)
    for n in range(FRAMES_REQUIRED + 2):  # back: read until three agree, then reused
        still.recognize(_frame(("9D",), 20 + n))
    assert (still.reads, still.reuses) == (3 * FRAMES_REQUIRED + 1, 2)


class _Spy:
    """The real recognizer, recording the part of each frame it was asked to read."""

    reads_parts = True

    def __init__(self) -> None:
        self._recognizer = _recognizer()
        self.parts: list[Box | None] = []

    def recognize(self, frame: np.ndarray, region: Box | None = None) -> list[CardReading]:
        self.parts.append(region)
        return self._recognizer.recognize(frame, region)


def _centre(reading: CardReading) -> tuple[float, float]:
    xs, ys = zip(*reading.corners, strict=True)
    return sum(xs) / 4, sum(ys) / 4


def _inside(point: tuple[float, float], part: Box) -> bool:
    x0, y0, x1, y1 = part
    return x0 <= point[0] < x1 and y0 <= point[1] < y1


def test_a_card_laid_beside_settled_cards_is_read_in_its_part_until_its_reads_agree() -> None:
    spy = _Spy()
    still = StillRecognizer(spy)
    settled = [still.recognize(_frame(("9D", "4H"), n + 1)) for n in range(FRAMES_REQUIRED)][-1]
    assert {r.code for r in settled} == {"9D", "4H"} and spy.parts == [None] * FRAMES_REQUIRED
    laid = [still.recognize(_frame(("9D", "4H", "QS"), 10 + n)) for n in range(FRAMES_REQUIRED + 1)]
    # Three independent reads of the part round QS, then the settled picture is reused.
    parts = spy.parts[FRAMES_REQUIRED:]
    assert len(parts) == FRAMES_REQUIRED and still.part_reads == FRAMES_REQUIRED
    assert all({r.code for r in readings} == {"9D", "4H", "QS"} for readings in laid)
    qs = next(r for r in laid[-1] if r.code == "QS")
    for part in parts:
        assert part is not None and _inside(_centre(qs), part)
        # The far card lies outside the part: its read is the settled one, not read again.
        assert not any(_inside(_centre(r), part) for r in settled if r.code == "9D")


class _Recording:
    """A reader that reads, call by call, the readings of a script, and records the parts."""

    def __init__(self, script: Sequence[list[CardReading]], *, reads_parts: bool = True) -> None:
        self._script = script
        self.reads_parts = reads_parts
        self.parts: list[Box | None] = []

    def recognize(self, frame: np.ndarray, region: Box | None = None) -> list[CardReading]:
        self.parts.append(region)
        return self._script[min(len(self.parts) - 1, len(self._script) - 1)]


def _at(code: str | None, x: float) -> CardReading:
    corners = ((x, 400.0), (x + 160.0, 400.0), (x + 160.0, 630.0), (x, 630.0))
    return CardReading(code=code, face_down=False, corners=corners, confidence=1.0, zone=None)


def test_a_settled_card_it_could_not_read_is_read_again_in_its_part_every_frame() -> None:
    # Another read may read it, as a whole frame's read would; the card it read is kept.
    reader = _Recording([[_at("9D", 300.0), _at(None, 1300.0)]])
    still = StillRecognizer(reader)
    for n in range(FRAMES_REQUIRED + 2):
        assert [r.code for r in still.recognize(_frame(("9D",), n + 1))] == ["9D", None]
    assert still.reuses == 0 and reader.parts[:FRAMES_REQUIRED] == [None] * FRAMES_REQUIRED
    assert still.part_reads == 2
    for part in reader.parts[FRAMES_REQUIRED:]:
        assert part is not None and _inside((1380.0, 515.0), part)
        assert not _inside((380.0, 515.0), part)


def test_a_change_over_most_of_the_frame_is_read_whole() -> None:
    reader = _Recording([[_at("9D", 900.0)]])
    still = StillRecognizer(reader)
    frames = [_frame(("9D",), n + 1) for n in range(FRAMES_REQUIRED)]
    for frame in frames:
        still.recognize(frame)
    lit = np.clip(frames[0].astype(np.int16) + 80, 0, 255).astype(np.uint8)
    still.recognize(lit)
    assert reader.parts[-1] is None and still.part_reads == 0


def test_a_recognizer_that_cannot_read_parts_reads_every_change_whole() -> None:
    # Without a table calibration a recognizer sizes guesses by the frame's own firm cards.
    assert not CardRecognizer(*deck_profile("jumbo")).reads_parts and _recognizer().reads_parts
    reader = _Recording([[_at("9D", 300.0)]], reads_parts=False)
    still = StillRecognizer(reader)
    for n in range(FRAMES_REQUIRED):
        still.recognize(_frame(("9D",), n + 1))
    still.recognize(_frame(("9D", "QS"), 10))
    assert reader.parts == [None] * (FRAMES_REQUIRED + 1) and still.part_reads == 0


def test_parts_off_reads_every_change_whole() -> None:
    reader = _Recording([[_at("9D", 300.0)]])
    still = StillRecognizer(reader, parts=False)
    for n in range(FRAMES_REQUIRED):
        still.recognize(_frame(("9D",), n + 1))
    still.recognize(_frame(("9D", "QS"), 10))
    assert reader.parts == [None] * (FRAMES_REQUIRED + 1)


@given(
    st.lists(
        st.tuples(st.integers(0, 29), st.integers(0, 19)), min_size=1, max_size=6, unique=True
    ),
    st.integers(0, 120),
)
def test_the_parts_hold_every_changed_block_and_its_margin_once(
    changed_at: list[tuple[int, int]], margin: int
) -> None:
    changed = np.zeros((20, 30), bool)
    for x, y in changed_at:
        changed[y, x] = True
    shape = (20 * STILL_BLOCK, 30 * STILL_BLOCK, 3)
    h, w = shape[:2]
    parts = changed_parts(changed, float(margin), shape)
    for x, y in changed_at:
        # Every pixel of a changed block, and everything within `margin` of it in the frame.
        x0, y0 = max(0, x * STILL_BLOCK - margin), max(0, y * STILL_BLOCK - margin)
        x1 = min(w, (x + 1) * STILL_BLOCK + margin)
        y1 = min(h, (y + 1) * STILL_BLOCK + margin)
        assert any(
            px0 <= x0 and py0 <= y0 and px1 >= x1 and py1 >= y1 for px0, py0, px1, py1 in parts
        )
    for i, (ax0, ay0, ax1, ay1) in enumerate(parts):
        for bx0, by0, bx1, by1 in parts[i + 1 :]:
            # No pixel is read twice: a card there would be read twice.
            assert not (ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1)
    # Read in parts unless they cover most of the frame: then read whole.
    area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in parts)
    in_parts = parts_to_read(changed, float(margin), shape)
    assert (in_parts is None) == (area > STILL_PART_SHARE * w * h)


def test_nothing_changed_is_no_part() -> None:
    assert parts_to_read(np.zeros((20, 30), bool), 50.0, (160, 240, 3)) is None


def test_changes_far_apart_are_read_as_two_parts() -> None:
    changed = np.zeros((135, 240), bool)
    changed[10:20, 5:15] = changed[100:110, 220:230] = True
    parts = parts_to_read(changed, 40.0, (1080, 1920, 3))
    assert parts == [(0, 40, 160, 200), (1720, 760, 1880, 920)]


def test_a_back_laid_alone_reads_face_down_in_its_part_as_in_the_whole_frame() -> None:
    # A tinted light (green up, blue down) on a tuning design's back with a light green print:
    # measured on the part round the back alone, the paper's colour was the print's, the back's
    # margin no paper, and the part read nothing where the whole frame read a back (a dealer's
    # card laid face down went unseen until the table's timeout). The part is judged by the
    # whole frame's paper level and colour.
    cards = (
        PlacedCard(Card.parse("KH"), -60, 120, 0.0),
        PlacedCard(Card.parse("5C"), 60, 120, 0.0),
        PlacedCard(Card.parse("JS"), -40, -130, 0.0, face_up=False),
    )
    scene = Scene(
        width=1920, height=1080, table_to_image=VIEW, design=deckgen.design(1013), cards=cards,
        noise=3.0, jpeg_quality=85, seed=5, felt=(30, 110, 40), gain=(0.8, 1.1, 1.0),
    )  # fmt: skip
    frame = render_scene(scene)
    recognizer = _recognizer()
    whole = recognizer.recognize(frame.image)
    back = frame.cards[2].corners
    (x0, y0), (x1, y1) = back.min(axis=0) - 60, back.max(axis=0) + 60
    part = recognizer.recognize(frame.image, region=(int(x0), int(y0), int(x1), int(y1)))
    assert [r.face_down for r in whole if r.face_down] == [True], whole
    assert [(r.code, r.face_down) for r in part] == [(None, True)], part
