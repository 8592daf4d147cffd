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
from pathlib import Path
from typing import Any

from drivers.shoe.protocol_names import PROTOCOL_NAMES
from studio.commands import shoe_capture


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


# Each action's work is imported when it runs: `studio shoe --help` need not load the codecs,
# pydantic and pyserial.


def run_list(args: argparse.Namespace) -> int:
    """List the serial ports (`studio.commands.shoe_jobs.list_ports`)."""
    from studio.commands.shoe_jobs import list_ports

    return list_ports(args)


def run_simulate(args: argparse.Namespace) -> int:
    """Deal from a simulated shoe (`studio.commands.shoe_jobs.simulate_shoe`)."""
    from studio.commands.shoe_jobs import simulate_shoe

    return simulate_shoe(args)


def run_monitor(args: argparse.Namespace) -> int:
    """Print what a shoe line delivers (`studio.commands.shoe_jobs.monitor`)."""
    from studio.commands.shoe_jobs import monitor

    return monitor(args)


def run_enroll(args: argparse.Namespace) -> int:
    """Register one deck's RFID tags (`studio.commands.shoe_jobs.enroll`)."""
    from studio.commands.shoe_jobs import enroll

    return enroll(args)
