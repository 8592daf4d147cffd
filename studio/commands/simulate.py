"""`studio simulate`: play rounds headless through the real controller and journal.

    studio simulate --game caribbean-stud|ultimate-holdem [--variant V] --rounds N --seed S
        --journal PATH [--faults duplicate=0.02,unreadable=0.02,out-of-turn=0.01,...]
        [--manager resume|void] [--no-camera | --card-source shoe|camera] [--append] [--json]

A simulated dealer, shoe and camera feed the inputs on a simulated clock (no sleeping), the
simulated shift manager answers every incident as told, and every input is durably journalled
before it applies. `--card-source camera` simulates a camera-only table: the dealer lays the
cards by hand and the camera alone reports them. An existing journal is recovered first; one
that another run wrote (a live table's, or a simulation with another seed) is refused unless
`--append` says to add simulated rounds to it. Long runs show progress on stderr.
Prints a one-line summary, or with `--json` one object {"rounds_completed", "rounds_voided",
"incidents": {kind: count}, "events"}.
Exit status 1 when an injected fault did not produce its incident or an incident came from
nowhere; 2 (through `studio.cli`) for bad arguments or a damaged journal.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, get_args

from studio.errors import ConfigurationError, InputError
from studio.terms import GAME_NAMES, PROCEDURES, CardSourceName

if TYPE_CHECKING:
    from studio.simulation import FaultRates


def _faults(text: str) -> FaultRates:
    # Imported here, as in `run`: `studio simulate --help` need not build the controller.
    from studio.simulation import FaultRates

    try:
        return FaultRates.parse(text)
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err)) from err


def register(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add the `simulate` command to the `studio` parser."""
    parser = subparsers.add_parser(
        "simulate", help="play rounds headless with a simulated dealer, shoe and camera"
    )
    parser.add_argument("--game", required=True, choices=GAME_NAMES)
    parser.add_argument("--variant", default="live", help="the game's variant (default: live)")
    parser.add_argument(
        "--procedure", choices=PROCEDURES, help="Caribbean Stud's dealing procedure"
    )
    parser.add_argument("--rounds", required=True, type=int, metavar="N")
    parser.add_argument("--seed", required=True, type=int, metavar="S")
    parser.add_argument("--journal", required=True, metavar="PATH", help="the journal file")
    parser.add_argument(
        "--faults",
        type=_faults,
        default="",
        metavar="KIND=RATE,...",
        help="duplicate, unreadable, out-of-turn, mismatch, device (default: none)",
    )
    parser.add_argument("--manager", choices=("resume", "void"), default="resume")
    parser.add_argument(
        "--no-camera", dest="camera", action="store_false", help="simulate a table without camera"
    )
    parser.add_argument(
        "--card-source",
        choices=get_args(CardSourceName),
        default="shoe",
        help="where cards come from: the shoe (default) or the camera alone (camera-only)",
    )
    parser.add_argument(
        "--append",
        action="store_true",
        help="add rounds to a journal another run wrote (a live table's, another seed's)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Simulate; print the summary; return 0, or 1 when faults and incidents disagree.

    Raises `ConfigurationError` for a bad game setting and `JournalError` for a damaged journal.
    """
    # Imported here: `studio simulate --help` need not build the message models and controller.
    from pydantic import ValidationError

    from studio.commands.progress import ProgressReport
    from studio.messages import TableSettings
    from studio.simulation import simulate

    if args.rounds < 0:
        raise ConfigurationError(f"--rounds must not be negative, got {args.rounds}")
    try:
        settings = TableSettings(
            game=args.game,
            variant=args.variant,
            procedure=args.procedure,
            camera=args.camera,
            card_source=args.card_source,
        )
    except ValidationError as err:
        first = err.errors()[0]
        # The settings' own checks read best in their own words, without pydantic's prefix.
        cause = first.get("ctx", {}).get("error") if first["type"] == "value_error" else None
        raise ConfigurationError(str(cause) if cause is not None else first["msg"]) from err
    with ProgressReport("simulate", unit="rounds") as progress:
        summary = simulate(
            args.journal,
            settings,
            rounds=args.rounds,
            seed=args.seed,
            faults=args.faults,
            manager=args.manager,
            progress=progress,
            append=args.append,
        )
    print(json.dumps(summary.to_json()) if args.json else summary.text())
    if summary.injected != summary.incidents:
        print(
            f"studio simulate: injected faults {dict(summary.injected)} but incidents "
            f"{dict(summary.incidents)}",
            file=sys.stderr,
        )
        return 1
    return 0
