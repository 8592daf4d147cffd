"""The simulated table's camera on its own: the felt, its frames, and the reader thread.

Real OpenCV on rendered frames: cards laid on the felt are read in their zones (named as the
game's positions), face-down cards are backs, a reveal is read; the reader posts the camera ok,
then each zone's content once it is stable, again after a new round, and a stalled source as
one device fault until frames come back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import numpy as np
import pytest

from calibration.profile import CalibrationProfile, DeckTemplates
from drivers.camera.errors import CameraStalledError
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.sources import Frame
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile
from studio.cards import Card
from studio.games import get_rules
from studio.messages import CardSeen, DeviceStatus, Input
from studio.runtime.camera import CameraReader, position_rows

POSITIONS = get_rules("ultimate-holdem").positions


@lru_cache(maxsize=1)
def _setup() -> tuple[FeltLayout, CalibrationProfile, DeckTemplates]:
    layout = FeltLayout.build(position_rows(POSITIONS), JUMBO)
    profile, templates = felt_profile(layout)
    return layout, profile, templates


def _recognizer() -> CardRecognizer:
    _, profile, templates = _setup()
    return CardRecognizer(profile, templates)


def test_the_zones_are_the_games_positions_in_dealer_board_player_rows() -> None:
    layout, profile, _ = _setup()
    rows = ["dealer-1", "dealer-2", "flop-1", "flop-2", "flop-3", "turn", "river"]
    assert [z.name for z in profile.zones] == [*rows, "player-1", "player-2"]
    assert sorted(z.name for z in layout.zones) == sorted(POSITIONS)
    assert 150 < layout.card_height_px() < 190


def _felt(seed: int, *placed: tuple[str, str, bool]) -> tuple[Felt, FeltSource]:
    """A felt holding `placed` (zone, code, face up) and the source that films it."""
    layout, _, _ = _setup()
    felt = Felt(seed=seed)
    for zone, code, face_up in placed:
        felt.place(zone, Card.parse(code), face_up=face_up)
    return felt, FeltSource(felt, layout)


def test_the_felt_is_drawn_only_when_it_changed_and_read_in_its_zones() -> None:
    felt, source = _felt(
        3, ("player-1", "QS", True), ("dealer-2", "7C", False), ("turn", "TD", True)
    )
    recognizer = _recognizer()
    first = source.read()
    assert source.read().image is first.image and source.renders == 1

    def seen(frame: Frame) -> set[tuple[str | None, str | None, bool]]:
        return {(r.zone, r.code, r.face_down) for r in recognizer.recognize(frame.image)}

    assert seen(first) == {
        ("player-1", "QS", False),
        ("dealer-2", None, True),
        ("turn", "TD", False),
    }
    felt.turn("dealer-2")
    felt.nudge("player-1")
    turned = source.read()
    assert turned.image is not first.image
    assert ("dealer-2", "7C", False) in seen(turned) and ("player-1", "QS", False) in seen(turned)
    felt.clear()
    assert seen(source.read()) == set()
    source.close()


class _Posts:
    """What a reader posted, and a way to wait for it."""

    def __init__(self) -> None:
        self.inputs: list[Input] = []
        self._cond = threading.Condition()

    def __call__(self, inputs: list[Input]) -> None:
        with self._cond:
            self.inputs += inputs
            self._cond.notify_all()

    def wait_for(self, test: Any, timeout: float = 10.0) -> list[Input]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not test(self.inputs):
                left = deadline - time.monotonic()
                assert left > 0, f"gave up waiting; got {self.inputs}"
                self._cond.wait(left)
            return list(self.inputs)


@pytest.fixture(name="felt_reader")
def felt_reader_fixture() -> Iterator[tuple[Felt, CameraReader, _Posts]]:
    layout, _, _ = _setup()
    felt = Felt(seed=5)
    posts = _Posts()
    reader = CameraReader(FeltSource(felt, layout), _recognizer(), POSITIONS, posts, fps=25.0)
    with reader:
        reader.start()
        yield felt, reader, posts


def _sightings(inputs: list[Input]) -> list[tuple[str, str, str | None]]:
    return [(i.zone, i.face, i.card) for i in inputs if isinstance(i, CardSeen)]


def test_the_reader_posts_the_camera_ok_then_each_stable_zone_once(
    felt_reader: tuple[Felt, CameraReader, _Posts],
) -> None:
    felt, reader, posts = felt_reader
    first = posts.wait_for(lambda got: got)
    assert isinstance(first[0], DeviceStatus) and first[0].status == "ok"
    felt.place("flop-1", Card.parse("AS"), face_up=True)
    felt.place("dealer-1", Card.parse("2H"), face_up=False)
    got = posts.wait_for(lambda got: len(_sightings(got)) == 2)
    assert sorted(_sightings(got)) == [("dealer-1", "down", None), ("flop-1", "up", "AS")]
    time.sleep(0.3)  # more frames of the same felt report nothing new
    assert len(_sightings(posts.inputs)) == 2
    reader.new_round()
    got = posts.wait_for(lambda got: len(_sightings(got)) == 4)
    assert sorted(_sightings(got)[2:]) == [("dealer-1", "down", None), ("flop-1", "up", "AS")]


class _StallingSource:
    """A source that stalls while `stalled` is set, else gives an empty felt."""

    def __init__(self, source: FeltSource) -> None:
        self.stalled = threading.Event()
        self._source = source

    def read(self) -> Frame:
        if self.stalled.is_set():
            time.sleep(0.02)
            raise CameraStalledError("camera source 'x' gave no frame for 0.02 s")
        return self._source.read()

    def close(self) -> None:
        self._source.close()

    def __enter__(self) -> _StallingSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def test_a_stalled_source_is_one_fault_until_frames_come_back() -> None:
    layout, _, _ = _setup()
    source = _StallingSource(FeltSource(Felt(), layout))
    posts = _Posts()
    with CameraReader(source, _recognizer(), POSITIONS, posts, fps=50.0) as reader:
        reader.start()
        posts.wait_for(lambda got: len(got) == 1)
        source.stalled.set()
        posts.wait_for(lambda got: len(got) == 2)
        time.sleep(0.2)  # a stall that goes on is not reported again
        source.stalled.clear()
        got = posts.wait_for(lambda got: len(got) == 3)
    statuses = [(i.status, i.detail) for i in got if isinstance(i, DeviceStatus)]
    assert statuses == [
        ("ok", ""),
        ("fault", "camera source 'x' gave no frame for 0.02 s"),
        ("ok", ""),
    ]
    assert all(i.ts <= datetime.now(UTC) for i in got)


def test_a_part_of_the_frame_reads_its_card_in_the_whole_frames_points_and_zone() -> None:
    # `StillRecognizer` reads only the changed part of a settled picture: what it reads there
    # must place the card where the whole frame's read does, in the same zone.
    _, source = _felt(5, ("player-1", "QS", True), ("turn", "TD", True))
    recognizer = _recognizer()
    frame = source.read().image
    whole = {r.code: r for r in recognizer.recognize(frame)}
    assert set(whole) == {"QS", "TD"}
    quad = whole["TD"].corners
    xs, ys = [x for x, _ in quad], [y for _, y in quad]
    part = (int(min(xs)) - 60, int(min(ys)) - 60, int(max(xs)) + 60, int(max(ys)) + 60)
    (read,) = recognizer.recognize(frame, part)
    assert (read.code, read.zone, read.face_down) == ("TD", "turn", False)
    assert (
        max(
            abs(a - b)
            for p, q in zip(read.corners, quad, strict=True)
            for a, b in zip(p, q, strict=True)
        )
        < 1.5
    )
    source.close()


@pytest.mark.parametrize(
    "part", [(0, 0, 0, 10), (10, 10, 5, 20), (-1, 0, 50, 50), (0, 0, 5000, 50)]
)
def test_a_part_outside_the_frame_is_refused(part: tuple[int, int, int, int]) -> None:
    frame = np.zeros((1080, 1920, 3), np.uint8)
    with pytest.raises(ValueError, match="is not a part of a 1920x1080 frame"):
        _recognizer().recognize(frame, part)
