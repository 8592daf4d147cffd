"""A test bench for the controller: a fake clock, a dealer, a shoe and a camera as plain inputs.

No tests here; `test_controller*.py` modules import it. Time is kept in microseconds from T0, so
nothing reads the wall clock.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from studio.cards import DECK, Card
from studio.controller import TableController, TableSettings
from studio.games.model import Face
from studio.messages import (
    CardDrawn,
    CardSeen,
    Command,
    DeviceStatus,
    Envelope,
    Input,
    Restarted,
    Tick,
    parse_input,
)
from studio.messages.view import TableView

T0 = datetime(2026, 11, 29, 14, 32, 7, tzinfo=UTC)

CONFIGS: list[dict[str, Any]] = [
    {"game": "caribbean-stud", "variant": "live", "procedure": "hidden"},
    {"game": "caribbean-stud", "variant": "live", "procedure": "late"},
    {"game": "caribbean-stud", "variant": "classic", "procedure": "hidden"},
    {"game": "ultimate-holdem", "variant": "live"},
]
"""Every game, variant and Caribbean dealing procedure the controller must run."""

FAST = {
    "betting_seconds": 10.0,
    "yellow_seconds": 3.0,
    "decision_seconds": 8.0,
    "deal_timeout_seconds": 20.0,
    "camera_confirm_seconds": 2.0,
}


@dataclass
class Bench:
    """One controller with a clock; every input fed is kept for replays."""

    settings: TableSettings
    ctl: TableController = field(init=False)
    t: timedelta = timedelta(0)
    inputs: list[Input] = field(default_factory=list)
    events: list[Envelope] = field(default_factory=list)
    placed: dict[str, str] = field(default_factory=dict)
    """Camera-only: the card the dealer laid at each position (what a turn will show)."""
    laid: list[tuple[str | None, str, str]] = field(default_factory=list)
    """Camera-only: every card laid, as (game number, position, code)."""

    def __post_init__(self) -> None:
        self.ctl = TableController(self.settings)

    @property
    def now(self) -> datetime:
        return T0 + self.t

    def feed(self, inp: Input) -> list[Envelope]:
        self.inputs.append(inp)
        out = self.ctl.handle(inp)
        self.events.extend(out)
        return out

    def wait(self, seconds: float) -> list[Envelope]:
        self.t += timedelta(seconds=seconds)
        return self.feed(Tick(ts=self.now))

    def step(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)

    def cmd(self, command: str, role: str = "shift_manager", **kw: Any) -> list[Envelope]:
        actor = "d7" if role == "dealer" else "m3" if role == "shift_manager" else "x1"
        return self.feed(Command(ts=self.now, actor=actor, role=role, command=command, **kw))

    def start(self) -> list[Envelope]:
        return self.cmd("start_round", role="dealer")

    def draw(self, card: str | None, raw: str = "") -> list[Envelope]:
        return self.feed(CardDrawn(ts=self.now, card=card, raw=raw))

    def see(self, zone: str, face: str, card: str | None = None) -> list[Envelope]:
        return self.feed(CardSeen(ts=self.now, zone=zone, face=face, card=card))

    def status(self, device: str, status: str, detail: str = "") -> list[Envelope]:
        return self.feed(DeviceStatus(ts=self.now, device=device, status=status, detail=detail))

    def restart(self) -> list[Envelope]:
        return self.feed(Restarted(ts=self.now))

    def snap(self) -> dict[str, Any]:
        return self.ctl.snapshot()

    def view(self) -> TableView:
        return self.ctl.view()

    def face_of(self, position: str) -> Face:
        return next(d.face for d in self.settings.rules().deals if d.position == position)

    @property
    def camera_only(self) -> bool:
        return self.settings.card_source == "camera"

    def lay(self, position: str, card: str) -> list[Envelope]:
        """Camera-only: lay `card` at `position` as the script deals it; the camera sees it."""
        self.placed[position] = card
        self.laid.append((self.view().game_number, position, card))
        up = self.face_of(position) is Face.UP
        return self.see(position, "up" if up else "down", card if up else None)

    def turn(self, gap: float = 0.5) -> list[Envelope]:
        """Camera-only: turn every card the table waits to see turned; the camera reads it."""
        out: list[Envelope] = []
        for position in self.view().turning:
            self.step(gap)
            out += self.see(position, "up", self.placed[position])
        return out

    def deal(self, card: str, gap: float = 0.5) -> list[Envelope]:
        """Draw `card` to the expected position and, on a camera table, let the camera see it.

        On a camera-only table the dealer lays it and the camera alone reports it.
        """
        position = self.view().expecting
        self.step(gap)
        if self.camera_only:
            return self.lay(position, card) if position is not None else []
        out = self.draw(card)
        if self.settings.camera and position is not None:
            self.step(0.2)
            up = self.face_of(position) is Face.UP
            out += self.see(position, "up" if up else "down", card if up else None)
        return out

    def play_round(self, deck: list[Card], gap: float = 0.5) -> dict[str, str]:
        """Play a clean round from the current state to its result; return the cards dealt."""
        if self.view().phase == "idle":
            self.start()
        dealt: dict[str, str] = {}
        for _ in range(200):
            snap = self.view()
            if snap.phase == "idle" or snap.paused:
                return dealt
            if snap.expecting is not None:
                card = deck.pop().code
                dealt[snap.expecting] = card
                self.deal(card, gap)
            elif snap.turning:
                self.turn(gap)
            else:
                self.wait(1.0)
        raise AssertionError("the round did not end")

    def replay(self, through_json: bool = True) -> list[Envelope]:
        """Feed every input so far to a fresh controller (through JSON, as a journal would)."""
        fresh = TableController(self.settings)
        out: list[Envelope] = []
        for inp in self.inputs:
            again = parse_input(inp.model_dump_json()) if through_json else inp
            out.extend(fresh.handle(again))
        return out

    def public(self) -> list[Envelope]:
        return [e for e in self.events if e.audience == "public"]

    def of_type(self, kind: str, audience: str | None = None) -> list[Envelope]:
        return [
            e
            for e in self.events
            if e.type == kind and (audience is None or e.audience == audience)
        ]


def bench(config: dict[str, Any], **overrides: Any) -> Bench:
    """A bench for `config` with short timings (and any setting overridden).

    `card_source="camera"` (camera-only) turns the camera on too.
    """
    if overrides.get("card_source") == "camera":
        overrides.setdefault("camera", True)
    return Bench(TableSettings(**{**FAST, **config, **overrides}))


def shuffled(seed: int) -> list[Card]:
    """A deck in a seeded order (pop() takes from the end)."""
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


def assert_no_leak(b: Bench) -> None:
    """No public envelope of a round carries one of its face-down codes before that card's reveal.

    A void round never reveals its face-down cards: they must stay off the public stream.
    """
    secrets: dict[tuple[str | None, str], str] = {}
    for e in b.events:
        restricted = e.audience == "restricted" and e.type in ("card_dealt", "card_corrected")
        if restricted and e.body["face"] == Face.DOWN.value:
            secrets[(e.game_number, e.body["position"])] = e.body["card"]
    revealed: set[tuple[str | None, str]] = set()
    for e in b.public():
        if e.type == "card_revealed":
            revealed.add((e.game_number, e.body["position"]))
        hidden = [
            c for key, c in secrets.items() if key[0] == e.game_number and key not in revealed
        ]
        if e.type == "round_result":
            assert not [k for k in secrets if k[0] == e.game_number and k not in revealed]
            continue
        text = e.model_dump_json()
        assert not [c for c in hidden if f'"{c}"' in text], (e, hidden)


def assert_whole_history(b: Bench) -> None:
    """Gapless sequence numbers, no face-down value public before its reveal, exact replay."""
    assert [e.seq for e in b.events] == list(range(1, len(b.events) + 1))
    assert_no_leak(b)
    assert [e.model_dump() for e in b.replay()] == [e.model_dump() for e in b.events]
