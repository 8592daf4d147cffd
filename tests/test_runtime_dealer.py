"""The simulated dealer of `studio run` carries out what a shift manager asks of the table."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from test_controller_kit import CONFIGS, FAST

from studio.cards import Card
from studio.config import DealerConfig
from studio.controller import TableController, TableSettings
from studio.messages import CardDrawn, Command, Envelope, Input, Tick
from studio.messages.view import TableView
from studio.runtime.dealer import SimulatedDealer

PATIENCE = 200
"""Looks (of `LOOK_EVERY`) a test waits for the dealer before it gives up."""


class ShoeTable:
    """A real controller behind the dealer's `Table` protocol; the shoe's line is the loop."""

    def __init__(self) -> None:
        self.controller = TableController(TableSettings(**{**FAST, **CONFIGS[0]}))
        self.events: list[Envelope] = []
        self.drawn = 0

    def view(self) -> TableView:
        return self.controller.view()

    def submit(self, inp: Input) -> list[Envelope]:
        out = self.controller.handle(inp)
        self.events.extend(out)
        if isinstance(inp, CardDrawn):
            self.drawn += 1
        return out

    @property
    def cards_drawn(self) -> int:
        return self.drawn

    @property
    def journal_writable(self) -> bool:
        return True

    async def card_drawn_after(self, count: int) -> None:
        while self.drawn <= count:
            await asyncio.sleep(0.005)

    def deal(self, card: Card) -> None:
        # The card comes back from the shoe on its line a moment later, as a real one would.
        asyncio.get_running_loop().call_soon(
            lambda: self.submit(CardDrawn(ts=datetime.now(UTC), card=card.code, raw="sim"))
        )

    def manager(self, command: str) -> list[Envelope]:
        return self.submit(
            Command(ts=datetime.now(UTC), actor="m3", role="shift_manager", command=command)
        )


async def until(table: ShoeTable, kind: str) -> list[Envelope]:
    for _ in range(PATIENCE):
        found = [e for e in table.events if e.type == kind]
        if found:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {kind} in {[e.type for e in table.events]}")


def test_the_simulated_dealer_redraws_the_cards_of_a_rescan() -> None:
    async def scenario() -> None:
        table = ShoeTable()
        table.submit(
            Command(ts=datetime.now(UTC), actor="d7", role="dealer", command="start_round")
        )
        # Betting closes on the table's clock: a tick past its deadline.
        table.submit(Tick(ts=datetime.now(UTC) + timedelta(seconds=10.5)))
        table.submit(CardDrawn(ts=datetime.now(UTC), card="2C", raw="sim"))
        table.submit(CardDrawn(ts=datetime.now(UTC), card="3D", raw="sim"))
        table.manager("call_manager")
        table.manager("rescan")
        dealer = SimulatedDealer(
            table,
            table.deal,
            DealerConfig(draw_seconds=0.0, manager="none"),
            seed=1,
            faces={},
            round_gap=0.0,
            camera=False,
            rounds=0,
        )
        task = asyncio.get_running_loop().create_task(dealer.run())
        try:
            finished = await until(table, "rescan_finished")
        finally:
            task.cancel()
        assert finished[0].body == {"matched": True, "detail": "every card matched its record"}
        rescanned = [e.body["read"] for e in table.events if e.type == "card_rescanned"]
        assert rescanned == ["2C", "3D"]
        assert table.view().resume_blockers == ()
        assert "round_resumed" in [e.type for e in table.manager("resume")]

    asyncio.run(scenario())


def test_the_simulated_manager_clears_what_blocks_a_resume_as_the_headless_one_does() -> None:
    # The same staff policy as `studio simulate`: a duplicate card pauses the round; the
    # simulated shift manager discards it and resumes, and the dealer then deals the round on.
    async def scenario() -> None:
        table = ShoeTable()
        table.submit(
            Command(ts=datetime.now(UTC), actor="d7", role="dealer", command="start_round")
        )
        table.submit(Tick(ts=datetime.now(UTC) + timedelta(seconds=10.5)))
        table.submit(CardDrawn(ts=datetime.now(UTC), card="2C", raw="sim"))
        table.submit(CardDrawn(ts=datetime.now(UTC), card="2C", raw="sim"))
        assert table.view().paused and table.view().resume_blockers
        dealer = SimulatedDealer(
            table,
            table.deal,
            DealerConfig(draw_seconds=0.0, manager="resume", manager_seconds=0.0),
            seed=1,
            faces={},
            round_gap=0.0,
            camera=False,
            rounds=0,
        )
        task = asyncio.get_running_loop().create_task(dealer.run())
        try:
            await until(table, "round_resumed")
            await until(table, "decision_window_opened")
        finally:
            task.cancel()
        commands = [e.body["command"] for e in table.events if e.type == "command_accepted"]
        assert commands[-2:] == ["discard_last_card", "resume"]
        assert "round_voided" not in [e.type for e in table.events]

    asyncio.run(scenario())
