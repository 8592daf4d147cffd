"""The runtime's assembly: all its parts or none, and in-process consumers attached as listeners."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
import zmq

from studio.config import RuntimeConfig, build_config
from studio.errors import StudioError
from studio.journal import Journal
from studio.messages import Command, Envelope, Tick
from studio.runtime import TableRuntime
from studio.runtime.lock import JournalLock
from studio.runtime.parts import build_parts


def _config(root: Path, commands: str | None = None) -> RuntimeConfig:
    return build_config(
        {
            "table": {"game": "caribbean-stud"},
            "shoe": {"pty": str(root / "shoe")},
            "journal": {"path": str(root / "table.journal")},
            "bus": {
                "public": f"ipc://{root}/pub",
                "restricted": f"ipc://{root}/res",
                "replay": f"ipc://{root}/rep",
                "commands": commands or f"ipc://{root}/cmd",
                "keys_dir": str(root / "keys"),
            },
            "dealer": {"enabled": False},
            "camera": {"backend": "none"},
        }
    )


class Recorder:
    """A listener that keeps every event it is given."""

    def __init__(self) -> None:
        self.events: list[Envelope] = []

    def on_event(self, event: Envelope) -> None:
        self.events.append(event)


class Broken:
    """A listener that fails on every event."""

    def on_event(self, event: Envelope) -> None:
        raise RuntimeError("a consumer's bug")


def _start(at: datetime) -> Command:
    return Command(ts=at, actor="d1", role="dealer", command="start_round")


def test_listeners_see_every_event_in_order_and_a_failing_one_stops_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    config = _config(tmp_path)
    first, late = Recorder(), Recorder()
    seen_by_late: list[int] = []

    async def drive(table: TableRuntime) -> None:
        table.add_listener(Broken())
        table.add_listener(first)
        now = datetime.now(UTC)
        table.submit(_start(now))
        table.add_listener(late)
        table.submit(Tick(ts=now))
        seen_by_late.append(len(late.events))
        table.remove_listener(late)
        table.submit(Command(ts=now, actor="d1", role="dealer", command="call_manager"))
        with pytest.raises(ValueError):
            table.remove_listener(late)

    assert asyncio.run(TableRuntime(config, announce=False).run(drive)) == 0
    with Journal(config.journal_path, readonly=True) as journal:
        stored = [record.seq for record in journal.events_from(1)]
    # The broken listener is logged and skipped: the others still see every event, in order.
    assert [e.seq for e in first.events] == stored and stored
    assert {e.type for e in first.events} >= {"round_opened", "round_paused"}
    assert seen_by_late == [len(late.events)] and all(
        e.seq > first.events[0].seq for e in late.events
    )


def test_a_part_that_cannot_open_leaves_nothing_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The command channel's endpoint is taken: the table does not start, and the journal, its
    # lock and the streams opened before are closed again (a second start can take them all).
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    squatter = ctx.socket(zmq.ROUTER)
    port = squatter.bind_to_random_port("tcp://127.0.0.1")
    config = _config(tmp_path, commands=f"tcp://127.0.0.1:{port}")
    threads = set(threading.enumerate())

    async def build() -> None:
        build_parts(config, TableRuntime(config, announce=False), asyncio.get_running_loop())

    try:
        with pytest.raises(StudioError, match=str(port)):
            asyncio.run(build())
    finally:
        squatter.close(linger=0)
        ctx.term()
    with JournalLock(config.journal_path):
        pass  # the lock was released
    assert set(threading.enumerate()) <= threads
    config = _config(tmp_path)

    async def drive(table: TableRuntime) -> None:
        table.submit(_start(datetime.now(UTC)))

    assert asyncio.run(TableRuntime(config, announce=False).run(drive)) == 0
