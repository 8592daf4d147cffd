"""The headless simulated table: the real controller and journal, simulated staff and devices.

`simulate(path, settings, rounds=..., seed=...)` opens (or creates) the journal at `path`,
recovers from it (a round a crash interrupted comes back paused and goes to the simulated shift
manager), then plays `rounds` rounds with a seeded shuffled deck per round, a simulated clock
that never sleeps, a simulated camera when the table has one, and faults injected by rate.
This is the shell: it composes the journal (an adapter) with the controller (the core).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from os import PathLike

from studio.controller import TableController
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


def simulate(
    path: str | PathLike[str],
    settings: TableSettings,
    *,
    rounds: int,
    seed: int,
    faults: FaultRates = NO_FAULTS,
    manager: ManagerPolicy = "resume",
    durable_events: bool = False,
) -> SimulationSummary:
    """Recover the journal at `path`, then play `rounds` rounds; return what happened.

    A new journal remembers `settings`; an existing one must have been written with the same.
    The seed and the journal's length seed the run, so a continued journal gets new cards.
    `durable_events` makes every event batch fsync too (see `studio.journal.store`).

    Raises `ConfigurationError` for settings that differ from the journal's, `JournalError` or
    `ReplayMismatchError` for a damaged journal, and `SimulationError` when the simulated staff
    meet something they cannot handle.
    """
    with Journal(path, durable_events=durable_events) as journal:
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
        return sim.run(rounds)
