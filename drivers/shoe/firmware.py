"""The shoe's side of the framed protocol, sans-I/O: a byte-level model of smart-shoe firmware.

The simulator drives it; it numbers event frames, keeps each until it is acknowledged, resends
every unacknowledged frame in order (go-back-N) when a NAK asks or when its retransmission timer
runs out (doubling from `ack_timeout` up to one second), gives a frame up after `give_up_after`
seconds, and sends a heartbeat every `heartbeat_interval`. Time is an argument.
"""

from __future__ import annotations

import struct
from collections import OrderedDict
from dataclasses import dataclass

from drivers.errors import FrameError
from drivers.shoe.framed import Frame, FrameCodec, FrameType, encode_frame, reset_payload
from drivers.shoe.host import HEARTBEAT_INTERVAL
from drivers.shoe.readings import StatusFlag, flags_to_byte

FIRMWARE_VERSION = 1
MAX_RETRANSMIT_GAP = 1.0
"""Longest wait between two retransmissions of the same frame, in seconds."""


@dataclass(slots=True)
class _Pending:
    wire: bytes
    first_sent: float
    last_sent: float
    tries: int


class ShoeSession:
    """Event numbering, retransmission and heartbeats of one smart shoe."""

    def __init__(
        self,
        *,
        heartbeat_interval: float = HEARTBEAT_INTERVAL,
        ack_timeout: float = 0.15,
        give_up_after: float = 10.0,
        first_seq: int = 1,
        session: int = 1,
        identity: str = "",
    ) -> None:
        """Configure the timers (seconds); the first event frame gets `first_seq`.

        `session` (1..65535) must differ from the previous start's: real firmware draws it at
        random at power-up.
        """
        self.session = session & 0xFFFF
        self.identity = identity
        self.heartbeat_interval = heartbeat_interval
        self.ack_timeout = ack_timeout
        self.give_up_after = give_up_after
        self.next_seq = first_seq & 0xFFFF
        self.flags: frozenset[StatusFlag] = frozenset()
        self.heartbeats = True
        self.retransmissions = 0
        self.given_up: list[int] = []
        self.acked_through: int | None = None
        self._pending: OrderedDict[int, _Pending] = OrderedDict()
        self._codec = FrameCodec()
        self._last_heartbeat: float | None = None
        self.errors: list[FrameError] = []

    @property
    def pending(self) -> int:
        """How many event frames wait for an acknowledgement."""
        return len(self._pending)

    def is_pending(self, seq: int) -> bool:
        """Whether event frame `seq` still waits for an acknowledgement."""
        return seq in self._pending

    def event(self, kind: FrameType, payload: bytes, now: float) -> tuple[int, bytes]:
        """Number a new event frame, keep it until acknowledged; return its seq and wire bytes."""
        seq = self.next_seq
        self.next_seq = (seq + 1) & 0xFFFF
        wire = encode_frame(Frame(self.session, seq, kind, payload))
        self._pending[seq] = _Pending(wire, now, now, 0)
        return seq, wire

    def card(self, tag: bytes, index: int, now: float) -> tuple[int, bytes]:
        """Event frame for a card drawn with RFID `tag` and card index (0xFF: unknown)."""
        return self.event(FrameType.CARD_DRAWN, bytes((len(tag),)) + tag + bytes((index,)), now)

    def unreadable(self, tag: bytes, now: float) -> tuple[int, bytes]:
        """Event frame for a card drawn whose tag could not be read (`tag` may be empty)."""
        return self.event(FrameType.CARD_UNREADABLE, bytes((len(tag),)) + tag, now)

    def status(self, flags: frozenset[StatusFlag], now: float) -> tuple[int, bytes]:
        """Event frame reporting the status flags (and remember them for heartbeats)."""
        self.flags = flags
        return self.event(FrameType.STATUS, bytes((flags_to_byte(flags),)), now)

    def reset(self, now: float) -> tuple[int, bytes]:
        """Event frame announcing a (re)start: the host numbers afresh from it."""
        return self.event(FrameType.RESET, reset_payload(FIRMWARE_VERSION, self.identity), now)

    def receive(self, data: bytes, now: float) -> bytes:
        """Consume bytes from the host (ACK, NAK); return frames to resend at once."""
        out = bytearray()
        for item in self._codec.feed(data):
            if isinstance(item, FrameError):
                self.errors.append(item)
                continue
            if item.type not in (FrameType.ACK, FrameType.NAK) or item.session != self.session:
                continue
            (seq,) = struct.unpack(">H", item.payload)
            if item.type is FrameType.ACK:
                self._acknowledge(seq)
            else:
                self._acknowledge((seq - 1) & 0xFFFF)
                out += self._resend(now)
        return bytes(out)

    def poll(self, now: float) -> bytes:
        """Let time pass: heartbeats, retransmissions and give-ups; return bytes to send."""
        out = bytearray()
        for seq, pending in list(self._pending.items()):
            if now - pending.first_sent > self.give_up_after:
                del self._pending[seq]
                self.given_up.append(seq)
        if self._pending:
            oldest = next(iter(self._pending.values()))
            wait = min(self.ack_timeout * (2**oldest.tries), MAX_RETRANSMIT_GAP)
            if now - oldest.last_sent >= wait:
                out += self._resend(now)
        due = self._last_heartbeat is None or now - self._last_heartbeat >= self.heartbeat_interval
        if self.heartbeats and due:
            self._last_heartbeat = now
            latest = (self.next_seq - 1) & 0xFFFF
            first = next(iter(self._pending)) if self._pending else self.next_seq
            payload = struct.pack(">BHH", flags_to_byte(self.flags), first, latest)
            out += encode_frame(Frame(self.session, 0, FrameType.HEARTBEAT, payload))
        return bytes(out)

    def _acknowledge(self, through: int) -> None:
        for seq in list(self._pending):
            if (through - seq) & 0xFFFF < 0x8000:
                del self._pending[seq]
        self.acked_through = through

    def _resend(self, now: float) -> bytes:
        out = bytearray()
        for pending in self._pending.values():
            out += pending.wire
            pending.last_sent = now
            pending.tries += 1
            self.retransmissions += 1
        return bytes(out)
