"""A wall-clock step against the monotonic clock pauses the table (clock injected, in process)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from studio.config import build_config
from studio.journal import Journal
from studio.messages import AlarmRaised, Command, parse_input
from studio.runtime.clock import ClockWatch, kernel_synchronised
from studio.runtime.table import TableRuntime


class SteppableClock:
    """The machine's clocks, whose wall time a test can step (as an operator or NTP would)."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def now(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def monotonic(self) -> float:
        return time.monotonic()


def test_the_watch_reports_a_step_once_and_where_the_clock_should_be() -> None:
    watch = ClockWatch(bound=0.1)
    t0 = datetime(2026, 12, 1, 8, tzinfo=UTC)
    assert watch.observe(t0, 100.0) is None
    assert watch.observe(t0 + timedelta(seconds=1.05), 101.0) is None  # 50 ms of drift: fine
    step = watch.observe(t0 + timedelta(seconds=7.05), 102.0)
    assert step is not None and step.seconds == pytest.approx(5.0)
    assert step.expected == t0 + timedelta(seconds=2.05)
    assert watch.observe(t0 + timedelta(seconds=8.05), 103.0) is None  # the new time holds
    back = watch.observe(t0 + timedelta(seconds=8.8), 104.0)
    assert back is not None and back.seconds == pytest.approx(-0.25)
    assert watch.steps == 2


def test_the_kernel_can_be_asked_whether_the_clock_is_synchronised() -> None:
    # Either answer is a fact about this machine; what matters is an answer, not an exception.
    assert kernel_synchronised() in (True, False, None)


def test_a_clock_step_pauses_the_table_and_a_manager_resumes(tmp_path: Path) -> None:
    root = tmp_path
    config = build_config(
        {
            "table": {"round_gap_seconds": 0.2, "betting_seconds": 0.5, "yellow_seconds": 0.1},
            "shoe": {"pty": str(root / "shoe")},
            "camera": {"backend": "none"},
            "journal": {"path": str(root / "t.journal")},
            "clock": {"check_seconds": 0.05},
            "bus": {
                "public": f"ipc://{root}/pub",
                "restricted": f"ipc://{root}/res",
                "replay": f"ipc://{root}/rep",
                "commands": f"ipc://{root}/cmd",
                "keys_dir": str(root / "keys"),
            },
            "dealer": {"draw_seconds": 0.02},
        }
    )
    clock = SteppableClock()
    seen: dict[str, object] = {}

    async def drive(table: TableRuntime) -> None:
        async def until(check: object, timeout: float = 10.0) -> None:
            deadline = time.monotonic() + timeout
            while not check():  # type: ignore[operator]
                assert time.monotonic() < deadline, table.view()
                await asyncio.sleep(0.02)

        await until(lambda: table.cards_drawn > 0)
        assert not table.view().paused
        clock.offset += timedelta(seconds=30)  # the wall clock jumps half a minute ahead
        await until(lambda: table.view().paused)
        seen["incidents"] = [i.kind for i in table.view().incidents]
        seen["steps"] = table.safeguards.clock_watch.steps
        seen["metrics"] = generate_latest(table.metrics.registry).decode()
        # A card the dealer was already drawing when the pause came arrives out of turn: the
        # manager clears what the blockers name (discard it), then resumes.
        resumed: list[str] = []
        for _ in range(20):
            view = table.view()
            if any("discard" in b for b in view.resume_blockers):
                table.submit(
                    Command(
                        ts=clock.now(),
                        actor="m1",
                        role="shift_manager",
                        command="discard_last_card",
                    )
                )
                continue
            answer = table.submit(
                Command(ts=clock.now(), actor="m1", role="shift_manager", command="resume")
            )
            resumed = [e.type for e in answer]
            if "round_resumed" in resumed:
                break
            await asyncio.sleep(0.1)
        seen["resumed"] = resumed
        await until(lambda: not table.view().paused)

    status = asyncio.run(TableRuntime(config, announce=False, clock=clock).run(drive))
    assert status == 0
    # The step is seen before the next input; when that input is a card, it lands on the paused
    # table and is out of turn (cleared above by a discard).
    incidents = seen["incidents"]
    assert isinstance(incidents, list) and incidents[0] == "clock_step"
    assert set(incidents) <= {"clock_step", "card_out_of_turn"} and seen["steps"] == 1
    assert 'studio_clock_steps_total{table="T01"} 1.0' in str(seen["metrics"])
    assert "round_resumed" in seen["resumed"]  # type: ignore[operator]
    alarms = []
    with Journal(root / "t.journal", readonly=True) as journal:
        inputs = [parse_input(r.body) for r in journal.records() if r.kind == "input"]
    alarms = [i for i in inputs if isinstance(i, AlarmRaised)]
    assert [a.cause for a in alarms] == ["clock_step"]
    assert "+30000 ms" in alarms[0].detail
    # Every input the runtime journalled carries its monotonic time beside its UTC time.
    assert all(i.mono is not None for i in inputs)
