"""The one mapping from shoe deliveries to the controller's inputs (`studio.messages`).

The runtime calls `to_input` for every delivery it takes from a shoe's queue and journals what
comes back. The choices, each because a lost card is worse than a needless pause:

- `CardRead` -> `CardDrawn(card=code)`; `CardUnreadable` -> `CardDrawn(card=None)`.
- A barcode line that does not decode (`LineError`) or a code or tag the deck does not know
  (`UnknownCodeError`) was most likely a card leaving the shoe: `CardDrawn(card=None)`, so the
  round pauses on an unreadable card instead of giving the next card the wrong position.
- A damaged smart-shoe frame (`FrameError`) is retransmitted by the protocol, so it is no input;
  the reader's health counts it.
- `ShoeFault`, a shoe `ShoeStatus` with any flag set, a `ShoeReset` (cards the shoe held before
  restarting may be lost) and any other `DriverError` -> `DeviceStatus(status="fault")`;
  `ShoeRecovered` and an all-clear `ShoeStatus` -> `DeviceStatus(status="ok")`.
"""

from __future__ import annotations

from drivers.errors import FrameError, LineError, UnknownCodeError
from drivers.shoe.readings import (
    CardRead,
    CardUnreadable,
    Delivery,
    ShoeFault,
    ShoeRecovered,
    ShoeReset,
    ShoeStatus,
)
from studio.messages.inputs import CardDrawn, DeviceStatus


def to_input(delivery: Delivery) -> CardDrawn | DeviceStatus | None:
    """Return the controller input for `delivery`, stamped with its `ts`, or None for none."""
    item, ts = delivery.item, delivery.ts
    if isinstance(item, CardRead):
        return CardDrawn(ts=ts, card=item.card.code, raw=item.raw.hex())
    if isinstance(item, CardUnreadable):
        detail = "the shoe reported a card it could not read"
        return CardDrawn(ts=ts, card=None, raw=item.raw.hex(), detail=detail)
    if isinstance(item, LineError | UnknownCodeError):
        # The driver's words (which barcode, which deck) are what the shift manager needs.
        return CardDrawn(ts=ts, card=None, raw=item.raw.hex(), detail=str(item))
    if isinstance(item, FrameError):
        return None
    if isinstance(item, ShoeStatus):
        if not item.flags:
            return DeviceStatus(ts=ts, device="shoe", status="ok", detail="status clear")
        detail = ", ".join(sorted(flag.value for flag in item.flags))
        return DeviceStatus(ts=ts, device="shoe", status="fault", detail=detail)
    if isinstance(item, ShoeFault):
        detail = f"{item.reason.value}: {item.detail}" if item.detail else item.reason.value
        return DeviceStatus(ts=ts, device="shoe", status="fault", detail=detail)
    if isinstance(item, ShoeRecovered):
        return DeviceStatus(ts=ts, device="shoe", status="ok", detail=item.detail)
    if isinstance(item, ShoeReset):
        return DeviceStatus(
            ts=ts, device="shoe", status="fault", detail=f"shoe restarted at seq {item.seq}"
        )
    detail = f"{type(item).__name__}: {item}"
    return DeviceStatus(ts=ts, device="shoe", status="fault", detail=detail)
