"""Publishing: every event goes through `emit` (or `emit_json`), every card through `announce`.

`emit_json` takes a body made as JSON types already (a card's `card_dealt` pair, on every card's
way); `emit_card` makes the pair of a corrected card.

The public/restricted split of a card's value is made here, once, so no other code can put a
face-down card's value on the public stream (the rules: secret until revealed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from studio.cards import Card
from studio.controller.state import Seat, TableState
from studio.games.model import Face
from studio.messages import (
    Audience,
    CardCorrected,
    CardDealt,
    Envelope,
    EventBody,
    body_json,
)
from studio.messages.envelope import SCHEMA_VERSION
from studio.messages.trusted import trusted, trusted_model

trusted_model(Envelope)

FACE_TEXT: dict[Face, str] = {face: face.value for face in Face}
"""Each face as its events write it (an enum's `.value` is two Python calls a read)."""


def emit(st: TableState, body: EventBody, audience: Audience = "public") -> None:
    """Number `body` on from the last event and add it to the input's envelopes."""
    emit_json(st, body.TYPE, body_json(body, audience), audience)


def emit_json(st: TableState, kind: str, body: dict[str, Any], audience: Audience) -> None:
    """Number the body of type `kind`, JSON types already checked for `audience`, and add it."""
    st.seq += 1
    rnd = st.round
    if rnd is not None and rnd.phase == "done":  # `st.active`, inline: two events per card
        rnd = None
    # Built without revalidation: every field is the controller's own typed value (the
    # validated settings' table, its counter, the input's UTC time, a body type's constant, a
    # body already checked for its audience); tests/test_trusted_messages.py holds the
    # envelopes equal to their validated form. Validating cost a card tens of microseconds cold.
    st.out.append(
        trusted(
            Envelope,
            {
                "table": st.settings.table,
                "seq": st.seq,
                "game_number": rnd.game_number if rnd is not None else None,
                "ts": st.ts,
                "audience": audience,
                "type": kind,
                "body": body,
                "schema_version": SCHEMA_VERSION,
            },
        )
    )


def emit_card(
    st: TableState,
    make: Callable[[str | None, bool], EventBody],
    card: Card | None,
    public: bool,
) -> None:
    """Emit a card event twice: public (the value only if `public`) and restricted (always).

    `make(code, restricted)` builds the body.
    """
    code = card.code if card is not None else None
    shown = code if public and not secret(st, card) else None
    emit(st, make(shown, False), "public")
    emit(st, make(code, True), "restricted")


def secret(st: TableState, card: Card | None) -> bool:
    """Whether `card` is the value of a face-down card not yet revealed this round.

    A misread or duplicate can put the same code at a face-up position too; its value must
    then stay off the public stream as well, or it would name the hidden card.
    """
    rnd = st.round  # `st.active`, inline
    if rnd is None or rnd.phase == "done" or card is None:
        return False
    # A plain loop with `Seat.public` inline, the cards compared only at face-down seats: this
    # runs for every face-up card before its commit (a generator's steps and the property's
    # calls cost several times their warm figure there).
    for seat in rnd.seats.values():
        if not (seat.face is Face.UP or seat.revealed) and seat.card == card:
            return True
    return False


def announce(st: TableState, seat: Seat) -> None:
    """Publish the `card_dealt` pair of a seat's card (the public value only when public).

    A pending card (camera-only, face down, value unknown) has only its public event: the
    restricted stream has nothing to add to it, and a restricted `card_dealt` always names
    its card. Its value first appears in its `card_revealed`.
    """
    seat.announced = True
    if seat.card is None:
        assert seat.pending
        body = CardDealt(
            position=seat.position, face=seat.face.value, number=seat.number, card=None
        )
        emit(st, body, "public")
        return
    # On every card's path: the pair's bodies are built as JSON types from the seat's own
    # position, face and number and a code from a `Card`, with no model made and dumped (see
    # `emit_json`); the audience rules are still checked on them.
    code = seat.card.code
    public = seat.face is Face.UP or seat.revealed  # `Seat.public`, inline
    shown = code if public and not secret(st, seat.card) else None
    face = FACE_TEXT[seat.face]
    pair: tuple[tuple[Audience, str | None], ...] = (("public", shown), ("restricted", code))
    for audience, card in pair:
        problem = CardDealt.problem_of(audience, face, card)
        if problem is not None:
            raise ValueError(problem)
        fields = {"position": seat.position, "face": face, "number": seat.number, "card": card}
        emit_json(st, CardDealt.TYPE, fields, audience)


def announce_kept(st: TableState) -> None:
    """Announce every card of the round kept unannounced, once, in dealing order.

    A duplicate recorded while the manager corrected the other position (or a card that
    duplicated a discarded one) stays where it lies: announced at resume, so no card ever rests
    in a position its consumers were never told of.
    """
    rnd = st.active
    if rnd is None:
        return
    for seat in rnd.seats.values():
        if not seat.announced and seat.card is not None:
            announce(st, seat)


def publish_correction(st: TableState, seat: Seat, previous: Card | None) -> None:
    """Publish the `card_corrected` pair of a seat whose card was corrected or filled."""
    assert seat.card is not None
    seat.announced = True
    old = previous.code if previous is not None else None
    emit_card(
        st,
        lambda code, restricted: CardCorrected(
            position=seat.position,
            face=seat.face.value,
            card=code,
            previous=old if restricted or (seat.public and not secret(st, previous)) else None,
        ),
        seat.card,
        seat.public,
    )
