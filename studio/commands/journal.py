"""`studio journal verify PATH`: check a journal's hash chain, then replay it.

Exit status 0 with a one-line `OK: ...` summary when every record checks out, 1 with a `BAD: ...`
line naming the first bad record when anything was edited, inserted or deleted, and 2 (through
`studio.cli`) when the file is missing or is not a readable journal. A journal that holds table
settings is also replayed through a fresh controller (nothing is written): every stored event
must equal the event its input rebuilds, which catches a forger who rewrote every hash after a
change. `--no-replay` checks the chain only. `--anchors FILE` also holds the journal to the
signed checkpoints a consumer kept (`studio journal anchors`): whole trailing rounds deleted, which
no check inside the file can see, show as records missing (exit 1).

`--json` prints one object instead of the lines, with the same exit status: `{"path", "ok",
"records", "inputs", "events", "rounds", "head", "problem", "bad_record", "unstored_events",
"anchors_checked"}` (`problem` and `bad_record` null when sound; `unstored_events` the last input's
events a crash or a live table left unstored, which recovery stores; `anchors_checked` the number
of kept checkpoints that match, null without `--anchors`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from studio.commands import anchors as anchors_command
from studio.errors import JournalError


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `journal` command and its `verify` action to the `studio` parser."""
    parser = subparsers.add_parser("journal", help="inspect a table's journal")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "verify", help="check the hash chain and replay it; exit 1 naming the first bad record"
    )
    check.add_argument("path", metavar="PATH", help="the journal file")
    check.add_argument(
        "--no-replay",
        dest="replay",
        action="store_false",
        help="check the chain only; do not replay the inputs through a controller",
    )
    check.add_argument(
        "--anchors",
        type=Path,
        metavar="FILE",
        help="signed checkpoints kept elsewhere (studio journal anchors): detects deleted rounds",
    )
    check.add_argument(
        "--signing-key", metavar="HEX", help="the table's checkpoint key (its table.sign file)"
    )
    check.add_argument("--json", action="store_true", help="print the verdict as one JSON object")
    check.set_defaults(run=run_verify)
    anchors_command.register(actions)


def run_verify(args: argparse.Namespace) -> int:
    """Verify the journal at `args.path`; print one line; return 0 (sound) or 1 (damaged).

    Raises `JournalError` (exit status 2) for a missing or unreadable file.
    """
    # Imported here, not above: `studio journal --help` need not load the controller.
    from studio.controller import TableController
    from studio.journal import Journal, verify
    from studio.journal.anchors import check_anchors, read_anchors
    from studio.journal.recorder import bind_settings, replay

    with Journal(args.path, readonly=True) as journal:
        report = verify(journal)
        problem = report.problem
        pending = 0
        if problem is None and getattr(args, "replay", True) and journal.meta("settings"):
            try:
                controller = TableController(bind_settings(journal, None))
                pending = len(replay(journal, controller)[1])
            except JournalError as err:  # ReplayMismatchError too
                problem = f"replay: {str(err).removeprefix(f'{journal.path}: ')}"
        anchored = None
        if problem is None and getattr(args, "anchors", None) is not None:
            settings = journal.meta("settings")
            table = bind_settings(journal, None).table if settings else None
            held = check_anchors(journal, read_anchors(args.anchors), table, args.signing_key)
            problem = None if held.problem is None else f"anchors: {held.problem}"
            anchored = held.checked
    if getattr(args, "json", False):
        bad = report.bad_record if report.problem is not None else None
        verdict = {
            "path": str(args.path),
            "ok": problem is None,
            "records": report.records,
            "inputs": report.inputs,
            "events": report.events,
            "rounds": report.rounds,
            "head": report.head,
            "problem": problem,
            "bad_record": bad,
            "unstored_events": pending,
            "anchors_checked": anchored,
        }
        print(json.dumps(verdict))
        return 0 if problem is None else 1
    if problem is not None:
        print(f"{args.path}: BAD: {problem}")
        return 1
    print(f"{args.path}: {report.summary()}")
    if anchored is not None:
        print(f"{args.path}: {anchored} checkpoint(s) kept elsewhere match the journal")
    if pending:
        print(
            f"{args.path}: note: the last input's {pending} events are not stored (a crash, or "
            "a live table between two writes); recovery stores them"
        )
    return 0
