"""The next card prepared: what a shoe's card will do, made between cards, filled in on arrival.

Most cards of a round go to the position the script expects, with another card to follow: the
card is seated, its `card_dealt` pair goes out and the deal timer restarts. `prepare` makes, while
the table waits for that card, everything of it that does not depend on the card itself: the
seat's place, number and face, the pair's envelopes with their bodies, the cards it must not
be (a duplicate pauses the table), the deadline no timer may have reached. `take` then only
checks the card and fills it in, instead of walking `handle`'s way through the source, the
dealing and the publishing (about 25 Python calls, each several times dearer cold, after the
idle gap between cards, than warm).

A prepared card is good for one input, the next, and only if nothing else could have changed
the deal: any input handled in between drops it (`TableController.handle`), and `take` refuses
(None: the ordinary way runs) a card with no readable code, a code already on the table this
round, or a time by which a timer is due. It is made only where the ordinary way would take the
case it covers (a shoe without a camera, a round dealing, not paused, no re-scan, a device not
silent, and the step after the card another card); everything else keeps the ordinary way. The
two ways give the same events and leave the same state: tests/test_controller_prepared.py holds
them equal over random rounds with faults, timers, pauses and commands (hypothesis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from studio.cards import BY_CODE
from studio.controller.events import FACE_TEXT
from studio.controller.shoe_source import ShoeSource
from studio.controller.state import (
    SECOND,
    Round,
    Seat,
    Stray,
    TableState,
    TimerName,
    micros,
    next_deal,
)
from studio.games.model import DealCard, Face
from studio.messages import CardDealt, CardDrawn, Envelope
from studio.messages.envelope import EPOCH, MICROSECOND, SCHEMA_VERSION
from studio.messages.trusted import trusted

DEAL = TimerName("deal")
SHOE_SILENT = TimerName("silent", "shoe")
NEVER = 2**63
"""A deadline no input's time reaches: no timer is armed."""


@dataclass(slots=True)
class PreparedCard:
    """The next shoe card's seat and `card_dealt` pair, waiting for the card (see the module).

    `seat` is made with no card yet; `pair` holds the two envelopes (`trusted`: their field
    dicts, `public` and `restricted`, are their own), whose `ts` and bodies' `card` are filled in
    by `take`; none of them is seen by anyone before. `held` are the codes of the cards already
    on the table this round (seated, out of turn or discarded): one of them is a duplicate.
    `due` is the earliest timer's deadline.
    """

    round: Round
    seat: Seat
    held: frozenset[str]
    due: int
    silence: int | None
    deal_length: int
    public: dict[str, Any]
    restricted: dict[str, Any]
    pair: list[Envelope]


def prepare(st: TableState) -> PreparedCard | None:
    """The next card prepared, or None where the ordinary way must decide it (see the module)."""
    rnd = st.active
    source = st.source
    if (
        rnd is None
        or st.now is None
        or st.paused
        or rnd.rescan is not None
        or type(source) is not ShoeSource
        or source.camera
        or st.devices.get("shoe") == "silent"
    ):
        return None
    deal = next_deal(st.rules, rnd)
    script = st.rules.script
    if (
        deal is None
        or rnd.step + 1 >= len(script)
        or not isinstance(script[rnd.step + 1], DealCard)
    ):
        return None  # the card ends the dealing for now: a window, a reveal or the result follows
    face = FACE_TEXT[deal.face]
    up = deal.face is Face.UP
    # The pair's audience rules, held to the bodies this card will have: any readable card, its
    # value public only face up (a face-down seat's value is always secret; one not on the table
    # yet is secret nowhere else).
    if CardDealt.problem_of("public", face, "AS" if up else None) is not None:
        return None
    if CardDealt.problem_of("restricted", face, "AS") is not None:
        return None
    # By code (a card's hash is a Python call; a string's is cached): a code names one card.
    held = {seat.card.code for seat in rnd.seats.values() if seat.card is not None}
    held.update(d.card.code for d in rnd.drawn if isinstance(d, Stray) and d.card is not None)
    held.update(card.code for card in rnd.burned)
    number = len(rnd.seats) + 1
    seconds = st.settings.device_silence_seconds
    # As `seat_card` and `announce` make it: no camera to confirm it, announced by its pair.
    seat = Seat(deal.position, deal.face, None, number, rnd.step, True)
    seat.announced = True
    public = _fields(st, rnd, st.seq + 1, "public", deal, face, number)
    restricted = _fields(st, rnd, st.seq + 2, "restricted", deal, face, number)
    return PreparedCard(
        round=rnd,
        seat=seat,
        held=frozenset(held),
        due=min(st.timers.values(), default=NEVER),
        silence=micros(seconds) if seconds is not None else None,
        deal_length=round(st.settings.deal_timeout_seconds * SECOND),
        public=public,
        restricted=restricted,
        pair=[trusted(Envelope, public), trusted(Envelope, restricted)],
    )


def _fields(
    st: TableState, rnd: Round, seq: int, audience: str, deal: DealCard, face: str, number: int
) -> dict[str, Any]:
    """One `card_dealt` envelope's fields as `emit_json` makes them, its card and time unset."""
    return {
        "table": st.settings.table,
        "seq": seq,
        "game_number": rnd.game_number,
        "ts": None,
        "audience": audience,
        "type": CardDealt.TYPE,
        "body": {"position": deal.position, "face": face, "number": number, "card": None},
        "schema_version": SCHEMA_VERSION,
    }


def take(ready: PreparedCard, st: TableState, inp: CardDrawn) -> list[Envelope] | None:
    """Apply `inp` as `handle` would, with `ready` made for this state; None: not this card.

    Returns None, having changed nothing, for a card the ordinary way must decide: no canonical
    code, a card already held this round, or a time by which a timer is due (it fires first).
    Otherwise the card is seated and its pair returned, with the state `handle` leaves.
    """
    # A canonical code (the shoe driver's): any other spelling, or none, takes `Card.parse`'s way.
    code = inp.card
    card = BY_CODE.get(code) if code is not None else None
    at = (inp.ts - EPOCH) // MICROSECOND  # `to_micros`, as `handle`
    if card is None or code in ready.held or at >= ready.due:
        return None
    # `advance` with no timer due, then `heard`, `seat_card`, `announce` and `proceed`, in
    # their order: the same dict insertions, so the state is the same to the last detail.
    st.ts = inp.ts
    now = st.now = max(st.now or 0, at)
    if ready.silence is not None:
        st.timers[SHOE_SILENT] = now + ready.silence
    st.timers.pop(DEAL, None)
    st.frozen.pop(DEAL, None)
    rnd, seat = ready.round, ready.seat
    seat.card = card
    rnd.seats[seat.position] = seat
    rnd.drawn.append(seat.position)
    rnd.step += 1
    public, restricted = ready.public, ready.restricted
    public["ts"] = restricted["ts"] = inp.ts
    if seat.face is Face.UP:
        public["body"]["card"] = code
    restricted["body"]["card"] = code
    st.seq += 2
    st.timers[DEAL] = now + ready.deal_length
    return ready.pair
