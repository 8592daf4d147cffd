"""The camera as the table's card source (`card_source = "camera"`): its sightings are the cards.

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

from dataclasses import dataclass

from studio.cards import Card
from studio.controller.confirmation import confirm_timer, judge_sighting
from studio.controller.dealing import DEAL, deal_timeout, proceed, seat_card, why_no_card
from studio.controller.events import emit, publish_correction
from studio.controller.incidents import fault, heard
from studio.controller.state import (
    NOTHING,
    Round,
    Seat,
    Sighting,
    Stray,
    TableState,
    described,
    micros,
    next_deal,
    sighting_verdict,
)
from studio.controller.timers import cancel, set_timer
from studio.games.model import DealCard, Face, Reveal
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


def turning(st: TableState, rnd: Round) -> tuple[str, ...]:
    """The positions of the reveal step the script is at, not yet seen turned.

    Also while the table waits for a confirmation at that step (a turned card lifted for a
    moment): a card turned then is still being revealed, not exposed early. Only a camera-only
    table waits to see cards turned; on a shoe table the reveal turns them at once.
    """
    script = st.rules.script
    if rnd.phase == "done" or rnd.step >= len(script):
        return ()
    step = script[rnd.step]
    if not isinstance(step, Reveal):
        return ()
    return tuple(p for p in step.positions if p in rnd.seats and not rnd.seats[p].revealed)


@dataclass(frozen=True, slots=True)
class CameraSource:
    """Cards come from the camera's sightings; there is no shoe."""

    devices: tuple[Device, ...] = ("camera",)

    # -- sightings ------------------------------------------------------------------------------

    def card_seen(self, st: TableState, inp: CardSeen) -> None:
        """Seat, confirm, contradict or refuse (out of turn) by what the camera sees."""
        heard(st, "camera")
        rnd = st.active
        if rnd is None:
            return  # between rounds the dealer clears the table: nothing to check
        rnd.sightings[inp.zone] = Sighting(inp.face, inp.card, inp.raw)
        if st.paused:
            # The manager is handling the table: what the camera sees counts at resume
            # (re-check of seated cards, a card lying where none was dealt blocks the resume).
            return
        seat = rnd.seats.get(inp.zone)
        if seat is not None:
            _seen_seated(st, rnd, seat, inp)
            return
        if inp.face == "none":
            return
        deal = next_deal(st.rules, rnd)
        if deal is not None and deal.position == inp.zone:
            _seen_expected(st, rnd, deal, inp)
            return
        card = Card.parse(inp.card) if inp.card is not None else None
        rnd.drawn.append(Stray(card))
        why = f"while {deal.position} is expected" if deal is not None else why_no_card(st, rnd)
        fault(
            st,
            "card_out_of_turn",
            position=inp.zone if inp.zone in st.rules.positions else None,
            cards=(card.code,) if card is not None else (),
            device="camera",
            raw=inp.raw,
            detail=f"card seen at {inp.zone} {why}",
        )

    def card_drawn(self, st: TableState, inp: CardDrawn) -> None:
        """A shoe's card on a camera-only table: a fault, and no card on record.

        The table was configured without a shoe, so a `card_drawn` means a shoe (or a process
        feeding one) that should not be there: the table pauses so a person looks, rather than
        ignoring it. The card is not recorded: a shoe reading does not say a card lies on the
        table, and the camera would report one that does.
        """
        fault(
            st,
            "card_out_of_turn",
            cards=(inp.card,) if inp.card is not None else (),
            device="shoe",
            raw=inp.raw,
            detail="card drawn from a shoe on a camera-only table (the camera is its card source)",
        )

    # -- the reveal -----------------------------------------------------------------------------

    def turn_cards(self, st: TableState, rnd: Round, step: Reveal) -> bool:
        """Reveal each card once the camera sees it turned; False while it waits for one."""
        for position in step.positions:
            seat = rnd.seats[position]
            if seat.revealed:
                continue
            face, code, raw = rnd.sightings.get(position, NOTHING)
            if face != "up" or (code is None and seat.card is None):
                rnd.phase = "revealing"
                if DEAL not in st.timers:
                    set_timer(st, DEAL, micros(st.settings.deal_timeout_seconds))
                return False
            if code is not None and not _read_turned(st, rnd, seat, Card.parse(code), raw):
                return False
            # A card the camera cannot read keeps the value on record (the manager's
            # correction): the camera does not contradict it.
            assert seat.card is not None
            seat.revealed = seat.confirmed = True
            cancel(st, confirm_timer(position))
            cancel(st, DEAL)
            emit(st, CardRevealed(position=position, card=seat.card.code))
        return True

    def deal_timed_out(self, st: TableState) -> None:
        """No readable card in time: unreadable if one lies there, else a deal timeout."""
        rnd = st.active
        if rnd is None or rnd.step >= len(st.rules.script):
            deal_timeout(st)
            return
        step = st.rules.script[rnd.step]
        seconds = st.settings.deal_timeout_seconds
        if isinstance(step, DealCard):
            face, _, raw = rnd.sightings.get(step.position, NOTHING)
            if face == "none":
                deal_timeout(st)
                return
            lies = "face down" if face == "down" else "face up"
            detail = f"a card lies {lies} at {step.position} and the camera cannot read it"
            if seat_card(st, rnd, step, None, raw, confirmed=True, device="camera", detail=detail):
                proceed(st)
            return
        if isinstance(step, Reveal):
            waiting = [p for p in step.positions if not rnd.seats[p].revealed]
            if not waiting:
                return
            position = waiting[0]
            seat = rnd.seats[position]
            face, _, raw = rnd.sightings.get(position, NOTHING)
            if face == "up":
                seat.pending = False  # seen turned, never read: unreadable now
                detail = f"{position} was turned and the camera cannot read it"
                fault(
                    st,
                    "unreadable_card",
                    position=position,
                    device="camera",
                    raw=raw,
                    detail=detail,
                )
                return
            fault(
                st,
                "deal_timeout",
                position=position,
                device="camera",
                raw=raw,
                detail=f"{position} not seen turned within {seconds:g} s",
            )
            return
        deal_timeout(st)

    # -- commands -------------------------------------------------------------------------------

    def rescan(self, st: TableState, rnd: Round) -> None:
        """Take the camera's current sightings again: each dealt card against its record.

        A sighting that agrees confirms the card; a readable face-up card fills an unreadable
        record (when it is in the round nowhere else). The re-scan ends at once, matched when
        every card agreed.
        """
        emit(st, RescanStarted(positions=list(rnd.seats)), "restricted")
        problems: list[str] = []
        for seat in list(rnd.seats.values()):
            face, code, _ = rnd.sightings.get(seat.position, NOTHING)
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
            emit(
                st,
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
                publish_correction(st, seat, None)
            if matched:
                seat.confirmed = True
                cancel(st, confirm_timer(seat.position))
            else:
                seen = described(face, code)
                problems.append(f"{seat.position}: saw {seen}, recorded {_recorded(seat)}")
        detail = "; ".join(problems) or "every card matched its record"
        emit(st, RescanFinished(matched=not problems, detail=detail), "restricted")

    def corrected(self, st: TableState, rnd: Round, seat: Seat) -> None:
        """The camera must see the corrected card, unless it can neither confirm nor contradict.

        A face-up card there the camera cannot read can neither confirm the manager's reading
        nor contradict it, so the reading stands; a card being turned is checked against it by
        the reveal itself.
        """
        seat.confirmed = False
        cancel(st, confirm_timer(seat.position))
        unreadable = rnd.sightings.get(seat.position, NOTHING)[:2] == ("up", None)
        if unreadable or seat.position in turning(st, rnd):
            seat.confirmed = True

    def blockers(self, st: TableState, rnd: Round) -> list[ResumeBlocker]:
        """A card lying where none was dealt must be taken away before the round goes on.

        On a camera-only table the camera is the record; the camera sees the zone empty once
        it is taken: the dealer's act, no command, clears it.
        """
        return [
            ResumeBlocker.of(
                "card_outside_deal",
                f"a card lies at {zone} where none was dealt: take it away",
                position=zone,
            )
            for zone, (face, _, _) in rnd.sightings.items()
            if face != "none" and zone not in rnd.seats
        ]


def _seen_seated(st: TableState, rnd: Round, seat: Seat, inp: CardSeen) -> None:
    if seat.position in turning(st, rnd):
        proceed(st)  # the reveal reads the sighting
        return
    if inp.face == "none":
        if seat.confirmed:
            # Lifted, moved or taken: it must lie there again within the confirmation time,
            # and nothing rests on it meanwhile.
            seat.confirmed = False
            set_timer(st, confirm_timer(seat.position), st.confirm_time)
        return
    if seat.card is None and not seat.pending:
        return  # unreadable on record: the manager corrects or discards it
    judge_sighting(st, seat, inp)


def _seen_expected(st: TableState, rnd: Round, deal: DealCard, inp: CardSeen) -> None:
    card = Card.parse(inp.card) if inp.card is not None else None
    if deal.face is Face.DOWN and inp.face == "down":
        if seat_card(st, rnd, deal, None, inp.raw, confirmed=True, device="camera", pending=True):
            proceed(st)
    elif deal.face is Face.UP and card is not None:
        if seat_card(st, rnd, deal, card, inp.raw, confirmed=True, device="camera"):
            proceed(st)
    elif card is not None and seat_card(
        st, rnd, deal, card, inp.raw, confirmed=False, device="camera"
    ):
        proceed(st)
        # A face-down card lying face up: its value is exposed. It lies at its position, so
        # it is seated (its value restricted as for any face-down card), and the table pauses
        # until the camera sees it face down, or the manager voids the round.
        fault(
            st,
            "camera_mismatch",
            position=deal.position,
            cards=(card.code,),
            device="camera",
            raw=inp.raw,
            detail=f"{deal.position} is dealt face down but lies face up",
        )
    # Otherwise a card the camera cannot read yet (face up unreadable, or face down where the
    # script deals face up: the dealer may still be turning it). A clearer sighting seats it;
    # the deal timeout makes it an unreadable card.


def _read_turned(st: TableState, rnd: Round, seat: Seat, card: Card, raw: str) -> bool:
    """Take the value the camera read on a turned card; False when that paused the table."""
    if seat.card is None:
        holder = rnd.holder(card)
        seat.card, seat.pending = card, False
        if holder is not None:
            cancel(st, DEAL)
            where = holder if holder in ("out of turn", "discarded") else f"at {holder}"
            fault(
                st,
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
        cancel(st, DEAL)
        fault(
            st,
            "camera_mismatch",
            position=seat.position,
            cards=(seat.card.code, card.code),
            device="camera",
            raw=raw,
            detail=f"camera saw {card.code} turned at {seat.position}",
        )
        return False
    return True


def _recorded(seat: Seat) -> str:
    if seat.card is not None:
        return seat.card.code
    return "a face-down card" if seat.pending else "nothing readable"
