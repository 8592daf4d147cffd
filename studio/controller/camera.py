"""Camera-only tables (`card_source = "camera"`): the camera's sightings are the round's cards.

With no shoe, a `card_seen` of a new card at the position the dealing script expects next seats
it exactly as a drawn card would (same events, same secrecy), confirmed at once. The same
dealing-order rules apply: a card seen anywhere else is out of turn, a card already in the round
is a duplicate, a face-up card the camera cannot read becomes unreadable when the deal timeout
passes, and a seated card that disappears or changes is a camera mismatch.

A face-down card shows the camera only its back: it is seated "pending" (its placement is what
the dealing order checks) and its value is read when the camera sees it face up at its reveal
step; the reveal waits for that sighting (the deal timeout, then a fault). No decision window
needs a face-down value (the player decides on the player's and the board's face-up cards, and
automatic actions depend on no card), so windows open and close as on any table; the judgement
comes only after the reveal has read every value.
"""

from __future__ import annotations

from studio.cards import Card
from studio.controller.hardware import TableHardware
from studio.controller.state import (
    Round,
    Seat,
    Stray,
    described,
    micros,
    next_deal,
    sighting_verdict,
)
from studio.games.model import DealCard, Face, Reveal
from studio.messages import (
    CardDrawn,
    CardRescanned,
    CardRevealed,
    CardSeen,
    RescanFinished,
    RescanStarted,
    TableSettings,
)

_NOTHING = ("none", None, "")


class TableCamera(TableHardware):
    """What the camera's sightings do when the camera is the table's card source."""

    def __init__(self, settings: TableSettings) -> None:
        super().__init__(settings)
        self._camera_only = settings.card_source == "camera"

    # -- sightings ------------------------------------------------------------------------------

    def _card_seen(self, inp: CardSeen) -> None:
        if not self._camera_only:
            super()._card_seen(inp)
            return
        st = self._state
        self._heard("camera")
        rnd = st.active
        if rnd is None:
            return  # between rounds the dealer clears the table: nothing to check
        rnd.sightings[inp.zone] = (inp.face, inp.card, inp.raw)
        if st.paused:
            # The manager is handling the table: what the camera sees counts at resume
            # (re-check of seated cards, a card lying where none was dealt blocks the resume).
            return
        seat = rnd.seats.get(inp.zone)
        if seat is not None:
            self._seen_seated(rnd, seat, inp)
            return
        if inp.face == "none":
            return
        deal = next_deal(st.rules, rnd)
        if deal is not None and deal.position == inp.zone:
            self._seen_expected(rnd, deal, inp)
            return
        card = Card.parse(inp.card) if inp.card is not None else None
        rnd.drawn.append(Stray(card))
        why = f"while {deal.position} is expected" if deal is not None else self._why_no_card(rnd)
        self._fault(
            "card_out_of_turn",
            position=inp.zone if inp.zone in st.rules.positions else None,
            cards=(card.code,) if card is not None else (),
            device="camera",
            raw=inp.raw,
            detail=f"card seen at {inp.zone} {why}",
        )

    def _seen_seated(self, rnd: Round, seat: Seat, inp: CardSeen) -> None:
        if seat.position in self._turning(rnd):
            self._proceed()  # the reveal reads the sighting
            return
        if inp.face == "none":
            if seat.confirmed:
                # Lifted, moved or taken: it must lie there again within the confirmation
                # time, and nothing rests on it meanwhile.
                seat.confirmed = False
                self._set_timer(f"confirm:{seat.position}", self._confirm_time)
            return
        if seat.card is None and not seat.pending:
            return  # unreadable on record: the manager corrects or discards it
        self._judge_sighting(seat, inp)

    def _seen_expected(self, rnd: Round, deal: DealCard, inp: CardSeen) -> None:
        card = Card.parse(inp.card) if inp.card is not None else None
        if deal.face is Face.DOWN and inp.face == "down":
            self._seat_card(rnd, deal, None, inp.raw, device="camera", pending=True)
        elif deal.face is Face.UP and card is not None:
            self._seat_card(rnd, deal, card, inp.raw, device="camera")
        elif card is not None and self._seat_card(
            rnd, deal, card, inp.raw, device="camera", confirmed=False
        ):
            # A face-down card lying face up: its value is exposed. It lies at its position,
            # so it is seated (its value restricted as for any face-down card), and the table
            # pauses until the camera sees it face down, or the manager voids the round.
            self._fault(
                "camera_mismatch",
                position=deal.position,
                cards=(card.code,),
                device="camera",
                raw=inp.raw,
                detail=f"{deal.position} is dealt face down but lies face up",
            )
        # Otherwise a card the camera cannot read yet (face up unreadable, or face down where
        # the script deals face up: the dealer may still be turning it). A clearer sighting
        # seats it; the deal timeout makes it an unreadable card.

    def _turning(self, rnd: Round) -> tuple[str, ...]:
        """The positions of the reveal step the script is at, not yet seen turned.

        Also while the table waits for a confirmation at that step (a turned card lifted for
        a moment): a card turned then is still being revealed, not exposed early.
        """
        script = self._state.rules.script
        if not self._camera_only or rnd.phase == "done" or rnd.step >= len(script):
            return ()
        step = script[rnd.step]
        if not isinstance(step, Reveal):
            return ()
        return tuple(p for p in step.positions if p in rnd.seats and not rnd.seats[p].revealed)

    # -- the reveal -----------------------------------------------------------------------------

    def _turn_cards(self, rnd: Round, step: Reveal) -> bool:
        if not self._camera_only:
            return super()._turn_cards(rnd, step)
        for position in step.positions:
            seat = rnd.seats[position]
            if seat.revealed:
                continue
            face, code, raw = rnd.sightings.get(position, _NOTHING)
            if face != "up" or (code is None and seat.card is None):
                rnd.phase = "revealing"
                if "deal" not in self._state.timers:
                    self._set_timer("deal", micros(self._state.settings.deal_timeout_seconds))
                return False
            if code is not None and not self._read_turned(rnd, seat, Card.parse(code), raw):
                return False
            # A card the camera cannot read keeps the value on record (the manager's
            # correction): the camera does not contradict it.
            assert seat.card is not None
            seat.revealed = seat.confirmed = True
            self._cancel(f"confirm:{position}")
            self._cancel("deal")
            self._emit(CardRevealed(position=position, card=seat.card.code))
        return True

    def _read_turned(self, rnd: Round, seat: Seat, card: Card, raw: str) -> bool:
        """Take the value the camera read on a turned card; False when that paused the table."""
        if seat.card is None:
            holder = rnd.holder(card)
            seat.card, seat.pending = card, False
            if holder is not None:
                self._cancel("deal")
                where = holder if holder in ("out of turn", "discarded") else f"at {holder}"
                self._fault(
                    "duplicate_card",
                    position=seat.position,
                    cards=(card.code,),
                    device="camera",
                    raw=raw,
                    detail=f"{card.code} is already {where} this round (seen at its reveal)",
                )
                return False
            return True
        if seat.card != card:
            self._cancel("deal")
            self._fault(
                "camera_mismatch",
                position=seat.position,
                cards=(seat.card.code, card.code),
                device="camera",
                raw=raw,
                detail=f"camera saw {card.code} turned at {seat.position}",
            )
            return False
        return True

    def _deal_timed_out(self, arg: str) -> None:
        rnd = self._state.active
        if not self._camera_only or rnd is None or rnd.step >= len(self._state.rules.script):
            super()._deal_timed_out(arg)
            return
        step = self._state.rules.script[rnd.step]
        seconds = self._state.settings.deal_timeout_seconds
        if isinstance(step, DealCard):
            face, _, raw = rnd.sightings.get(step.position, _NOTHING)
            if face == "none":
                super()._deal_timed_out(arg)
                return
            lies = "face down" if face == "down" else "face up"
            detail = f"a card lies {lies} at {step.position} and the camera cannot read it"
            self._seat_card(rnd, step, None, raw, device="camera", detail=detail)
            return
        if isinstance(step, Reveal):
            waiting = [p for p in step.positions if not rnd.seats[p].revealed]
            if not waiting:
                return
            position = waiting[0]
            seat = rnd.seats[position]
            face, _, raw = rnd.sightings.get(position, _NOTHING)
            if face == "up":
                seat.pending = False  # seen turned, never read: unreadable now
                detail = f"{position} was turned and the camera cannot read it"
                self._fault(
                    "unreadable_card", position=position, device="camera", raw=raw, detail=detail
                )
                return
            self._fault(
                "deal_timeout",
                position=position,
                device="camera",
                raw=raw,
                detail=f"{position} not seen turned within {seconds:g} s",
            )
            return
        super()._deal_timed_out(arg)

    # -- what a shoe says on a camera-only table ---------------------------------------------

    def _shoe_on_camera_table(self, inp: CardDrawn) -> None:
        """A shoe's card on a camera-only table: a fault, and no card on record.

        The table was configured without a shoe, so a `card_drawn` means a shoe (or a process
        feeding one) that should not be there: the table pauses so a person looks, rather than
        ignoring it. The card is not recorded: a shoe reading does not say a card lies on the
        table, and the camera would report one that does.
        """
        self._fault(
            "card_out_of_turn",
            cards=(inp.card,) if inp.card is not None else (),
            device="shoe",
            raw=inp.raw,
            detail="card drawn from a shoe on a camera-only table (the camera is its card source)",
        )

    # -- re-scan -------------------------------------------------------------------------------

    def _camera_rescan(self, rnd: Round) -> None:
        """Take the camera's current sightings again: each dealt card against its record.

        A sighting that agrees confirms the card; a readable face-up card fills an unreadable
        record (when it is in the round nowhere else). The re-scan ends at once, matched when
        every card agreed.
        """
        positions = list(rnd.seats)
        self._emit(RescanStarted(positions=positions), "restricted")
        problems: list[str] = []
        for seat in list(rnd.seats.values()):
            face, code, _ = rnd.sightings.get(seat.position, _NOTHING)
            recorded = seat.card
            card = Card.parse(code) if code is not None else None
            fills = (
                recorded is None
                and not seat.pending
                and card is not None
                and seat.public
                and rnd.holder(card) is None
            )
            matched = fills or sighting_verdict(seat, face, code) is True
            self._emit(
                CardRescanned(
                    position=seat.position,
                    recorded=recorded.code if recorded else None,
                    read=code,
                    matched=matched,
                ),
                "restricted",
            )
            if fills:
                seat.card = card
                self._publish_correction(seat, None)
            if matched:
                seat.confirmed = True
                self._cancel(f"confirm:{seat.position}")
            else:
                seen = described(face, code)
                problems.append(f"{seat.position}: saw {seen}, recorded {_recorded(seat)}")
        detail = "; ".join(problems) or "every card matched its record"
        self._emit(RescanFinished(matched=not problems, detail=detail), "restricted")


def _recorded(seat: Seat) -> str:
    if seat.card is not None:
        return seat.card.code
    return "a face-down card" if seat.pending else "nothing readable"
