"""`studio status [--table T] [--json] [--key KEYFILE]`: what a table is doing now.

Reads the table's `TableView` from its replay service (found the way every client finds it: the
run file of `studio run`, else the default endpoints). With the default key (the local observer)
or any key whose role may not read restricted events it gets the public view: every face-down
card shows as "face down", never its value; a shift manager's or settlement key gets the
restricted view. Prints phase, light, positions, paused with its incidents and what blocks a
resume, devices with their health and the age of the last event; or the view as one JSON object
with `--json`. A table whose journal cannot be written reads as paused, with a
`journal_unwritable` incident marked not journalled and what clears it. Exit status 0 running,
1 paused, 2 unreachable (or a bad key).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from studio.bus import defaults as bus
from studio.errors import BusError

if TYPE_CHECKING:
    from studio.messages.view import CardView, IncidentView, TableView

UNREACHABLE = 2
"""The exit status when no table answers."""

NOTHING_BLOCKS = (
    "nothing blocks it: a shift manager resumes (`studio command resume --key KEYFILE`)"
)
"""What a paused table with no resume blocker needs: a person's word all the same."""


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `status` command to the `studio` parser."""
    parser = subparsers.add_parser("status", help="show what a table is doing now")
    parser.add_argument("--table", help="the table id (default: the one `studio run` started)")
    parser.add_argument("--json", action="store_true", help="the table's view as JSON")
    parser.add_argument("--key", type=Path, help="NAME.key_secret (default: local observer)")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the table")
    parser.set_defaults(run=run)


def describe(view: TableView, now: datetime) -> str:
    """The view in words, one fact per line."""
    state = "PAUSED" if view.paused else "running"
    lines = [f"table {view.table} ({view.game}{' ' + view.variant if view.variant else ''})"]
    lines.append(f"state     {state}, phase {view.phase}, light {view.light or '-'}")
    lines.append(f"round     {view.game_number or '-'}, last event #{view.seq}")
    if view.now is not None:
        lines.append(f"last      {max(0.0, (now - view.now).total_seconds()):.1f} s ago")
    cards = " ".join(f"{c.position}={_card(c)}" for c in view.cards)
    lines.append(f"positions {cards or '-'}")
    if view.expecting:
        lines.append(f"expecting {view.expecting}")
    if view.window is not None:
        lines.append(f"window    {view.window.name}: {'/'.join(view.window.options)}")
    lines.extend(f"incident  {_incident(i)}" for i in view.incidents)
    lines.extend(f"to resume {blocker}" for blocker in view.resume_blockers)
    if view.paused and not view.resume_blockers:
        # Nothing blocks: the action that clears the pause is still a person's, and which.
        void = " or voids the round (`studio command void`)" if view.game_number else ""
        lines.append(f"to resume {NOTHING_BLOCKS}{void}")
    for device, health in sorted(view.devices.items()):
        lines.append(f"device    {device} {health}")
    return "\n".join(lines)


def _card(card: CardView) -> str:
    if card.code is not None:
        return card.code + ("" if card.confirmed else " (camera not yet)")
    return "unreadable" if card.face_up else "face down"


def _incident(incident: IncidentView) -> str:
    where = incident.position or incident.device or ""
    detail = f": {incident.detail}" if incident.detail else ""
    # The journal's own fault has no number until the journal can hold it.
    number = f"#{incident.incident}" if incident.journalled else "(not journalled)"
    return f"{number} {incident.kind}{' at ' + where if where else ''}{detail}"


def run(args: argparse.Namespace) -> int:
    """Print the table's view; return 0 running, 1 paused, 2 when no table answers.

    Raises KeyFileError (exit 2) for a bad key file.
    """
    # Imported here, not above: `studio status --help` need not load ZeroMQ and the messages.
    from studio.bus.keys import RESTRICTED_READERS, AllowList, KeyPair
    from studio.bus.replay import ReplayClient
    from studio.commands.locate import locate

    where = locate(args.table)
    keys = KeyPair.load(args.key or where.keys_dir / "observer.key_secret")
    keys.require_secret()
    server = KeyPair.load(where.server_key).public
    allow = Path(where.server_key).parent / bus.ALLOW_LIST_NAME
    entry = AllowList(allow).lookup(keys.public) if allow.exists() else None
    audience = "restricted" if entry is not None and entry.role in RESTRICTED_READERS else "public"
    try:
        with ReplayClient(
            where.replay, client_keys=keys, server_key=server, timeout=args.timeout
        ) as client:
            view = client.view(audience=audience)
    except BusError as err:
        print(f"studio status: table {where.table} at {where.replay} unreachable: {err}")
        return UNREACHABLE
    if args.json:
        print(view.model_dump_json())
    else:
        print(describe(view, datetime.now(UTC)))
    return 1 if view.paused else 0
