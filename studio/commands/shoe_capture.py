"""`studio shoe record` and `studio shoe replay`: capture a shoe's line, play it back on a pty.

- `record URL --protocol P --out FILE [--count N] [--timeout S] [--json]` reads the shoe as
  `monitor` does (acknowledging frames, so the shoe behaves as with a table) and writes every
  byte both ways with its time to FILE (`drivers.shoe.capture`), printing each reading as
  `monitor` prints it. It ends after N cards (0) or S seconds (1), or at Ctrl-C (0).
- `replay FILE --pty PATH [--speed X] [--start-delay-ms MS]` creates a pseudo-terminal linked
  at PATH, prints `ready pty=PATH`, waits MS milliseconds (for a reader to open it: a reader
  opening the line later drops what was written before), then writes the shoe's recorded bytes
  at the recorded pace (X times faster with `--speed`), and exits 0 (1 if the line refused
  bytes). A table, `studio shoe monitor` or a test then reads the floor's bytes as they came.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from studio.errors import StudioError

if TYPE_CHECKING:
    from drivers.shoe.sim_line import PtyLine


def add_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], protocols: tuple[str, ...]
) -> None:
    """Add `record` and `replay` to the `studio shoe` subcommands."""
    rec = sub.add_parser("record", help="read a shoe and capture its line's bytes with times")
    rec.add_argument("url", metavar="URL", help="device path or pyserial URL")
    rec.add_argument("--protocol", required=True, choices=protocols)
    rec.add_argument("--out", type=Path, required=True, metavar="FILE")
    rec.add_argument("--baudrate", type=int, default=9600)
    rec.add_argument("--json", action="store_true", help="print readings as JSON objects")
    rec.add_argument("--count", type=int, metavar="N", help="stop after N cards")
    rec.add_argument("--timeout", type=float, metavar="SECONDS", help="stop after this long")
    rec.set_defaults(run=run_record)

    rep = sub.add_parser("replay", help="play a capture's shoe bytes onto a pty, at its pace")
    rep.add_argument("capture", type=Path, metavar="FILE")
    rep.add_argument("--pty", type=Path, required=True, metavar="PATH")
    rep.add_argument("--speed", type=float, default=1.0, help="times faster than recorded")
    rep.add_argument("--start-delay-ms", type=float, default=0.0, metavar="MS")
    rep.set_defaults(run=run_replay)


def _stop_politely(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_record(args: argparse.Namespace) -> int:
    """Capture until N cards or the timeout; return 0 (N cards, Ctrl-C) or 1 (timeout)."""
    # Imported here, as in `run_replay`: `studio shoe --help` need not load the serial driver.
    from drivers.errors import DriverError
    from drivers.shoe.capture import CaptureHeader, CaptureWriter
    from drivers.shoe.readings import CardRead
    from drivers.shoe.serial_shoe import SerialShoe
    from studio.commands.shoe_jobs import reading_json, reading_text

    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout >= 0):
        raise StudioError(f"--timeout must be a number of seconds, got {args.timeout}")
    signal.signal(signal.SIGTERM, _stop_politely)
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    header = CaptureHeader(args.url, args.protocol, args.baudrate, datetime.now(UTC))
    cards = 0
    try:
        with (
            CaptureWriter(args.out, header) as writer,
            SerialShoe(args.url, args.protocol, baudrate=args.baudrate, tap=writer) as shoe,
        ):
            try:
                while args.count is None or cards < args.count:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return 1
                    delivery = shoe.read(timeout=0.2 if left is None else min(left, 0.2))
                    if delivery is None:
                        continue
                    # The shoe forgets a card only once it is acknowledged: as the table does.
                    shoe.commit(delivery)
                    cards += isinstance(delivery.item, CardRead)
                    data = reading_json(delivery)
                    print(json.dumps(data) if args.json else reading_text(delivery), flush=True)
            except KeyboardInterrupt:
                pass
    except DriverError as err:
        raise StudioError(str(err)) from err
    return 0


DRAINED = 0.5
"""Seconds the pty's input queue must stay empty before the replay closes it."""


def _let_the_reader_finish(line: PtyLine, limit: float = 5.0) -> None:
    """Wait until the reader has taken the last bytes (at most `limit` seconds).

    The kernel moves a pty's bytes to the reader's queue in the background, so one empty look
    right after a write proves nothing: the queue must stay empty for `DRAINED` seconds.
    """
    deadline = time.monotonic() + limit
    empty_since: float | None = None
    while (now := time.monotonic()) < deadline:
        if line.backlog():
            empty_since = None
        elif empty_since is None:
            empty_since = now
        elif now - empty_since >= DRAINED:
            return
        time.sleep(0.01)


def run_replay(args: argparse.Namespace) -> int:
    """Play the capture onto a new pty; return 0, or 1 when the line refused bytes."""
    if not (math.isfinite(args.speed) and args.speed > 0):
        raise StudioError(f"--speed must be a positive number, got {args.speed}")
    if not (math.isfinite(args.start_delay_ms) and args.start_delay_ms >= 0):
        raise StudioError(f"--start-delay-ms must be 0 or more, got {args.start_delay_ms}")
    from drivers.errors import DriverError
    from drivers.shoe.capture import play, read_capture
    from drivers.shoe.sim_line import PtyLine

    signal.signal(signal.SIGTERM, _stop_politely)
    try:
        header, records = read_capture(args.capture)
        line = PtyLine(args.pty)
    except DriverError as err:
        raise StudioError(str(err)) from err
    try:
        print(f"ready pty={line.address}", flush=True)
        time.sleep(args.start_delay_ms / 1000)
        lost = play(records, line, speed=args.speed)
        _let_the_reader_finish(line)
    except KeyboardInterrupt:
        return 0
    finally:
        line.close()
    rx = sum(len(r.data) for r in records if r.direction == "rx")
    print(f"replayed {rx} bytes of {header.protocol} shoe {header.url}, {lost} refused")
    return 1 if lost else 0
