"""The simulated dealer (and shift manager and camera) of `studio run`, in real time.

It reads the table's `TableView` as a person reads the table: it opens a round when the table is
idle (a shuffled deck per round), draws the next card into the simulated shoe when the table
expects one, and with a simulated camera reports what lies at each card's position. With the
synthetic camera it instead lays each card on the felt (`drivers.camera.synthetic.felt.Felt`)
once the table has announced it, turns the face-down cards at their reveal and collects them
before it opens the next round; the camera, not the dealer, then confirms the cards, and the
dealer straightens a card the camera has not confirmed halfway through its confirmation time,
as a person would. Betting and decision windows need nothing from it: the runtime's clock
closes them and the controller takes the automatic actions. A re-scan (`rescan`, by a person or
the simulated manager) makes it feed the round's cards through the shoe again, in dealing order.
A paused round waits for a person unless `dealer.manager` says otherwise: the simulated shift
manager then acknowledges a broken device (`acknowledge_device`), and resumes or voids.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol

from drivers.camera.synthetic.felt import Felt
from studio.cards import DECK, Card
from studio.config import DealerConfig
from studio.errors import JournalError
from studio.messages import CardSeen, Command, CommandName, Envelope, Input
from studio.messages.view import TableView
from studio.simulation.staff import (
    AnnounceDeck,
    DiscardCard,
    DrawCard,
    LookAt,
    OpenRound,
    RedrawCard,
    RepairDevices,
    Resume,
    StaffAction,
    StaffConfig,
    TakeAway,
    TurnCards,
    Void,
    Wait,
    WaitFor,
    next_action,
)

log = logging.getLogger(__name__)

DEALER = "dealer-sim"
"""The simulated dealer's actor id on record."""
MANAGER = "manager-sim"
"""The simulated shift manager's actor id on record."""
LOOK_EVERY = 0.02
"""Seconds between two looks at the table: far below a person's reaction time."""
CARD_BACK_WAIT = 5.0
"""Seconds the dealer waits for a card it put into the shoe to be applied before it goes on."""


class Table(Protocol):
    """What the dealer needs of the runtime."""

    def view(self) -> TableView:
        """The table now (the controller's restricted view)."""
        ...

    def submit(self, inp: Input) -> list[Envelope]:
        """Journal and apply one input; return its events."""
        ...

    @property
    def cards_drawn(self) -> int:
        """How many card_drawn inputs the table has applied."""
        ...

    @property
    def journal_writable(self) -> bool:
        """False while the journal's failure makes the table refuse every input."""
        ...

    async def card_drawn_after(self, count: int) -> None:
        """Return once the table has applied more than `count` card_drawn inputs."""
        ...


class SimulatedDealer:
    """Deals rounds at a table in real time (see the module docstring).

    `deal(card)` puts a card into the shoe; `seed` seeds the shuffles; `faces` maps each
    position to "up" or "down"; `rounds` limits how many rounds it opens (None: no limit);
    `camera` enables sightings; `felt` is the synthetic camera's felt the dealer lays cards on
    (it follows the table's events through `observe`), and `confirm_seconds` the table's
    camera confirmation time. `camera_only` (a table whose card source is the camera) lays each
    card on the felt by hand instead of drawing it into the shoe. `new_deck_every_round` (the
    table's setting): the dealer announces each round's freshly shuffled deck (`new_deck`).
    """

    def __init__(
        self,
        table: Table,
        deal: Callable[[Card], None],
        config: DealerConfig,
        *,
        seed: int | str,
        faces: dict[str, str],
        round_gap: float,
        camera: bool,
        rounds: int | None = None,
        felt: Felt | None = None,
        confirm_seconds: float = 2.0,
        camera_only: bool = False,
        new_deck_every_round: bool = False,
    ) -> None:
        self._table = table
        self._deal = deal
        self._config = config
        self._faces = faces
        self._gap = round_gap
        self._camera = camera
        self._rounds = rounds
        self._rng = random.Random(seed)
        self._deck: list[Card] = []
        self._deck_for: str | None = None
        self.opened = 0
        self._in_flight = False
        self._waiter: asyncio.Task[None] | None = None
        self._sighted: set[tuple[str | None, str, str]] = set()
        self._loop = asyncio.get_running_loop()
        self._since = self._loop.time()
        self._state: tuple[Any, ...] = ()
        self._felt = felt
        self._confirm = confirm_seconds
        self._straightened: set[tuple[str | None, str, str]] = set()
        self._camera_only = camera_only
        self._laid: tuple[str | None, str] | None = None
        self._staff = StaffConfig(
            camera=camera,
            camera_only=camera_only,
            manager=config.manager,
            new_deck_every_round=new_deck_every_round,
        )
        if felt is not None:
            self._lay_recovered(table.view())

    def _now(self) -> datetime:
        return datetime.now(UTC)

    def _command(self, name: CommandName, *, manager: bool = False, note: str = "") -> None:
        self._table.submit(
            Command(
                ts=self._now(),
                actor=MANAGER if manager else DEALER,
                role="shift_manager" if manager else "dealer",
                command=name,
                note=note,
            )
        )

    def _waited(self, seconds: float) -> bool:
        return self._loop.time() - self._since >= seconds

    async def run(self) -> None:
        """Deal until cancelled (or until `rounds` rounds are opened and the table is idle)."""
        while True:
            snap = self._table.view()
            state = (snap.phase, snap.paused, snap.game_number, snap.expecting, len(snap.cards))
            if state != self._state:
                # Every reaction is timed from the moment the table last changed.
                self._state, self._since = state, self._loop.time()
            if self._table.journal_writable:
                # A table whose journal fails refuses everything: the dealer waits (a person
                # would see the table stopped); the table pauses once the journal is back.
                try:
                    self._act(snap)
                except JournalError as err:
                    log.info("the dealer waits: %s", err)
            await asyncio.sleep(LOOK_EVERY)

    def _act(self, snap: TableView) -> None:
        # What to do is the staff's policy, shared with the headless simulator; when to do it
        # (a person's reaction times, one card in the shoe's line at a time) is this dealer's.
        action = next_action(snap, self._staff)
        if self._felt is not None and not snap.paused and not isinstance(action, LookAt):
            self._straighten(snap)
        match action:
            case RedrawCard(position=position, code=code):
                if not self._in_flight and self._waited(self._config.draw_seconds):
                    # An unreadable record is filled by the re-scan: the card lying there is one
                    # the dealer has not dealt yet (the simulated shoe never says which it misread).
                    self._feed(Card.parse(code) if code is not None else self._next_card(snap))
            case AnnounceDeck() if not snap.paused:
                if self._waited(self._gap):
                    self._command("new_deck")
            case RepairDevices() | AnnounceDeck() | DiscardCard() | TakeAway() | Resume() | Void():
                self._manage(action)
            case LookAt(positions=positions):
                self._look(snap, positions)
            case OpenRound():
                if (self._rounds is None or self.opened < self._rounds) and self._waited(self._gap):
                    self.opened += 1
                    if self._felt is not None:
                        # The last round's cards lay face up for all to see until now.
                        self._felt.clear()
                    self._command("start_round")
            case TurnCards(positions=positions):
                if self._felt is not None:
                    for position in positions:
                        self._felt.turn(position)
            case DrawCard(position=position):
                if self._camera_only:
                    if self._felt is not None:
                        self._lay(snap, position)
                elif not self._in_flight and self._waited(self._config.draw_seconds):
                    self._feed(self._next_card(snap))
            case WaitFor() | Wait():
                # The runtime's clock closes betting and windows; a pause may wait for a person.
                pass

    def _next_card(self, snap: TableView) -> Card:
        game = snap.game_number
        if self._deck_for != game:
            # A fresh shuffle per round (docs/games.md); a round recovered mid-deal keeps its cards.
            used = {card.code for card in snap.cards if card.code}
            self._deck = [card for card in DECK if card.code not in used]
            self._rng.shuffle(self._deck)
            self._deck_for = game
            self._sighted.clear()
            self._straightened.clear()
        return self._deck.pop()

    def _feed(self, card: Card) -> None:
        before = self._table.cards_drawn
        self._deal(card)
        # No next card until this one has come back through the shoe: until then the snapshot
        # still expects the same position.
        self._in_flight = True
        self._waiter = self._loop.create_task(self._card_back(before))

    async def _card_back(self, before: int) -> None:
        # Woken by the table when the card applies, not by polling: a poll would wake the loop
        # every few milliseconds while the card is on the line, competing with the reader.
        try:
            await asyncio.wait_for(self._table.card_drawn_after(before), CARD_BACK_WAIT)
        except TimeoutError:
            log.warning("a card dealt into the simulated shoe did not come back within 5 s")
        self._in_flight = False
        self._since = self._loop.time()

    @property
    def in_flight(self) -> bool:
        """Whether a card is in the shoe's line and not yet applied by the table."""
        return self._in_flight

    def _look(self, snap: TableView, positions: tuple[str, ...]) -> None:
        for timer in snap.timers:
            if timer.kind != "confirm" or timer.position not in positions:
                continue
            position = timer.position
            key = (snap.game_number, position, str(timer.deadline))
            if key in self._sighted or not self._waited(self._config.camera_lag_seconds):
                continue
            self._sighted.add(key)
            code = snap.positions.get(position)
            face = self._faces.get(position, "up")
            if face == "down" or code is None:
                seen = CardSeen(ts=self._now(), zone=position, face="down", raw="sim:back")
            else:
                seen = CardSeen(
                    ts=self._now(), zone=position, face="up", card=code, raw=f"sim:{code}"
                )
            self._table.submit(seen)

    # -- the felt (synthetic camera) -------------------------------------------------------------

    def on_event(self, event: Envelope) -> None:
        """Follow the table's events as a listener (see `observe`)."""
        self.observe(event)

    def observe(self, event: Envelope) -> None:
        """Follow one of the table's events on the felt: lay, replace, turn or collect cards."""
        felt = self._felt
        if felt is None:
            return
        body = event.body
        if event.type in ("card_dealt", "card_corrected") and event.audience == "restricted":
            # The restricted copy carries a face-down card's value: the card the dealer holds.
            # A card already lying there as announced (camera-only: laid first) stays put.
            code, up = body.get("card"), body["face"] == "up"
            lying = felt.view()[1].get(body["position"])
            if code is not None and (
                lying is None or (lying.card.code, lying.face_up) != (code, up)
            ):
                felt.place(body["position"], Card.parse(code), up)
        elif event.type == "card_revealed":
            felt.turn(body["position"])
        elif event.type == "card_discarded" and body.get("position"):
            felt.remove(body["position"])

    def _lay(self, snap: TableView, position: str) -> None:
        # Camera-only: no shoe. The dealer lays the next card by hand where the table expects it
        # and waits for the camera to seat it, straightening it once if it takes long.
        assert self._felt is not None
        laid = (snap.game_number, position)
        if self._laid == laid:
            key = (snap.game_number, f"lay:{position}", "")
            if key not in self._straightened and self._waited(self._confirm / 2):
                self._straightened.add(key)
                self._felt.nudge(position)
        elif self._waited(self._config.draw_seconds):
            card = self._next_card(snap)
            self._felt.place(position, card, self._faces.get(position, "up") == "up")
            self._laid = laid

    def _lay_recovered(self, snap: TableView) -> None:
        # A table restarted mid-round still has that round's cards lying on the felt.
        if snap.phase == "idle":
            return
        assert self._felt is not None
        for position, code in snap.positions.items():
            if code is not None:
                up = self._faces.get(position, "up") == "up"
                self._felt.place(position, Card.parse(code), up)

    def _straighten(self, snap: TableView) -> None:
        # A person whose card the camera has not confirmed halfway through its time straightens
        # it: the camera then sees it lie a little differently, and reads it afresh.
        assert self._felt is not None
        now = self._now()
        for timer in snap.timers:
            if timer.kind != "confirm" or timer.position is None or timer.deadline is None:
                continue
            key = (snap.game_number, f"confirm:{timer.position}", str(timer.deadline))
            left = (timer.deadline - now).total_seconds()
            if key not in self._straightened and left < self._confirm / 2:
                self._straightened.add(key)
                log.info("straightening the card at %s for the camera", timer.position)
                self._felt.nudge(timer.position)

    def _manage(self, action: StaffAction) -> None:
        if not self._waited(self._config.manager_seconds):
            return
        self._since = self._loop.time()
        match action:
            case RepairDevices():
                # The simulated technician has the device working again at once (a restarted
                # shoe never reports it itself); the shift manager vouches for it.
                self._command("acknowledge_device", manager=True)
            case AnnounceDeck():
                self._command("new_deck")
            case DiscardCard():
                self._command("discard_last_card", manager=True)
            case TakeAway() if self._felt is not None:
                seated = self._table.view().positions
                for zone in [z for z in self._felt.view()[1] if z not in seated]:
                    self._felt.remove(zone)
            case Resume():
                self._command("resume", manager=True)
            case _:
                # Between rounds a void ends the pause: there is no round to refund.
                self._command("void", manager=True, note="simulated shift manager")
