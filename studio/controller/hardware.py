"""Cards and devices: seating each drawn card, camera confirmation, device health and silence.

`TableHardware` adds to `TableCore` what the shoe, the camera and their health mean for a round.
Drivers only report readings; deciding whether a card is allowed happens here (see docs).
"""

from __future__ import annotations

from studio.cards import Card
from studio.controller.core import TableCore
from studio.controller.state import (
    Round,
    Seat,
    described,
    incident_cards,
    micros,
    sighting_verdict,
)
from studio.games.model import DealCard
from studio.messages import (
    CardCorrected,
    CardDealt,
    CardSeen,
    Device,
    DeviceHealthChanged,
    DeviceStatus,
    TableSettings,
)


class TableHardware(TableCore):
    """What the shoe's cards, the camera's sightings and device health do to the table."""

    def __init__(self, settings: TableSettings) -> None:
        super().__init__(settings)
        self._fires["confirm"] = self._camera_timed_out
        self._fires["silent"] = self._device_went_silent

    def _seat_card(
        self,
        rnd: Round,
        deal: DealCard,
        card: Card | None,
        raw: str,
        *,
        device: Device = "shoe",
        pending: bool = False,
        confirmed: bool | None = None,
        detail: str = "",
    ) -> bool:
        """Seat a card at the deal step's position; False when it paused the table.

        `pending`: a face-down card whose value nobody knows yet (camera-only). `confirmed`
        None means "as the table's camera says": confirmed at once on a table without a camera
        or on a camera-only one (the sighting seated it), awaited otherwise.
        """
        self._cancel("deal")
        holder = rnd.holder(card) if card is not None else None
        settings = self._state.settings
        camera_only = settings.card_source == "camera"
        if confirmed is None:
            confirmed = camera_only or not settings.camera
        seat = Seat(deal.position, deal.face, card, len(rnd.seats) + 1, rnd.step, confirmed)
        seat.pending = pending
        rnd.seats[deal.position] = seat
        rnd.drawn.append(deal.position)
        rnd.step += 1
        if card is None and not pending:
            self._fault(
                "unreadable_card", position=deal.position, device=device, raw=raw, detail=detail
            )
            return False
        if card is not None and holder is not None:
            where = holder if holder in ("out of turn", "discarded") else f"at {holder}"
            detail = f"{card.code} is already {where} this round"
            self._fault(
                "duplicate_card", position=deal.position, cards=(card.code,), raw=raw, detail=detail
            )
            return False
        self._announce(seat)
        if settings.camera and not camera_only:
            self._await_camera(rnd, seat)
        self._proceed()
        return True

    def _announce(self, seat: Seat) -> None:
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
            self._emit(body, "public")
            return
        self._emit_card(
            lambda code, _: CardDealt(
                position=seat.position, face=seat.face.value, number=seat.number, card=code
            ),
            seat.card,
            seat.public,
        )

    def _announce_kept(self) -> None:
        # A duplicate recorded while the manager corrected the other position (or a card that
        # duplicated a discarded one) stays where it lies: announce it now, once, in dealing
        # order, so no card ever rests in a position its consumers were never told of.
        rnd = self._state.active
        if rnd is None:
            return
        for seat in rnd.seats.values():
            if not seat.announced and seat.card is not None:
                self._announce(seat)

    def _publish_correction(self, seat: Seat, previous: Card | None) -> None:
        assert seat.card is not None
        seat.announced = True
        old = previous.code if previous is not None else None
        self._emit_card(
            lambda code, restricted: CardCorrected(
                position=seat.position,
                face=seat.face.value,
                card=code,
                previous=old
                if restricted or (seat.public and not self._secret(previous))
                else None,
            ),
            seat.card,
            seat.public,
        )

    # -- camera and devices ---------------------------------------------------------------------

    def _await_camera(self, rnd: Round, seat: Seat) -> None:
        sighting = rnd.sightings.get(seat.position)
        if sighting is not None and sighting_verdict(seat, sighting[0], sighting[1]):
            seat.confirmed = True
            return
        self._set_timer(f"confirm:{seat.position}", self._confirm_time)

    def _recheck_camera(self) -> None:
        # What the camera saw while the table was paused (the manager straightening a card)
        # counts now; a card still unconfirmed gets its timer back, fresh if it had fired.
        rnd = self._state.active
        if rnd is None or not self._state.settings.camera:
            return
        for seat in rnd.seats.values():
            if seat.confirmed:
                continue
            sighting = rnd.sightings.get(seat.position)
            if sighting is not None and sighting_verdict(seat, sighting[0], sighting[1]):
                seat.confirmed = True
                self._cancel(f"confirm:{seat.position}")
            elif f"confirm:{seat.position}" not in self._state.timers:
                self._set_timer(f"confirm:{seat.position}", self._confirm_time)

    def _camera_timed_out(self, position: str) -> None:
        rnd = self._state.active
        seat = rnd.seats.get(position) if rnd is not None else None
        if rnd is None or seat is None or seat.confirmed:
            return
        if seat.card is None and not seat.pending:
            return
        face, code, raw = rnd.sightings.get(position, ("none", None, ""))
        seen = described(face, code)
        self._fault(
            "camera_mismatch",
            position=position,
            cards=incident_cards(seat.card, code),
            device="camera",
            raw=raw,
            detail=f"camera saw {seen} at {position} within {self._confirm_time / 1e6:g} s",
        )

    def _heard(self, device: str) -> None:
        st = self._state
        if st.settings.device_silence_seconds is not None:
            self._set_timer(f"silent:{device}", micros(st.settings.device_silence_seconds))
        if st.devices.get(device) == "silent":
            self._set_health(device, "ok", "answering again")

    def _set_health(self, device: str, status: str, detail: str) -> None:
        self._state.devices[device] = status
        self._emit(DeviceHealthChanged(device=device, status=status, detail=detail), "restricted")

    def _device_went_silent(self, device: str) -> None:
        seconds = self._state.settings.device_silence_seconds
        detail = f"no word from the {device} for {seconds:g} s"
        self._set_health(device, "silent", detail)
        self._fault("device_silent", device=device, detail=detail)

    def _card_seen(self, inp: CardSeen) -> None:
        st = self._state
        if not st.settings.camera:
            return
        self._heard("camera")
        rnd = st.active
        if rnd is None:
            return
        rnd.sightings[inp.zone] = (inp.face, inp.card, inp.raw)
        seat = rnd.seats.get(inp.zone)
        if st.paused or rnd.rescan is not None or seat is None or seat.card is None:
            return
        self._judge_sighting(seat, inp)

    def _judge_sighting(self, seat: Seat, inp: CardSeen) -> None:
        """Confirm `seat` by a sighting that agrees with it; pause on one that contradicts it."""
        verdict = sighting_verdict(seat, inp.face, inp.card)
        if verdict is None:
            return
        if verdict:
            if not seat.confirmed:
                seat.confirmed = True
                self._cancel(f"confirm:{seat.position}")
                self._proceed()
            return
        # Nothing may rest on a card the camera now contradicts until it sees the card as
        # recorded again (or the manager corrects the record and the camera confirms that).
        seat.confirmed = False
        self._fault(
            "camera_mismatch",
            position=seat.position,
            cards=incident_cards(seat.card, inp.card),
            device="camera",
            raw=inp.raw,
            detail=f"camera saw {described(inp.face, inp.card)} at {seat.position}",
        )

    def _device_status(self, inp: DeviceStatus) -> None:
        st = self._state
        if inp.device not in self._monitored:
            return
        self._heard(inp.device)
        if inp.status == "fault":
            if st.devices[inp.device] != "fault":
                self._set_health(inp.device, "fault", inp.detail)
                self._fault("device_fault", device=inp.device, raw=inp.raw, detail=inp.detail)
        elif st.devices[inp.device] == "fault":
            self._set_health(inp.device, "ok", inp.detail)
