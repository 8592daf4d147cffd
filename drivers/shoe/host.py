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
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from drivers.errors import DriverConfigurationError, FrameError, ProtocolError, UnknownCodeError
from drivers.shoe.barcode import BarcodeCodec
from drivers.shoe.deck import BarcodeTable, DeckRegistration
from drivers.shoe.framed import EVENT_TYPES, Frame, FrameCodec, FrameType, encode_frame
from drivers.shoe.readings import (
    CardRead,
    CardUnreadable,
    FaultReason,
    ShoeFault,
    ShoeReading,
    ShoeRecovered,
    ShoeReset,
    ShoeStatus,
    flags_from_byte,
)
from studio.cards import Card

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


class FramedHost:
    """Host side of the smart-shoe framed protocol (see the module docstring)."""

    name = "framed"

    def __init__(
        self, registration: DeckRegistration | None = None, silence: float = SILENCE_LIMIT
    ) -> None:
        """Map tags through `registration` (None: trust the card the shoe names)."""
        self.registration = registration
        self.silence = silence
        self.codec = FrameCodec()
        self.counters = HostCounters()
        self.session: int | None = None
        self.expected: int | None = None
        self._reset_reported: int | None = None
        self._last_rx: float | None = None
        self._silent = False
        self._nak: tuple[int, float] | None = None

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
            items.append(FrameError(f"unexpected {frame.type.name} from the shoe", raw))
            return b""
        if frame.session != self.session:
            if frame.type is not FrameType.RESET:
                # Numbered in a session we have not joined: say nothing and wait for the
                # shoe's RESET or a heartbeat; acknowledging could discard frames unseen.
                return b""
            self.session, self.expected = frame.session, frame.seq
        assert self.expected is not None
        gap = _ahead(frame.seq, self.expected)
        if gap > 0:
            return self._send_nak(self.expected, now, repeat_guard=True)
        if gap < 0:
            self.counters.duplicates += 1
            return self._ack((self.expected - 1) & 0xFFFF)
        _keep(self.counters, raw)
        self.expected = (frame.seq + 1) & 0xFFFF
        self._nak = None
        if frame.type is FrameType.RESET:
            if self._reset_reported != frame.session:
                self._reset_reported = frame.session
                items.append(ShoeReset(frame.seq))
        else:
            items.append(self._reading(frame, raw))
        return self._ack(frame.seq)

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
        self._nak = (seq, now)
        self.counters.naks += 1
        payload = struct.pack(">H", seq)
        return encode_frame(Frame(self.session or 0, 0, FrameType.NAK, payload))

    def _reading(self, frame: Frame, raw: bytes) -> HostItem:
        payload = frame.payload
        if frame.type is FrameType.STATUS:
            return ShoeStatus(flags_from_byte(payload[0]), frame.seq)
        if frame.type is FrameType.CARD_UNREADABLE:
            return CardUnreadable(raw, frame.seq)
        tag = payload[1 : 1 + payload[0]].hex().upper()
        named = payload[-1]
        if self.registration is None:
            if named > 51:
                return UnknownCodeError(
                    f"tag {tag}: the shoe did not name the card and no deck is registered", raw
                )
            return CardRead(Card.from_index(named), tag, raw, frame.seq)
        card = self.registration.lookup(tag)
        if card is None:
            return UnknownCodeError(f"tag {tag} is not in deck {self.registration.deck_id!r}", raw)
        if named <= 51 and named != card.index:
            return UnknownCodeError(
                f"tag {tag} is registered as {card} but the shoe named {Card.from_index(named)}",
                raw,
            )
        return CardRead(card, tag, raw, frame.seq)


def _ahead(seq: int, base: int) -> int:
    """Signed distance from `base` to `seq` in the 16-bit sequence space."""
    diff = (seq - base) & 0xFFFF
    return diff - 0x10000 if diff >= 0x8000 else diff


@dataclass(frozen=True, slots=True)
class ProtocolOptions:
    """What a host protocol may need: the barcode table and the RFID deck registration."""

    barcode_table: BarcodeTable = field(default_factory=BarcodeTable.card_codes)
    registration: DeckRegistration | None = None
    silence: float = SILENCE_LIMIT


PROTOCOLS: dict[str, Callable[[ProtocolOptions], HostProtocol]] = {
    "barcode": lambda options: BarcodeHost(options.barcode_table),
    "framed": lambda options: FramedHost(options.registration, options.silence),
}
"""Host protocols by configuration name."""


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
