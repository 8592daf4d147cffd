"""The smart-shoe framed protocol's byte layer, sans-I/O (see docs/shoe-protocols.md).

On the wire a frame is `STX body ETX`, where the body (before stuffing) is
`LEN SESSION_hi SESSION_lo SEQ_hi SEQ_lo TYPE PAYLOAD[LEN] CRC_hi CRC_lo`, and the
CRC-16/CCITT-FALSE covers `LEN..PAYLOAD`. SESSION is chosen at random by the shoe at each start,
so frames numbered before a restart are never mistaken for frames numbered after it. Inside the
body the bytes STX, ETX and DLE are sent as `DLE (byte ^ 0x20)`, so STX only ever starts a frame:
after garbage or a damaged frame the decoder is in step again at the next STX, within one frame.
Every failure is returned as a `FrameError` beside the frames; nothing raises on any input.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from drivers.errors import FrameError
from drivers.shoe.crc import crc16_ccitt

STX = 0x02
ETX = 0x03
DLE = 0x10
MAX_PAYLOAD = 40
"""Longest payload accepted; the longest real one is a card with a 16-byte tag."""
MAX_TAG = 16
"""Longest RFID tag id, in bytes."""
MAX_IDENTITY = 32
"""Longest identity a shoe may report in its RESET frame, in bytes."""
_HEAD = struct.Struct(">BHHB")
_MAX_BODY = _HEAD.size + 2 + MAX_PAYLOAD
_KEEP_GARBAGE = 64


class FrameType(IntEnum):
    """The message type byte, with the payload each carries."""

    CARD_DRAWN = 0x10
    """tag length, tag, card index 0..51 (0xFF: the shoe does not know the card)."""
    CARD_UNREADABLE = 0x11
    """tag length, tag (length 0 when no tag answered)."""
    STATUS = 0x20
    """status byte (bits: empty 0x01, jam 0x02, cover open 0x04, reader fault 0x08)."""
    HEARTBEAT = 0x21
    """status byte, oldest unacknowledged event seq (2 bytes), latest event seq (2 bytes)."""
    ACK = 0x30
    """sequence number (2 bytes): every event frame up to and including it arrived."""
    NAK = 0x31
    """sequence number (2 bytes): resend from this frame on."""
    RESET = 0x40
    """firmware version byte, then optionally the shoe's identity (a length byte 1..32 and that
    many bytes of printable ASCII: maker, model, serial number): the shoe restarted and numbers
    its events afresh from this one."""


EVENT_TYPES = frozenset(
    {FrameType.CARD_DRAWN, FrameType.CARD_UNREADABLE, FrameType.STATUS, FrameType.RESET}
)
"""Frame types that the receiver acknowledges and that are retransmitted until they are."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame: the shoe's session id and sequence number (0..65535), type, payload."""

    session: int
    seq: int
    type: FrameType
    payload: bytes


_STX, _ETX, _DLE = bytes((STX,)), bytes((ETX,)), bytes((DLE,))

_FRAME_TYPES: dict[int, FrameType] = {kind.value: kind for kind in FrameType}
"""Each message type by its byte (a lookup, where `FrameType(byte)` is two Python calls)."""


def _valid_payload(kind: FrameType, payload: bytes) -> bool:
    size = len(payload)
    if kind is FrameType.CARD_DRAWN:
        return size >= 3 and 1 <= payload[0] <= MAX_TAG and size == payload[0] + 2
    if kind is FrameType.CARD_UNREADABLE:
        return size >= 1 and payload[0] <= MAX_TAG and size == payload[0] + 1
    if kind is FrameType.RESET:
        return size == 1 or (
            size >= 3
            and 1 <= payload[1] <= MAX_IDENTITY
            and size == payload[1] + 2
            and all(32 <= b < 127 for b in payload[2:])
        )
    if kind is FrameType.STATUS:
        return size == 1
    if kind is FrameType.HEARTBEAT:
        return size == 5
    return size == 2  # ACK, NAK


def reset_identity(payload: bytes) -> str | None:
    """The identity a (valid) RESET payload reports, or None when it reports none."""
    return payload[2:].decode("ascii") if len(payload) > 2 else None


def reset_payload(version: int, identity: str = "") -> bytes:
    """A RESET payload: the firmware `version` and, if not empty, the shoe's `identity`."""
    data = identity.encode("ascii")
    if not data:
        return bytes((version,))
    if len(data) > MAX_IDENTITY:
        raise FrameError(f"a shoe identity is at most {MAX_IDENTITY} bytes")
    return bytes((version, len(data))) + data


def encode_frame(frame: Frame) -> bytes:
    """Return the wire bytes of `frame`; raise `FrameError` if its payload is too long."""
    if len(frame.payload) > MAX_PAYLOAD or not 0 <= frame.seq <= 0xFFFF:
        raise FrameError("frame payload or sequence number out of range")
    if not 0 <= frame.session <= 0xFFFF:
        raise FrameError("frame session out of range")
    head = _HEAD.pack(len(frame.payload), frame.session, frame.seq, frame.type) + frame.payload
    body = head + struct.pack(">H", crc16_ccitt(head))
    # Each STX, ETX and DLE as DLE and the byte XOR 0x20; DLE first, so that the DLEs the other
    # two bring in stay as they are (three C calls, where a loop took a Python step per byte).
    stuffed = body.replace(_DLE, b"\x10\x30").replace(_STX, b"\x10\x22").replace(_ETX, b"\x10\x23")
    return _STX + stuffed + _ETX


class FrameCodec:
    """Incremental frame decoder: `feed(bytes)` returns frames and `FrameError`s in order."""

    def __init__(self) -> None:
        """Start outside any frame."""
        self._body = bytearray()
        self._raw = bytearray()
        self._garbage = bytearray()
        self._garbage_count = 0
        self._in_frame = False
        self._escaped = False

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Consume `data` (any split); return the frames and errors it completes, in order."""
        out: list[Frame | FrameError] = []
        start = self._whole_frames(data, out)
        for byte in data[start:] if start else data:
            if byte == STX:
                if self._in_frame:
                    out.append(
                        FrameError(
                            "frame cut short by a new start byte", bytes(self._raw), "cut_short"
                        )
                    )
                elif self._garbage_count:
                    out.append(self._garbage_error())
                self._start()
            elif not self._in_frame:
                self._garbage_count += 1
                if len(self._garbage) < _KEEP_GARBAGE:
                    self._garbage.append(byte)
            elif byte == ETX:
                self._raw.append(byte)
                out.append(self._finish())
                self._in_frame = False
            else:
                self._raw.append(byte)
                if self._escaped:
                    self._escaped = False
                    self._body.append(byte ^ 0x20)
                elif byte == DLE:
                    self._escaped = True
                else:
                    self._body.append(byte)
                if len(self._body) > _MAX_BODY:
                    out.append(
                        FrameError(
                            "frame longer than the longest message", bytes(self._raw), "too_long"
                        )
                    )
                    self._in_frame = False
        return out

    def _whole_frames(self, data: bytes, out: list[Frame | FrameError]) -> int:
        """Take the whole frames `data` starts with; return where they end.

        What a shoe sends between two reads is mostly one such frame: taken at once it is what
        the byte-by-byte loop below makes of it (the same `_finish`), without a Python step per
        byte. Anything else (a frame cut short, too long, garbage, a DLE doubled or ending the
        frame, a frame begun in an earlier read) is left to the loop, from the returned offset.
        """
        start = 0
        while not self._in_frame and not self._garbage_count and data[start : start + 1] == _STX:
            end = data.find(_ETX, start + 1)
            if end < 0:
                break
            inner = data[start + 1 : end]
            if _STX in inner:
                break
            body = bytearray(inner)
            if _DLE in inner:
                # Every card frame has some (its type byte is DLE's value): each DLE and the
                # byte after it are that byte XOR 0x20, as the loop makes them.
                first, *escaped = inner.split(_DLE)
                if not all(escaped):
                    break  # a DLE doubled, or right before the ETX: the loop's own way
                body = bytearray(first)
                for part in escaped:
                    body.append(part[0] ^ 0x20)
                    body += part[1:]
            if len(body) > _MAX_BODY:
                break
            self._escaped = False
            self._body[:] = body
            self._raw[:] = data[start : end + 1]
            out.append(self._finish())
            start = end + 1
        return start

    def _start(self) -> None:
        self._in_frame = True
        self._escaped = False
        self._body.clear()
        self._raw[:] = bytes((STX,))

    def _garbage_error(self) -> FrameError:
        error = FrameError(
            f"{self._garbage_count} bytes outside any frame", bytes(self._garbage), "outside_frame"
        )
        self._garbage.clear()
        self._garbage_count = 0
        return error

    def _finish(self) -> Frame | FrameError:
        body, raw = bytes(self._body), bytes(self._raw)
        if self._escaped or len(body) < _HEAD.size + 2:
            return FrameError("frame too short", raw, "too_short")
        length, session, seq, kind = _HEAD.unpack_from(body)
        if length != len(body) - _HEAD.size - 2:
            return FrameError("frame length byte disagrees with the frame", raw, "bad_length")
        (crc,) = struct.unpack_from(">H", body, len(body) - 2)
        if crc != crc16_ccitt(body[:-2]):
            return FrameError("CRC mismatch", raw, "crc")
        frame_type = _FRAME_TYPES.get(kind)
        if frame_type is None:
            return FrameError(f"unknown message type 0x{kind:02x}", raw, "unknown_type")
        payload = body[_HEAD.size : -2]
        if not _valid_payload(frame_type, payload):
            return FrameError(f"malformed {frame_type.name} payload", raw, "bad_payload")
        return Frame(session, seq, frame_type, payload)
