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

from datetime import UTC

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
from studio.messages.envelope import SCHEMA_VERSION
from studio.messages.inputs import CardDrawn, DeviceStatus
from studio.messages.trusted import trusted, trusted_model

trusted_model(CardDrawn)


def to_input(delivery: Delivery, *, mono: float | None = None) -> CardDrawn | DeviceStatus | None:
    """Return the controller input for `delivery`, stamped with its `ts`, or None for none.

    `mono` is the runtime's monotonic time for the input (None: none, as in a simulation).
    """
    item, ts = delivery.item, delivery.ts
    if isinstance(item, CardRead):
        if ts.tzinfo is UTC:
            # On every card's path: the fields are the driver's own typed values (a `Card`, a
            # UTC time, bytes), so the model is built as validation would build it, without
            # the validators' cold cost (tests/test_trusted_messages.py holds the two equal).
            return trusted(
                CardDrawn,
                {
                    "ts": ts,
                    "schema_version": SCHEMA_VERSION,
                    "mono": mono,
                    "kind": "card_drawn",
                    "card": item.card.code,
                    "raw": item.raw.hex(),
                    "detail": "",
                },
            )
        return CardDrawn(ts=ts, card=item.card.code, raw=item.raw.hex(), mono=mono)
    if isinstance(item, CardUnreadable):
        detail = "the shoe reported a card it could not read"
        return CardDrawn(ts=ts, card=None, raw=item.raw.hex(), detail=detail, mono=mono)
    if isinstance(item, LineError | UnknownCodeError):
        # The driver's words (which barcode, which deck) are what the shift manager needs.
        return CardDrawn(ts=ts, card=None, raw=item.raw.hex(), detail=str(item), mono=mono)
    if isinstance(item, FrameError):
        return None
    if isinstance(item, ShoeStatus):
        if not item.flags:
            return DeviceStatus(ts=ts, device="shoe", status="ok", detail="status clear", mono=mono)
        detail = ", ".join(sorted(flag.value for flag in item.flags))
        return DeviceStatus(ts=ts, device="shoe", status="fault", detail=detail, mono=mono)
    if isinstance(item, ShoeFault):
        detail = f"{item.reason.value}: {item.detail}" if item.detail else item.reason.value
        return DeviceStatus(ts=ts, device="shoe", status="fault", detail=detail, mono=mono)
    if isinstance(item, ShoeRecovered):
        return DeviceStatus(ts=ts, device="shoe", status="ok", detail=item.detail, mono=mono)
    if isinstance(item, ShoeReset):
        return DeviceStatus(
            ts=ts,
            device="shoe",
            status="fault",
            detail=f"shoe restarted at seq {item.seq}",
            mono=mono,
        )
    detail = f"{type(item).__name__}: {item}"
    return DeviceStatus(ts=ts, device="shoe", status="fault", detail=detail, mono=mono)
