"""The headless simulated table: the real controller and journal, simulated staff and devices.

`simulate(path, settings, rounds=..., seed=...)` opens (or creates) the journal at `path`,
recovers from it (a round a crash interrupted comes back paused and goes to the simulated shift
manager), then plays `rounds` rounds with a seeded shuffled deck per round, a simulated clock
that never sleeps, a simulated camera when the table has one, and faults injected by rate.
This is the shell: it composes the journal (an adapter) with the controller (the core).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from os import PathLike

from studio.controller import TableController
from studio.errors import ConfigurationError
from studio.journal import Journal, RecordedTable, recover
from studio.journal.recorder import bind_settings
from studio.messages import TableSettings, parse_input
from studio.simulation.devices import SimulatedCamera, SimulatedClock, SimulatedShoe
from studio.simulation.faults import INCIDENT_OF, NO_FAULTS, FaultRates
from studio.simulation.table import (
    ManagerPolicy,
    SimulatedTable,
    SimulationSummary,
    card_faces,
)

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
"""When a new journal's simulated day begins."""
DOWNTIME = timedelta(minutes=1)
"""How long a simulated crash keeps the table down before the restart."""

__all__ = [
    "INCIDENT_OF",
    "START",
    "FaultRates",
    "ManagerPolicy",
    "SimulatedCamera",
    "SimulatedClock",
    "SimulatedShoe",
    "SimulatedTable",
    "SimulationSummary",
    "simulate",
]


def _used_cards(journal: Journal, game_number: str) -> set[str]:
    # Every card the round has seen, discarded ones included: drawing one again would be a
    # duplicate the simulation never meant to inject.
    used: set[str] = set()
    for record in journal.round_events(game_number):
        body = record.data()["body"]
        for value in (body.get("card"), body.get("previous"), *body.get("cards", ())):
            if isinstance(value, str):
                used.add(value)
    return used


RUN_META = "simulation"
"""The journal metadata key that says which simulation wrote a journal (its seed)."""


def _claim(journal: Journal, seed: int, *, append: bool) -> None:
    """Mark a new journal as this simulation's; refuse another run's unless `append`.

    The same seed may continue its own journal (a simulation killed and started again).
    Raises `ConfigurationError` naming the other run and the option that allows it.
    """
    mine = json.dumps({"seed": seed})
    stored = journal.meta(RUN_META)
    if journal.input_count and stored != mine and not append:
        other = "a live table or an unmarked run" if stored is None else f"simulation {stored}"
        raise ConfigurationError(
            f"{journal.path} holds {journal.input_count} inputs of another run ({other}): "
            "pass --append to add simulated rounds to it, or give a new --journal"
        )
    if stored is None and not journal.input_count:
        journal.set_meta(RUN_META, mine)


def simulate(
    path: str | PathLike[str],
    settings: TableSettings,
    *,
    rounds: int,
    seed: int,
    faults: FaultRates = NO_FAULTS,
    manager: ManagerPolicy = "resume",
    durable_events: bool = False,
    progress: Callable[[int, int], None] | None = None,
    append: bool = False,
) -> SimulationSummary:
    """Recover the journal at `path`, then play `rounds` rounds; return what happened.

    A new journal remembers `settings`; an existing one must have been written with the same.
    The seed and the journal's length seed the run, so a continued journal gets new cards.
    Each input commits with its events in one fsynced transaction, as in `studio run`;
    `durable_events` fsyncs the events a recovery stores too (see `studio.journal.store`).
    `progress(done, rounds)` hears of each round started (a progress bar). A journal that holds
    inputs of another run (a live table's, or a simulation with another seed) is continued only
    with `append`: simulated rounds in a table's record must be asked for.

    Raises `ConfigurationError` for settings that differ from the journal's, `JournalError` or
    `ReplayMismatchError` for a damaged journal, and `SimulationError` when the simulated staff
    meet something they cannot handle.
    """
    with Journal(path, durable_events=durable_events) as journal:
        _claim(journal, seed, append=append)
        settings = bind_settings(journal, settings)
        controller = TableController(settings)
        last = journal.last_input()
        start = START if last is None else parse_input(last.body).ts + DOWNTIME
        clock = SimulatedClock(start)
        report = recover(journal, controller, now=clock.now)
        sim = SimulatedTable(
            RecordedTable(journal, controller),
            controller.view,
            clock=clock,
            seed=f"{seed}:{journal.input_count}",
            faults=faults,
            manager=manager,
            camera=settings.camera,
            faces=card_faces(settings.rules().deals),
            camera_only=settings.card_source == "camera",
            new_deck_every_round=settings.new_deck_every_round,
        )
        sim.observe(report.restarted)
        if any(e.type == "round_paused" for e in report.restarted):
            sim.summary.injected["controller_restarted"] += 1
        snap = controller.view()
        if snap.phase != "idle" and snap.game_number is not None:
            sim.resume_deck(_used_cards(journal, snap.game_number))
        return sim.run(rounds, progress)
