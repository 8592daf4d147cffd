"""Reusing a still frame's read: never a card that was taken away or replaced."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
from camera_support import deck_profile

from drivers.camera.reading import CardReading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.stability import FRAMES_REQUIRED, ZoneStabilizer
from drivers.camera.still import StillRecognizer
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.scene import PlacedCard, Scene, render_scene
from studio.cards import Card


def _scene(codes: tuple[str, ...], seed: int) -> Scene:
    cards = tuple(
        PlacedCard(Card.parse(code), -220 + 220 * k, 0, 8.0 * k) for k, code in enumerate(codes)
    )
    view = np.array([[2.6, 0, 960], [0, 2.6, 540], [0, 0, 1.0]])
    # One felt for every frame, as on a real table; the sensor noise is each frame's own.
    return Scene(
        width=1920, height=1080, table_to_image=view, design=JUMBO, cards=cards,
        noise=3.0, jpeg_quality=85, seed=seed, felt_seed=7,
    )  # fmt: skip


def _codes(still: StillRecognizer, scene: Scene) -> set[str | None]:
    return {r.code for r in still.recognize(render_scene(scene, truth=False).image)}


def test_a_still_table_is_read_until_reads_agree_then_reused() -> None:
    still = StillRecognizer(CardRecognizer(*deck_profile("jumbo")))
    codes = [_codes(still, _scene(("9D", "4H", "QS"), seed=n)) for n in range(1, 6)]
    assert {"9D", "4H", "QS"} <= codes[0]
    assert all(c == codes[0] for c in codes)
    # The table confirms on three agreeing frames: those are three reads, not one repeated.
    assert (still.reads, still.reuses) == (FRAMES_REQUIRED, 5 - FRAMES_REQUIRED)


def _settled(codes: tuple[str, ...]) -> StillRecognizer:
    """A reader that has read a still table until it reuses its read."""
    still = StillRecognizer(CardRecognizer(*deck_profile("jumbo")))
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

    def __init__(self) -> None:
        self.calls = 0

    def recognize(self, frame: np.ndarray) -> list[CardReading]:
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

    def __init__(self, script: Sequence[tuple[str, ...]]) -> None:
        self._script = script
        self.calls = 0

    def recognize(self, frame: np.ndarray) -> list[CardReading]:
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
