"""`studio shoe`: simulate, watch, list ports, register a deck, capture and replay a line.

- `simulate --protocol barcode|framed (--pty PATH | --listen HOST:PORT) [--cards N]
  [--interval-ms MS] [--start-delay-ms MS] [--seed S] [--faults NAME=RATE,...] [--log FILE]`
  creates the pty (a symlink at PATH) or listens, prints one `ready pty=PATH` or
  `ready listen=HOST:PORT` line on stdout, waits for a host (when listening) and the start
  delay, deals N cards one per interval
  (a fresh shuffled deck after every 52), and exits once the last card is acknowledged (status 0)
  or given up (status 1). `--log` writes one JSON line per card dealt, in dealing order.
- `monitor URL --protocol barcode|framed [--json] [--count N]` opens any pyserial URL or device
  path as the host, prints one line per decoded message (with `--json` one object, with "card"
  for a card drawn) and exits after N cards (status 0) or when `--timeout` passes first (status 1).
- `list [--json]` prints every serial port with its USB identity (vendor:product, serial
  number, maker): what `[shoe] usb_vendor`, `usb_product` and `usb_serial` pin.
- `enroll URL --out FILE` reads one whole deck (52 cards) from a smart shoe that names its cards,
  optionally checking them against `--order`, and writes the tag -> card registration file.

- `record` and `replay` capture a real shoe's line and play it back onto a pty
  (`studio.commands.shoe_capture`).

Configuration mistakes end as one line on stderr with status 2, like every `studio` command.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import signal
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from drivers.errors import DriverError, ProtocolError
from drivers.shoe.deck import BarcodeTable, DeckRegistration
from drivers.shoe.host import PROTOCOLS, ProtocolOptions
from drivers.shoe.identity import ports
from drivers.shoe.readings import (
    CardRead,
    CardUnreadable,
    Delivery,
    ShoeFault,
    ShoeRecovered,
    ShoeReset,
    ShoeStatus,
)
from drivers.shoe.serial_shoe import SerialShoe
from drivers.shoe.simulator import FaultRates, SimulatedShoe
from studio.cards import DECK, Card, parse_cards
from studio.commands import shoe_capture
from studio.errors import StudioError

PROTOCOL_NAMES = tuple(sorted(PROTOCOLS))
"""The `--protocol` choices: the drivers' registry of shoe protocols."""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `shoe` command and its subcommands (simulate, monitor, enroll, record, replay)."""
    parser = subparsers.add_parser(
        "shoe",
        help="simulate, monitor or enroll a card shoe",
        description="Run a simulated shoe on a pty or TCP port, monitor any shoe line, or "
        "register an RFID deck.",
    )
    sub = parser.add_subparsers(dest="shoe_command", required=True, metavar="SUBCOMMAND")

    sim = sub.add_parser("simulate", help="deal from a simulated shoe on a pty or TCP port")
    sim.add_argument("--protocol", required=True, choices=PROTOCOL_NAMES)
    where = sim.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", type=Path, metavar="PATH", help="symlink to create for the pty")
    where.add_argument("--listen", metavar="HOST:PORT", help="TCP address to serve (port 0: any)")
    sim.add_argument("--cards", type=int, default=52, metavar="N")
    sim.add_argument("--interval-ms", type=float, default=500.0, metavar="MS")
    sim.add_argument("--start-delay-ms", type=float, default=0.0, metavar="MS")
    sim.add_argument("--seed", type=int, default=1, metavar="S")
    sim.add_argument("--faults", default="", metavar="NAME=RATE,...")
    sim.add_argument("--log", type=Path, metavar="FILE", help="one JSON line per card dealt")
    sim.add_argument("--barcode-table", default="cards", metavar="TABLE")
    sim.add_argument("--deck-id", type=int, default=1, metavar="ID", help="simulated RFID deck")
    sim.set_defaults(run=run_simulate)

    mon = sub.add_parser("monitor", help="print every message a shoe line delivers")
    mon.add_argument("url", metavar="URL", help="device path or pyserial URL")
    mon.add_argument("--protocol", required=True, choices=PROTOCOL_NAMES)
    mon.add_argument("--json", action="store_true", help="one JSON object per line")
    mon.add_argument("--count", type=int, metavar="N", help="exit after N cards")
    mon.add_argument("--timeout", type=float, metavar="SECONDS", help="give up after this long")
    mon.add_argument("--barcode-table", default="cards", metavar="TABLE")
    mon.add_argument("--deck", type=Path, metavar="FILE", help="RFID deck registration file")
    mon.add_argument("--trace", action="store_true", help="log raw bytes (with -v)")
    mon.set_defaults(run=run_monitor)

    enr = sub.add_parser("enroll", help="register the RFID tags of one deck")
    enr.add_argument("url", metavar="URL", help="device path or pyserial URL")
    enr.add_argument("--out", type=Path, required=True, metavar="FILE")
    enr.add_argument("--deck-id", default="deck-1", metavar="ID")
    enr.add_argument("--order", metavar="CODES", help="the cards in the order they are drawn")
    enr.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS")
    enr.set_defaults(run=run_enroll)

    lst = sub.add_parser("list", help="show the serial ports and their USB identities")
    lst.add_argument("--json", action="store_true", help="one JSON object per port")
    lst.set_defaults(run=run_list)
    shoe_capture.add_parsers(sub, PROTOCOL_NAMES)


def run_list(args: argparse.Namespace) -> int:
    """Print each serial port with its identity (what `[shoe] usb_*` can pin); return 0."""
    found = ports()
    for port in found:
        if args.json:
            print(json.dumps(dataclasses.asdict(port)))
        else:
            print(port.describe())
    if not found and not args.json:
        print("no serial ports found")
    return 0


def _fail(args: argparse.Namespace, err: DriverError) -> int:
    print(f"studio shoe {args.shoe_command}: {err}", file=sys.stderr)
    return 2


def _terminate_politely(signum: int, frame: FrameType | None) -> None:
    # SIGTERM unwinds like Ctrl-C so devices close and the pty symlink is removed.
    raise KeyboardInterrupt


def _seconds(value: float) -> bool:
    """Whether `value` can be waited for: finite and not negative (select refuses nan)."""
    return math.isfinite(value) and value >= 0


def _check_timeout(args: argparse.Namespace) -> None:
    if args.timeout is not None and not _seconds(args.timeout):
        # A nan deadline is never reached: the command would wait forever.
        raise StudioError(f"--timeout must be a number of seconds, got {args.timeout}")


def run_simulate(args: argparse.Namespace) -> int:
    """Run the simulator until it has dealt `args.cards`; return 0, or 1 if any was given up."""
    signal.signal(signal.SIGTERM, _terminate_politely)
    if args.cards < 0 or not (_seconds(args.interval_ms) and _seconds(args.start_delay_ms)):
        raise StudioError(
            "--cards, --interval-ms and --start-delay-ms must be numbers, not negative"
        )
    try:
        faults = FaultRates.parse(args.faults)
        table = BarcodeTable.from_config(args.barcode_table)
        line = f"pty:{args.pty}" if args.pty is not None else f"tcp:{args.listen}"
        with ExitStack() as stack:
            log = stack.enter_context(_open_log(args.log)) if args.log is not None else None
            shoe = stack.enter_context(
                SimulatedShoe(
                    line,
                    args.protocol,
                    cards=args.cards,
                    interval=args.interval_ms / 1000,
                    start_delay=args.start_delay_ms / 1000,
                    seed=args.seed,
                    faults=faults,
                    log_to=log,
                    table=table,
                    deck_id=args.deck_id,
                )
            )
            kind = "pty" if args.pty is not None else "listen"
            print(f"ready {kind}={shoe.line.address}", flush=True)
            given_up = shoe.run()
    except DriverError as err:
        return _fail(args, err)
    print(f"dealt {shoe.dealt} cards, {given_up} given up", file=sys.stderr)
    return 1 if given_up else 0


def _open_log(path: Path) -> TextIO:
    try:
        return path.open("w", encoding="utf-8")
    except OSError as err:
        raise StudioError(f"cannot write the log {path}: {err}") from err


def reading_json(delivery: Delivery) -> dict[str, Any]:
    """The JSON object `monitor --json` prints for one delivery (`kind` says which)."""
    item = delivery.item
    out: dict[str, Any] = {"ts": delivery.ts.isoformat()}
    if isinstance(item, CardRead):
        out |= {"kind": "card", "card": item.card.code, "tag": item.tag, "seq": item.seq}
    elif isinstance(item, CardUnreadable):
        out |= {"kind": "unreadable", "seq": item.seq, "raw": item.raw.hex()}
    elif isinstance(item, ShoeStatus):
        out |= {"kind": "status", "flags": sorted(f.value for f in item.flags), "seq": item.seq}
    elif isinstance(item, ShoeReset):
        out |= {"kind": "reset", "seq": item.seq}
    elif isinstance(item, ShoeFault):
        out |= {"kind": "fault", "reason": item.reason.value, "detail": item.detail}
    elif isinstance(item, ShoeRecovered):
        out |= {"kind": "recovered", "detail": item.detail}
    else:
        raw = item.raw.hex() if isinstance(item, ProtocolError) else ""
        out |= {"kind": "error", "error": type(item).__name__, "message": str(item), "raw": raw}
    return out


def reading_text(delivery: Delivery) -> str:
    """The plain line `monitor` prints for one delivery."""
    data = reading_json(delivery)
    kind = data.pop("kind")
    data.pop("ts")
    if kind == "card":
        return f"card {data['card']} tag={data['tag']} seq={data['seq']}"
    return " ".join([kind, *(f"{k}={v}" for k, v in data.items() if v not in (None, ""))])


def _options(args: argparse.Namespace) -> ProtocolOptions:
    registration = DeckRegistration.load(args.deck) if args.deck is not None else None
    return ProtocolOptions(
        barcode_table=BarcodeTable.from_config(args.barcode_table), registration=registration
    )


def run_monitor(args: argparse.Namespace) -> int:
    """Print deliveries until `args.count` cards were read (0) or `args.timeout` passed (1)."""
    signal.signal(signal.SIGTERM, _terminate_politely)
    _check_timeout(args)
    deadline = None if args.timeout is None else time.monotonic() + args.timeout
    cards = 0
    try:
        with SerialShoe(args.url, args.protocol, options=_options(args), trace=args.trace) as shoe:
            while args.count is None or cards < args.count:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return 1
                delivery = shoe.read(timeout=0.2 if left is None else min(left, 0.2))
                if delivery is None:
                    continue
                cards += isinstance(delivery.item, CardRead)
                line = json.dumps(reading_json(delivery)) if args.json else reading_text(delivery)
                print(line, flush=True)
    except DriverError as err:
        return _fail(args, err)
    return 0


def run_enroll(args: argparse.Namespace) -> int:
    """Read one deck from the shoe and write its registration; return 0, or 2 on a bad deck."""
    order = parse_cards(args.order) if args.order else None
    if order is not None and len(order) != len(DECK):
        raise StudioError(f"--order names {len(order)} cards, a deck has {len(DECK)}")
    _check_timeout(args)
    if not args.out.parent.is_dir():
        # Found out only after a dealer has run 52 cards through the shoe, it costs a deck.
        raise StudioError(f"--out {args.out}: no directory {args.out.parent}")
    tags: dict[str, Card] = {}
    deadline = time.monotonic() + args.timeout
    try:
        with SerialShoe(args.url, "framed") as shoe:
            while len(tags) < len(DECK):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StudioError(f"only {len(tags)} of {len(DECK)} cards read in time")
                delivery = shoe.read(timeout=min(left, 0.2))
                if delivery is None or not isinstance(delivery.item, CardRead):
                    if delivery is not None and isinstance(delivery.item, ProtocolError):
                        print(f"ignored: {delivery.item}", file=sys.stderr)
                    continue
                _enroll_one(delivery.item, tags, order)
        DeckRegistration(deck_id=args.deck_id, tags=tags).save(args.out)
    except DriverError as err:
        return _fail(args, err)
    print(f"enrolled {len(tags)} tags of deck {args.deck_id} into {args.out}")
    return 0


def _enroll_one(read: CardRead, tags: dict[str, Card], order: tuple[Card, ...] | None) -> None:
    if read.tag is None:
        raise StudioError("the shoe sent a card without a tag")
    expected = None if order is None else order[len(tags)]
    if expected is not None and read.card != expected:
        raise StudioError(f"card {len(tags) + 1} is {read.card}, --order says {expected}")
    if read.tag in tags:
        raise StudioError(f"tag {read.tag} was read twice ({tags[read.tag]} and {read.card})")
    if read.card in tags.values():
        raise StudioError(f"card {read.card} was read under two tags")
    tags[read.tag] = read.card
