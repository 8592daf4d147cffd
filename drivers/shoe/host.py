"""The host side of each shoe protocol, sans-I/O, and the registry that chooses one by name.

A host protocol turns received bytes into readings and errors and tells the caller what to write
back (acknowledgements). Time is an argument (`now`, seconds on any monotonic clock), so the
whole protocol, retransmission requests and silence detection included, is tested without a
port or a clock.

The framed host joins the shoe's session (from its RESET frame, or from a heartbeat's oldest
unacknowledged frame), acknowledges every event frame (cumulatively), accepts only the next expected
sequence number (go-back-N: a gap is answered with a NAK naming the first missing frame, so cards
are always delivered in the order they were drawn), suppresses duplicates by sequence number,
and reports `ShoeFault(SILENT)` when no valid frame arrived for `silence` seconds.

With `hold_acks` (the table's setting) an event frame is acknowledged only when the caller says
its reading is durable (`commit(receipt)`): the shoe keeps and resends an unacknowledged frame,
so a card read in the instant before the table died is not lost but delivered again, and
`resume_after` (the last frame the journal holds) makes the host take such a resend as the
duplicate it is.
"""

from __future__ import annotations

import logging
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from drivers.errors import (
    DriverConfigurationError,
    DriverError,
    FrameError,
    ProtocolError,
    UnknownCodeError,
)
from drivers.shoe.barcode import BarcodeCodec
from drivers.shoe.deck import BarcodeTable, DeckRegistration
from drivers.shoe.framed import (
    EVENT_TYPES,
    Frame,
    FrameCodec,
    FrameType,
    encode_frame,
    reset_identity,
)
from drivers.shoe.protocol_names import PROTOCOL_NAMES
from drivers.shoe.readings import (
    CardRead,
    CardUnreadable,
    FaultReason,
    Receipt,
    ShoeFault,
    ShoeReading,
    ShoeRecovered,
    ShoeReset,
    ShoeStatus,
    flags_from_byte,
)
from studio.cards import DECK, Card

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL = 0.2
"""Seconds between a smart shoe's heartbeats."""
SILENCE_LIMIT = 3 * HEARTBEAT_INTERVAL
"""Seconds without a valid frame that count as a fault: three missed heartbeats, well inside the
one second the table allows between an unplugged shoe and a paused round."""
NAK_REPEAT = 0.1
"""Seconds before the same gap is NAKed again (a lost NAK must not stall the stream)."""

HostItem = ShoeReading | ProtocolError
"""What a host protocol yields."""


@dataclass(slots=True)
class HostCounters:
    """Counters a host protocol keeps for the reader's health report."""

    frames: int = 0
    crc_errors: int = 0
    protocol_errors: int = 0
    duplicates: int = 0
    naks: int = 0
    last_heartbeat: float | None = None
    last_frames: list[bytes] = field(default_factory=list)
    damaged: dict[str, int] = field(default_factory=dict)
    """Damaged frames by kind (`drivers.errors.DamageKind`)."""


class HostProtocol(Protocol):
    """The host side of a shoe protocol: bytes in, readings out, replies to write back."""

    name: str
    counters: HostCounters

    def feed(self, data: bytes, now: float) -> tuple[list[HostItem], bytes]:
        """Consume received bytes; return the items completed and the bytes to write back."""
        ...

    def poll(self, now: float) -> tuple[list[HostItem], bytes]:
        """Let time pass; return items (a silence fault) and bytes to write (a repeated NAK)."""
        ...

    def line_opened(self, now: float) -> None:
        """Note that the line was (re)opened at `now`, restarting the silence timer."""
        ...

    def commit(self, receipt: Receipt) -> bytes:
        """The reading of frame `receipt` is durable: return the acknowledgement to send, if any."""
        ...

    def rewind(self) -> None:
        """The consumer could not keep what was delivered after the last `commit`: take it again."""
        ...


KEEP_FRAMES = 16
"""How many raw frames or lines a host keeps for incident reports."""


def _keep(counters: HostCounters, raw: bytes) -> None:
    counters.last_frames.append(raw)
    del counters.last_frames[:-KEEP_FRAMES]


class BarcodeHost:
    """Host side of the barcode line protocol: no replies, no heartbeat, so no silence fault."""

    name = "barcode"

    def __init__(self, table: BarcodeTable) -> None:
        """Decode lines against `table`."""
        self.codec = BarcodeCodec(table)
        self.counters = HostCounters()

    def feed(self, data: bytes, now: float) -> tuple[list[HostItem], bytes]:
        """Decode `data`; barcode readers take no replies, so the bytes returned are empty."""
        items = self.codec.feed(data)
        for item in items:
            if isinstance(item, ProtocolError):
                self.counters.protocol_errors += 1
            else:
                self.counters.frames += 1
            _keep(self.counters, item.raw)
        return list(items), b""

    def poll(self, now: float) -> tuple[list[HostItem], bytes]:
        """Nothing happens with time on a barcode line."""
        return [], b""

    def line_opened(self, now: float) -> None:
        """A reopened barcode line starts with an empty line buffer (a partial line is gone)."""
        self.codec = BarcodeCodec(self.codec.table)

    def commit(self, receipt: Receipt) -> bytes:
        """A barcode reader takes no acknowledgements."""
        return b""

    def rewind(self) -> None:
        """A barcode reader never sends a line again: nothing to rewind (the table says so)."""


class FramedHost:
    """Host side of the smart-shoe framed protocol (see the module docstring)."""

    name = "framed"

    def __init__(
        self,
        registration: DeckRegistration | None = None,
        silence: float = SILENCE_LIMIT,
        *,
        hold_acks: bool = False,
        resume_after: Receipt | None = None,
    ) -> None:
        """Map tags through `registration` (None: trust the card the shoe names).

        `hold_acks`: acknowledge an event frame only on `commit`. `resume_after`: the last frame
        whose reading is already durable; its session is joined with everything up to it taken
        as delivered and acknowledged.
        """
        self.registration = registration
        self.hold_acks = hold_acks
        self.silence = silence
        self.codec = FrameCodec()
        self.counters = HostCounters()
        self.session: int | None = None
        self.expected: int | None = None
        self._reset_reported: int | None = None
        self._last_rx: float | None = None
        self._silent = False
        self._nak: tuple[int, float] | None = None
        self._committed: int | None = None
        """The last seq acknowledged in `session` (with `hold_acks`: the last one committed)."""
        if resume_after is not None:
            self.session, self._committed = resume_after.session, resume_after.seq
            self.expected = (resume_after.seq + 1) & 0xFFFF
            self._reset_reported = resume_after.session

    def line_opened(self, now: float) -> None:
        """Restart framing and the silence timer; sequence state survives a reconnect."""
        # The shoe keeps its unacknowledged frames across an unplug and resends them, so the
        # expected sequence number must survive too, or a resent card would be delivered twice.
        self.codec = FrameCodec()
        self._last_rx = now
        self._nak = None

    def feed(self, data: bytes, now: float) -> tuple[list[HostItem], bytes]:
        """Decode `data`, deliver in-order events once, and return ACK/NAK bytes to send."""
        items: list[HostItem] = []
        replies = bytearray()
        for decoded in self.codec.feed(data):
            if isinstance(decoded, FrameError):
                self._damaged(decoded.kind, decoded.raw)
                if decoded.raw.startswith(b"\x02"):
                    self.counters.crc_errors += 1
                self.counters.protocol_errors += 1
                _keep(self.counters, decoded.raw)
                items.append(decoded)
                continue
            self.counters.frames += 1
            self._last_rx = now
            if self._silent:
                self._silent = False
                items.append(ShoeRecovered("frames arrive again"))
            replies += self._on_frame(decoded, now, items)
        return items, bytes(replies)

    def poll(self, now: float) -> tuple[list[HostItem], bytes]:
        """Report a silence fault once per silence; repeat a NAK the shoe may have missed."""
        items: list[HostItem] = []
        if self._last_rx is not None and not self._silent and now - self._last_rx > self.silence:
            self._silent = True
            items.append(
                ShoeFault(FaultReason.SILENT, f"no frame for more than {self.silence:.1f} s")
            )
        replies = b""
        if self._nak is not None and now - self._nak[1] >= NAK_REPEAT:
            replies = self._send_nak(self._nak[0], now)
        return items, replies

    def _on_frame(self, frame: Frame, now: float, items: list[HostItem]) -> bytes:
        if frame.type is FrameType.HEARTBEAT:
            return self._on_heartbeat(frame, now, items)
        raw = encode_frame(frame)
        if frame.type not in EVENT_TYPES:
            self.counters.protocol_errors += 1
            self._damaged("unexpected_type", raw)
            items.append(
                FrameError(f"unexpected {frame.type.name} from the shoe", raw, "unexpected_type")
            )
            return b""
        if frame.session != self.session:
            if frame.type is not FrameType.RESET:
                # Numbered in a session we have not joined: say nothing and wait for the
                # shoe's RESET or a heartbeat; acknowledging could discard frames unseen.
                return b""
            self.session, self.expected = frame.session, frame.seq
            self._committed = None
        assert self.expected is not None
        # `_ahead` and `_keep` inline: every card's frame comes this way.
        gap = (frame.seq - self.expected) & 0xFFFF
        if gap >= 0x8000:
            self.counters.duplicates += 1
            # Acknowledge again what was acknowledged (the shoe may have missed it), never more.
            return b"" if self._committed is None else self._ack(self._committed)
        if gap > 0:
            return self._send_nak(self.expected, now, repeat_guard=True)
        kept = self.counters.last_frames
        kept.append(raw)
        del kept[:-KEEP_FRAMES]
        self.expected = (frame.seq + 1) & 0xFFFF
        self._nak = None
        if frame.type is FrameType.RESET:
            if self._reset_reported == frame.session:
                return self._acknowledge(frame.seq)  # Nothing to deliver, nothing to wait for.
            self._reset_reported = frame.session
            items.append(ShoeReset(frame.seq, frame.session, reset_identity(frame.payload)))
        else:
            items.append(self._reading(frame, raw))
        return b"" if self.hold_acks else self._acknowledge(frame.seq)

    def commit(self, receipt: Receipt) -> bytes:
        """The reading of frame `receipt` is durable: return its (cumulative) acknowledgement.

        A receipt from an earlier session, one already acknowledged, or one for a frame never
        delivered gives nothing to send.
        """
        if receipt.session != self.session:
            return b""
        if self._committed is not None and _ahead(receipt.seq, self._committed) <= 0:
            return b""
        if self.expected is not None and _ahead(receipt.seq, self.expected) >= 0:
            return b""  # Never delivered: acknowledging it would discard it unseen.
        return self._acknowledge(receipt.seq)

    def _damaged(self, kind: str, raw: bytes) -> None:
        # Retransmission repairs a damaged frame, so nothing else would show a failing cable
        # until it costs a card: count each kind, and say it in the debug log.
        self.counters.damaged[kind] = self.counters.damaged.get(kind, 0) + 1
        log.debug(
            "damaged frame (%s, %d so far): %s", kind, self.counters.damaged[kind], raw.hex(" ")
        )

    def rewind(self) -> None:
        """Forget the deliveries after the last commit: the shoe's resends of them are new again.

        With `hold_acks` a delivered frame that its consumer could not put on record (a journal
        that cannot be written) is still held by the shoe, which sends it again; without this
        the resend would be taken as a duplicate and the card lost.
        """
        if self._committed is not None and self.session is not None:
            self.expected = (self._committed + 1) & 0xFFFF
            self._nak = None

    def _acknowledge(self, seq: int) -> bytes:
        self._committed = seq
        return self._ack(seq)

    def _awaiting_commit(self) -> bool:
        """Whether a delivered frame still waits for `commit`."""
        return self.expected is not None and self._committed != (self.expected - 1) & 0xFFFF

    def _on_heartbeat(self, frame: Frame, now: float, items: list[HostItem]) -> bytes:
        self.counters.last_heartbeat = now
        _flags, oldest, latest = struct.unpack(">BHH", frame.payload)
        if frame.session != self.session:
            # Join the shoe's session at its oldest unacknowledged frame: nothing it still
            # holds is skipped and nothing already acknowledged is delivered twice.
            if self.session is not None:
                self._reset_reported = frame.session
                items.append(ShoeReset(oldest))
            self.session, self.expected = frame.session, oldest
            # Whatever precedes the shoe's oldest unacknowledged frame was acknowledged.
            self._committed = (oldest - 1) & 0xFFFF
            self._nak = None
        assert self.expected is not None
        if _ahead(oldest, self.expected) > 0:
            # The shoe gave up frames we never received: they are gone, and saying so is the
            # only honest thing left; then carry on from what it still holds.
            items.append(
                ShoeFault(
                    FaultReason.FRAMES_LOST,
                    f"the shoe gave up frames {self.expected}..{(oldest - 1) & 0xFFFF}",
                )
            )
            self.expected = oldest
            self._nak = None
        if _ahead(latest, self.expected) >= 0:
            # The shoe already sent a frame we never got (a lost last frame): ask now
            # rather than wait for its retransmission timer.
            return self._send_nak(self.expected, now, repeat_guard=True)
        return b""

    def _ack(self, seq: int) -> bytes:
        payload = struct.pack(">H", seq)
        return encode_frame(Frame(self.session or 0, 0, FrameType.ACK, payload))

    def _send_nak(self, seq: int, now: float, repeat_guard: bool = False) -> bytes:
        if repeat_guard and self._nak is not None and self._nak[0] == seq:
            return b""
        if self.hold_acks and self._awaiting_commit():
            # A NAK acknowledges every frame before it (go-back-N): wait until those are
            # durable; `poll` sends it then (commits take a millisecond, polls come every 20).
            self._nak = (seq, -math.inf)
            return b""
        self._nak = (seq, now)
        self.counters.naks += 1
        payload = struct.pack(">H", seq)
        return encode_frame(Frame(self.session or 0, 0, FrameType.NAK, payload))

    def _reading(self, frame: Frame, raw: bytes) -> HostItem:
        payload = frame.payload
        if frame.type is FrameType.STATUS:
            return ShoeStatus(flags_from_byte(payload[0]), frame.seq, frame.session)
        if frame.type is FrameType.CARD_UNREADABLE:
            return CardUnreadable(raw, frame.seq, frame.session)
        tag = payload[1 : 1 + payload[0]].hex().upper()
        named = payload[-1]
        if self.registration is None:
            if named > 51:
                return UnknownCodeError(
                    f"tag {tag}: the shoe did not name the card and no deck is registered", raw
                )
            return CardRead(DECK[named], tag, raw, frame.seq, frame.session)  # 0 <= named <= 51
        card = self.registration.lookup(tag)
        if card is None:
            return UnknownCodeError(f"tag {tag} is not in deck {self.registration.deck_id!r}", raw)
        if named <= 51 and named != card.index:
            return UnknownCodeError(
                f"tag {tag} is registered as {card} but the shoe named {Card.from_index(named)}",
                raw,
            )
        return CardRead(card, tag, raw, frame.seq, frame.session)


def receipt_of(item: HostItem | DriverError) -> Receipt | None:
    """The frame behind a delivered item, which waits for `commit`; None when no frame does.

    Framed readings name their frame; a frame that decoded but named an unknown tag carries the
    frame in its `raw`. Barcode lines, faults and damaged frames have no receipt.
    """
    if isinstance(item, CardRead | CardUnreadable | ShoeStatus | ShoeReset):
        if item.session is None or item.seq is None:
            return None
        return Receipt(item.session, item.seq)
    if isinstance(item, UnknownCodeError):
        return frame_receipt(item.raw)
    return None


def frame_receipt(raw: bytes) -> Receipt | None:
    """The session and seq of the one whole, valid frame `raw` holds; None for anything else."""
    frames = FrameCodec().feed(raw)
    if len(frames) == 1 and isinstance(frames[0], Frame):
        return Receipt(frames[0].session, frames[0].seq)
    return None


def _ahead(seq: int, base: int) -> int:
    """Signed distance from `base` to `seq` in the 16-bit sequence space."""
    diff = (seq - base) & 0xFFFF
    return diff - 0x10000 if diff >= 0x8000 else diff


@dataclass(frozen=True, slots=True)
class ProtocolOptions:
    """What a host protocol may need: barcode table, RFID deck registration, silence limit.

    For a framed shoe also: hold acknowledgements until `commit`, and where to resume.
    """

    barcode_table: BarcodeTable = field(default_factory=BarcodeTable.card_codes)
    registration: DeckRegistration | None = None
    silence: float = SILENCE_LIMIT
    hold_acks: bool = False
    resume_after: Receipt | None = None


PROTOCOLS: dict[str, Callable[[ProtocolOptions], HostProtocol]] = {
    "barcode": lambda options: BarcodeHost(options.barcode_table),
    "framed": lambda options: FramedHost(
        options.registration,
        options.silence,
        hold_acks=options.hold_acks,
        resume_after=options.resume_after,
    ),
}
"""Host protocols by configuration name."""

if tuple(sorted(PROTOCOLS)) != PROTOCOL_NAMES:  # pragma: no cover - a programming error
    raise RuntimeError("PROTOCOLS and drivers.shoe.protocol_names must name the same protocols")


def host_protocol(name: str, options: ProtocolOptions | None = None) -> HostProtocol:
    """Return a fresh host protocol chosen by `name`.

    Raises `DriverConfigurationError` when no protocol has that name.
    """
    try:
        factory = PROTOCOLS[name]
    except KeyError:
        known = ", ".join(sorted(PROTOCOLS))
        raise DriverConfigurationError(
            f"unknown shoe protocol {name!r} (expected one of {known})"
        ) from None
    return factory(options or ProtocolOptions())
