"""What a shoe driver reports: typed readings, the delivery that carries them, and its health.

Readings are facts about the hardware, never judgements about the game: a `CardRead` says which
card left the shoe, not whether it was allowed. Everything the reader thread learns, readings and
`DriverError`s alike, reaches the runtime as a `Delivery` on one queue, stamped with the reader's
monotonic clock (for latency and fault timing) and the wall clock (for the controller's input).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Protocol

from drivers.errors import DriverError
from studio.cards import Card


class StatusFlag(Enum):
    """One error bit a smart shoe reports in its status and heartbeat frames."""

    EMPTY = "empty"
    JAM = "jam"
    COVER_OPEN = "cover_open"
    READER_FAULT = "reader_fault"


STATUS_BITS: dict[StatusFlag, int] = {
    StatusFlag.EMPTY: 0x01,
    StatusFlag.JAM: 0x02,
    StatusFlag.COVER_OPEN: 0x04,
    StatusFlag.READER_FAULT: 0x08,
}
"""The bit of each flag in the status byte (see docs/shoe-protocols.md)."""


def flags_from_byte(value: int) -> frozenset[StatusFlag]:
    """Return the flags set in a status byte; bits with no meaning are ignored."""
    return frozenset(flag for flag, bit in STATUS_BITS.items() if value & bit)


def flags_to_byte(flags: frozenset[StatusFlag]) -> int:
    """Return the status byte with exactly `flags` set."""
    value = 0
    for flag in flags:
        value |= STATUS_BITS[flag]
    return value


@dataclass(frozen=True, slots=True)
class CardRead:
    """A card left the shoe and was identified: `card`, its RFID `tag` (None for barcodes).

    `raw` is the line or frame it came from; `seq` the shoe's sequence number in its `session`
    (both None for barcodes).
    """

    card: Card
    tag: str | None
    raw: bytes
    seq: int | None
    session: int | None = None


@dataclass(frozen=True, slots=True)
class CardUnreadable:
    """A card left the shoe but could not be identified (a `NOREAD`, an unreadable tag)."""

    raw: bytes
    seq: int | None = None
    session: int | None = None


@dataclass(frozen=True, slots=True)
class ShoeStatus:
    """The shoe's error flags changed; an empty set means the shoe reports itself healthy."""

    flags: frozenset[StatusFlag]
    seq: int | None = None
    session: int | None = None


@dataclass(frozen=True, slots=True)
class ShoeReset:
    """The shoe announced a restart; its sequence numbering starts again at `seq`.

    `session` is set when the shoe's RESET frame said so (that frame waits for its receipt);
    None when the host found the new session from a heartbeat (no frame to acknowledge).
    `identity` is what the shoe's RESET frame says it is (None: it said nothing, or there was
    no RESET frame).
    """

    seq: int
    session: int | None = None
    identity: str | None = None


class FaultReason(Enum):
    """Why the driver lost its shoe."""

    DISCONNECTED = "disconnected"
    SILENT = "silent"
    FRAMES_LOST = "frames_lost"
    WRONG_DEVICE = "wrong_device"
    """Another device than the pinned shoe is on the line: it is not read."""


@dataclass(frozen=True, slots=True)
class ShoeFault:
    """The shoe is lost, or the device on the line is not the pinned shoe.

    `DISCONNECTED`, `SILENT`: lost; `FRAMES_LOST`: it gave up frames the host never got;
    `WRONG_DEVICE`: another device than the pinned shoe is on the line (it is not read).
    """

    reason: FaultReason
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ShoeRecovered:
    """After a `ShoeFault`, the line is open again and (for framed shoes) the shoe answers."""

    detail: str = ""


ShoeReading = CardRead | CardUnreadable | ShoeStatus | ShoeReset | ShoeFault | ShoeRecovered
"""Every reading a shoe driver can report."""


@dataclass(frozen=True, slots=True)
class Receipt:
    """Which shoe frame a reading came from: the shoe keeps it until the host acknowledges it."""

    session: int
    seq: int


@dataclass(frozen=True, slots=True)
class Delivery:
    """One item from the reader: a reading or a reported `DriverError`, and when it was handed over.

    `at` is `time.monotonic()` in the reader process; `ts` the aware UTC wall time for inputs.
    """

    item: ShoeReading | DriverError
    at: float
    ts: datetime


class DeliveryQueue(Protocol):
    """Where a reader puts its deliveries: a `queue.SimpleQueue` or `queue.Queue` (any thread).

    A reader makes a `queue.SimpleQueue` unless it is given one: its calls are C, where a
    `queue.Queue`'s lock and condition cost a dozen Python calls per card on the loop's path.
    """

    def put(self, item: Delivery, block: bool = True, timeout: float | None = None) -> None:
        """Queue `item`."""
        ...

    def get(self, block: bool = True, timeout: float | None = None) -> Delivery:
        """Take the oldest item; raises `queue.Empty` when none comes within `timeout`."""
        ...

    def get_nowait(self) -> Delivery:
        """Take the oldest item; raises `queue.Empty` when there is none."""
        ...

    def empty(self) -> bool:
        """Whether nothing is queued now."""
        ...

    def qsize(self) -> int:
        """How many items are queued now."""
        ...


@dataclass(frozen=True, slots=True)
class ShoeHealth:
    """A snapshot of a reader's health counters, safe to publish."""

    connected: bool
    url: str
    protocol: str
    last_heartbeat: float | None
    frames: int
    crc_errors: int
    protocol_errors: int
    retransmissions: int
    duplicates: int
    reconnects: int
    faults: int
    last_frames: tuple[bytes, ...] = field(default=())
    damaged: tuple[tuple[str, int], ...] = field(default=())
    """Damaged frames by kind, e.g. (("crc", 3),): a failing cable shows before it costs a card."""
