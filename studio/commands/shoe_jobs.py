"""The work of `studio shoe`'s actions (simulate, monitor, list, enroll) and its reading lines.

Apart from `studio.commands.shoe` (the actions' options and contract), so that `--help` loads
neither the codecs nor pyserial. `reading_json` and `reading_text` are also what
`studio shoe record` prints.
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
from drivers.shoe.host import ProtocolOptions
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
from studio.errors import StudioError


def list_ports(args: argparse.Namespace) -> int:
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


def simulate_shoe(args: argparse.Namespace) -> int:
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


def monitor(args: argparse.Namespace) -> int:
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


def enroll(args: argparse.Namespace) -> int:
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
