"""The shoe as the table's card source: each `card_drawn` seats the card the script expects.

With a camera (`settings.camera`), the camera confirms each card the shoe reports before
anything rests on it (`studio.controller.confirmation`); without one, the shoe's word stands.
"""

from __future__ import annotations

from dataclasses import dataclass

from studio.cards import Card
from studio.controller.confirmation import await_camera, confirm_timer, judge_sighting
from studio.controller.dealing import deal_timeout, proceed, seat_card, why_no_card
from studio.controller.events import emit, publish_correction
from studio.controller.incidents import fault, heard
from studio.controller.state import Round, Seat, Sighting, Stray, TableState, next_deal
from studio.controller.timers import cancel
from studio.games.model import Reveal
from studio.messages import (
    CardDrawn,
    CardRescanned,
    CardRevealed,
    CardSeen,
    Device,
    RescanFinished,
    RescanStarted,
)
from studio.messages.view import ResumeBlocker


@dataclass(frozen=True, slots=True)
class ShoeSource:
    """Cards come from the shoe; `camera` says whether a camera confirms them."""

    camera: bool

    @property
    def devices(self) -> tuple[Device, ...]:
        """The shoe, and the camera when it confirms the cards."""
        return ("shoe", "camera") if self.camera else ("shoe",)

    def card_drawn(self, st: TableState, inp: CardDrawn) -> None:
        """Seat the drawn card, check it in a re-scan, or pause: a card out of turn."""
        heard(st, "shoe")
        card = Card.parse(inp.card) if inp.card is not None else None
        rnd = st.active
        if rnd is not None and rnd.rescan is not None:
            _rescan_card(st, rnd, card)
            return
        deal = next_deal(st.rules, rnd) if rnd is not None and not st.paused else None
        if rnd is None or deal is None:
            if rnd is not None:
                rnd.drawn.append(Stray(card))
            detail = f"card drawn {why_no_card(st, rnd)}"
            cards = (card.code,) if card is not None else ()
            fault(st, "card_out_of_turn", cards=cards, device="shoe", raw=inp.raw, detail=detail)
            return
        if seat_card(st, rnd, deal, card, inp.raw, confirmed=not self.camera, detail=inp.detail):
            if self.camera:
                await_camera(st, rnd, rnd.seats[deal.position])
            proceed(st)

    def card_seen(self, st: TableState, inp: CardSeen) -> None:
        """Note the sighting; a sighting of a seated card confirms or contradicts it."""
        if not self.camera:
            return
        heard(st, "camera")
        rnd = st.active
        if rnd is None:
            return
        rnd.sightings[inp.zone] = Sighting(inp.face, inp.card, inp.raw)
        seat = rnd.seats.get(inp.zone)
        if st.paused or rnd.rescan is not None or seat is None or seat.card is None:
            return
        judge_sighting(st, seat, inp)

    def turn_cards(self, st: TableState, rnd: Round, step: Reveal) -> bool:
        """Turn the step's cards at once: the shoe already told their values."""
        for position in step.positions:
            seat = rnd.seats[position]
            seat.revealed = True
            if seat.card is not None:
                emit(st, CardRevealed(position=position, card=seat.card.code))
        return True

    def deal_timed_out(self, st: TableState) -> None:
        """No card from the shoe in time: a `deal_timeout` incident."""
        deal_timeout(st)

    def rescan(self, st: TableState, rnd: Round) -> None:
        """The dealer takes the round's cards back and draws them again, in dealing order."""
        rnd.rescan = list(rnd.seats)
        emit(st, RescanStarted(positions=list(rnd.rescan)), "restricted")

    def corrected(self, st: TableState, rnd: Round, seat: Seat) -> None:
        """With a camera, the corrected card must be seen before anything rests on it."""
        if self.camera:
            seat.confirmed = False
            cancel(st, confirm_timer(seat.position))

    def blockers(self, st: TableState, rnd: Round) -> list[ResumeBlocker]:
        """Nothing beyond the records every table checks."""
        return []


def _rescan_card(st: TableState, rnd: Round, card: Card | None) -> None:
    """Check one re-read card against its position's record; a mismatch ends the re-scan."""
    assert rnd.rescan is not None
    seat = rnd.seats[rnd.rescan[0]]
    recorded = seat.card
    fills = recorded is None and card is not None and rnd.holder(card) is None
    matched = card is not None and (card == recorded or fills)
    emit(
        st,
        CardRescanned(
            position=seat.position,
            recorded=recorded.code if recorded else None,
            read=card.code if card else None,
            matched=matched,
        ),
        "restricted",
    )
    if not matched:
        rnd.rescan = None
        read = card.code if card else "an unreadable card"
        detail = f"{seat.position}: read {read}, recorded {recorded or 'nothing'}"
        emit(st, RescanFinished(matched=False, detail=detail), "restricted")
        return
    if fills:
        seat.card = card
        publish_correction(st, seat, None)
    rnd.rescan.pop(0)
    if not rnd.rescan:
        rnd.rescan = None
        emit(st, RescanFinished(matched=True, detail="every card matched its record"), "restricted")
