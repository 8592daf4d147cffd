"""Shoe line captures: every byte of a real shoe's line with its time, written and played back.

A fault seen on the floor (a flaky cable's damaged frames, a shoe that resends oddly) is
captured once with `studio shoe record` and then replayed onto a pseudo-terminal as often as a
test needs, byte for byte and at the recorded pace. The shape follows python-can's logger and
player: `CaptureWriter` is the logger (a listener called with each chunk), `read_capture` the
log reader, and `paced` the player's clock (python-can's `MessageSync`), which yields each
record when its time has come.

The file is JSON lines. The first line is the header, `{"format": "studio-shoe-capture",
"version": 1, "url", "protocol", "baudrate", "started"}`; every other line is one chunk,
`{"t": SECONDS_SINCE_START, "dir": "rx"|"tx", "hex": "..."}`: `rx` came from the shoe, `tx`
went to it (the host's acknowledgements, kept so a reader of the file sees the conversation;
a replay sends only `rx`).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TextIO

from drivers.errors import DriverConfigurationError
from drivers.shoe.sim_line import SimLine
from studio.closing import Closing

FORMAT = "studio-shoe-capture"
VERSION = 1
Direction = Literal["rx", "tx"]


@dataclass(frozen=True, slots=True)
class CaptureHeader:
    """Where and how a capture was taken; `started` is its UTC start."""

    url: str
    protocol: str
    baudrate: int
    started: datetime


@dataclass(frozen=True, slots=True)
class CaptureRecord:
    """One chunk of the line: `t` seconds after the start, its direction and its bytes."""

    t: float
    direction: Direction
    data: bytes


class CaptureWriter(Closing):
    """Writes a capture to `path` as the line is read (context manager; `close()` idempotent).

    Call it with each chunk: `writer("rx", data, monotonic_time)`, from any thread (the reader
    writes what it reads, the consumer its acknowledgements). Every line is flushed as it is
    written, so a recorder that is killed keeps what it saw. Raises `DriverConfigurationError`
    when the file cannot be written.
    """

    def __init__(
        self, path: Path, header: CaptureHeader, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        try:
            self._out: TextIO | None = path.open("w", encoding="utf-8")
        except OSError as err:
            raise DriverConfigurationError(f"cannot write the capture {path}: {err}") from err
        self._start = clock()
        self._lock = threading.Lock()
        self.records = 0
        self._line(
            {
                "format": FORMAT,
                "version": VERSION,
                "url": header.url,
                "protocol": header.protocol,
                "baudrate": header.baudrate,
                "started": header.started.isoformat(),
            }
        )

    def __call__(self, direction: Direction, data: bytes, at: float) -> None:
        """Record `data` that went `direction` at monotonic time `at`."""
        if data:
            with self._lock:
                self._line({"t": round(at - self._start, 6), "dir": direction, "hex": data.hex()})
                self.records += 1

    def _line(self, obj: dict[str, object]) -> None:
        if self._out is not None:
            self._out.write(json.dumps(obj) + "\n")
            self._out.flush()

    def close(self) -> None:
        """Close the file; calling it again does nothing."""
        with self._lock:
            out, self._out = self._out, None
        if out is not None:
            out.close()


def read_capture(path: Path) -> tuple[CaptureHeader, list[CaptureRecord]]:
    """The header and records of the capture at `path`, in order.

    Raises `DriverConfigurationError` naming the line for a file that cannot be read, is not a
    capture of this version, or holds a malformed or out-of-order record.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise DriverConfigurationError(f"cannot read the capture {path}: {err}") from err
    try:
        head = json.loads(lines[0]) if lines else None
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file")
        if head.get("version") != VERSION:
            raise ValueError(f"version {head.get('version')!r}, this program reads {VERSION}")
        header = CaptureHeader(
            url=str(head["url"]),
            protocol=str(head["protocol"]),
            baudrate=int(head["baudrate"]),
            started=datetime.fromisoformat(str(head["started"])).astimezone(UTC),
        )
    except (ValueError, KeyError, TypeError) as err:
        raise DriverConfigurationError(f"{path}:1: {err}") from err
    records: list[CaptureRecord] = []
    for number, text in enumerate(lines[1:], start=2):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
            direction = obj["dir"]
            if direction not in ("rx", "tx"):
                raise ValueError(f"dir must be rx or tx, got {direction!r}")
            record = CaptureRecord(float(obj["t"]), direction, bytes.fromhex(obj["hex"]))
            if records and record.t < records[-1].t:
                raise ValueError(f"time {record.t} goes back before {records[-1].t}")
        except (ValueError, KeyError, TypeError) as err:
            raise DriverConfigurationError(f"{path}:{number}: {err}") from err
        records.append(record)
    return header, records


def paced(
    records: Iterable[CaptureRecord],
    *,
    speed: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], object] = time.sleep,
) -> Iterator[CaptureRecord]:
    """Yield each record when its time (divided by `speed`) has come since the first yield.

    The player's clock, as python-can's `MessageSync`: a slow consumer is not caught up by
    skipping, the next record is simply due at once.
    """
    start: float | None = None
    for record in records:
        if start is None:
            start = clock() - record.t / speed
        wait = start + record.t / speed - clock()
        if wait > 0:
            sleep(wait)
        yield record


def play(
    records: Iterable[CaptureRecord],
    line: SimLine,
    *,
    speed: float = 1.0,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Write every `rx` record's bytes onto `line` at its time; return the bytes it refused.

    While waiting, what the host writes (acknowledgements) is read and dropped: the replay is
    the shoe's side of the recorded conversation, exactly, whatever the host answers now.
    """

    def wait(seconds: float) -> None:
        end = clock() + seconds
        while (left := end - clock()) > 0:
            line.read(left)

    lost = 0
    shoe_side = (r for r in records if r.direction == "rx")
    for record in paced(shoe_side, speed=speed, clock=clock, sleep=wait):
        lost += len(record.data) - line.write(record.data)
    return lost
