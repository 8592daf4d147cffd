"""The error tree of the `drivers` package, split by the phase in which a failure happens.

```
DriverError
├── DriverConfigurationError   a bad URL, protocol name, deck table or registration file
├── DriverConnectionError      the line cannot be opened, or vanished (unplugged, server closed)
├── ProtocolError              bytes that do not decode: never a card
│   ├── FrameError             framing, length or CRC failure of a smart-shoe frame
│   ├── LineError              an overlong or non-ASCII barcode line
│   └── UnknownCodeError       a well-formed code or RFID tag that the deck does not know
└── DeviceFaultError           the shoe itself reports or shows a fault (status bits, silence)
```

Decoders never raise these for bad input: they return them beside the readings, and the reader
puts them on its queue, so a garbled byte is reported and never lost in a thread. Everything a
user can cause through configuration raises `DriverConfigurationError` with one clear line.
"""

from __future__ import annotations

from typing import Literal


class DriverError(Exception):
    """Root of every error raised or reported by the drivers package."""


class DriverConfigurationError(DriverError, ValueError):
    """A driver's configuration (URL, protocol name, deck table, registration file) is invalid."""


class DriverConnectionError(DriverError, ConnectionError):
    """A device's line cannot be opened, or was lost while in use."""


class ProtocolError(DriverError):
    """Received bytes do not decode to a reading; `raw` keeps the offending bytes for reports."""

    def __init__(self, message: str, raw: bytes = b"") -> None:
        super().__init__(message)
        self.raw = raw

    def __eq__(self, other: object) -> bool:
        # Errors are compared by value so a decoder's output can be compared whole, split and
        # byte by byte in the property tests.
        return (
            type(other) is type(self)
            and isinstance(other, ProtocolError)
            and str(other) == str(self)
            and other.raw == self.raw
        )

    def __hash__(self) -> int:
        return hash((type(self), str(self), self.raw))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r}, raw={self.raw!r})"


DamageKind = Literal[
    "cut_short",
    "too_long",
    "outside_frame",
    "too_short",
    "bad_length",
    "crc",
    "unknown_type",
    "bad_payload",
    "unexpected_type",
    "malformed",
]
"""How a smart-shoe frame was damaged: what the reader counts, so a failing cable shows early."""


class FrameError(ProtocolError):
    """A smart-shoe frame is truncated, overlong, malformed or fails its CRC.

    `kind` names the damage for the reader's counters (`HostCounters.damaged`).
    """

    def __init__(self, message: str, raw: bytes = b"", kind: DamageKind = "malformed") -> None:
        super().__init__(message, raw)
        self.kind: DamageKind = kind


class LineError(ProtocolError):
    """A barcode line is overlong or holds bytes that are not printable ASCII."""


class UnknownCodeError(ProtocolError):
    """A well-formed barcode or RFID tag is not in the deck table or registration."""


class DeviceFaultError(DriverError):
    """The device reports a fault or stopped answering."""
