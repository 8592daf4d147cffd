"""Camera confirmation: nothing rests on a card the camera has not seen as recorded.

Each seated card the camera must confirm gets a `confirm` timer; a sighting that agrees
confirms it, one that contradicts it (or the timer running out) is a `camera_mismatch`.
"""

from __future__ import annotations

from studio.controller.dealing import proceed
from studio.controller.incidents import fault
from studio.controller.state import (
    NOTHING,
    Round,
    Seat,
    TableState,
    TimerName,
    described,
    incident_cards,
    sighting_verdict,
)
from studio.controller.timers import cancel, set_timer
from studio.messages import CardSeen


def confirm_timer(position: str) -> TimerName:
    """The timer within which the camera must confirm the card at `position`."""
    return TimerName("confirm", position)


def await_camera(st: TableState, rnd: Round, seat: Seat) -> None:
    """Confirm `seat` by what the camera already sees there, else give the camera its time."""
    sighting = rnd.sightings.get(seat.position)
    if sighting is not None and sighting_verdict(seat, sighting[0], sighting[1]):
        seat.confirmed = True
        return
    set_timer(st, confirm_timer(seat.position), st.confirm_time)


def recheck(st: TableState) -> None:
    """On resume, settle the camera's confirmations.

    What the camera saw while the table was paused (the manager straightening a card) counts
    now; a card still unconfirmed gets its timer back, fresh if it had fired. On a table without
    a camera every card is confirmed when seated, so nothing happens.
    """
    rnd = st.active
    if rnd is None:
        return
    for seat in rnd.seats.values():
        if seat.confirmed:
            continue
        timer = confirm_timer(seat.position)
        sighting = rnd.sightings.get(seat.position)
        if sighting is not None and sighting_verdict(seat, sighting[0], sighting[1]):
            seat.confirmed = True
            cancel(st, timer)
        elif timer not in st.timers:
            set_timer(st, timer, st.confirm_time)


def camera_timed_out(st: TableState, timer: TimerName) -> None:
    """A confirm timer fired: the camera did not see the card as recorded in time."""
    position = timer.subject
    rnd = st.active
    seat = rnd.seats.get(position) if rnd is not None else None
    if rnd is None or seat is None or seat.confirmed:
        return
    if seat.card is None and not seat.pending:
        return
    face, code, raw = rnd.sightings.get(position, NOTHING)
    seen = described(face, code)
    fault(
        st,
        "camera_mismatch",
        position=position,
        cards=incident_cards(seat.card, code),
        device="camera",
        raw=raw,
        detail=f"camera saw {seen} at {position} within {st.confirm_time / 1e6:g} s",
    )


def judge_sighting(st: TableState, seat: Seat, inp: CardSeen) -> None:
    """Confirm `seat` by a sighting that agrees with it; pause on one that contradicts it."""
    verdict = sighting_verdict(seat, inp.face, inp.card)
    if verdict is None:
        return
    if verdict:
        if not seat.confirmed:
            seat.confirmed = True
            cancel(st, confirm_timer(seat.position))
            proceed(st)
        return
    # Nothing may rest on a card the camera now contradicts until it sees the card as
    # recorded again (or the manager corrects the record and the camera confirms that).
    seat.confirmed = False
    fault(
        st,
        "camera_mismatch",
        position=seat.position,
        cards=incident_cards(seat.card, inp.card),
        device="camera",
        raw=inp.raw,
        detail=f"camera saw {described(inp.face, inp.card)} at {seat.position}",
    )
