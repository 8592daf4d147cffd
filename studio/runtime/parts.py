"""The parts of a running table, assembled once by `build_parts`: none of them is ever missing.

`TableRuntime` (`studio.runtime.table`) is the loop's shell; what it runs on is a `TableParts`:
the keys, the journal and its lock, the controller behind the journal, the two streams, the
replay service, the command channel, the shoe and the camera. `build_parts` opens them in order
and, if one cannot open, closes the ones it opened before raising, so a table either has all
its parts or none. A camera is a part only when the configuration has one.

The parts call back into the runtime through `TableHost` (a delivery to apply, camera inputs,
a command to decide, the view), so they depend on what the runtime does, not on the runtime.
In-process consumers of the table's events (the camera's zones, the simulated dealer's felt, a
test or a bench) attach as `EventListener`s, in the shape of python-can's `Notifier` and
`Listener`: each sees every event once it is on the streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from studio.bus import CommandChannel, EventPublisher, ReplayService
from studio.bus.commands import CommandDecision, CommandRequest
from studio.config import RuntimeConfig
from studio.controller import TableController
from studio.errors import JournalError
from studio.journal import Journal, RecordedTable, recover
from studio.journal.recorder import RecoveryReport, bind_settings
from studio.messages import Envelope, Input, TableSettings
from studio.messages.view import TableView
from studio.runtime.camera import CameraDevice, open_camera
from studio.runtime.devices import ShoeDevice, resume_point
from studio.runtime.keys import TableKeys, ensure_keys
from studio.runtime.lock import JournalLock
from studio.runtime.source import JournalSource

log = logging.getLogger(__name__)


class EventListener(Protocol):
    """An in-process consumer of a table's events (python-can's `Listener` shape)."""

    def on_event(self, event: Envelope) -> None:
        """Take one event, in sequence order, once it is on the streams (the loop's thread)."""
        ...


class TableHost(Protocol):
    """What the parts call back in the runtime that owns them."""

    def on_delivery(self) -> None:
        """Apply what the shoe reader has queued (the loop's thread; maybe the reader's call)."""
        ...

    def post_camera(self, inputs: list[Input]) -> None:
        """Hand the camera reader's inputs to the loop (the reader's thread)."""
        ...

    def decide(self, request: CommandRequest) -> CommandDecision:
        """Decide a command (the command channel's thread)."""
        ...

    def refused(self, request: CommandRequest, reason: str) -> None:
        """Record a command the channel refused by role (the command channel's thread)."""
        ...

    def served_view(self) -> TableView:
        """The table now, for the replay service's snapshot (any thread)."""
        ...


@dataclass(frozen=True, slots=True)
class TableParts:
    """Everything a running table holds (see the module docstring); `close()` is idempotent."""

    settings: TableSettings
    keys: TableKeys
    lock: JournalLock
    journal: Journal
    controller: TableController
    table: RecordedTable
    recovery: RecoveryReport
    publisher: EventPublisher
    replay: ReplayService
    channel: CommandChannel
    shoe: ShoeDevice
    camera: CameraDevice | None
    """None: the configuration has no camera (or the simulated one, which has no frames)."""

    async def close(self, after_readers: Callable[[], None] = lambda: None) -> None:
        """Stop the parts in the order a drain needs (from the loop's thread).

        The readers and the channel stop first, off the loop (they may be handing it their
        last inputs, or waiting for it to decide a command); then `after_readers()` runs (the
        owner applies the deliveries they left, while the journal is open); then the
        publisher, which the loop owns, the replay service, and the journal and its lock last.
        """
        loop = asyncio.get_running_loop()
        if self.camera is not None:
            await loop.run_in_executor(None, self.camera.close)
        await loop.run_in_executor(None, self.channel.close)
        await loop.run_in_executor(None, self.shoe.close)
        after_readers()
        # The loop's thread owns the publisher's sockets, so it closes them (they linger
        # until what was published has left).
        self.publisher.close()
        await loop.run_in_executor(None, self.replay.close)
        self.journal.close()
        self.lock.close()


def build_parts(
    config: RuntimeConfig, host: TableHost, loop: asyncio.AbstractEventLoop
) -> TableParts:
    """Open every part of the table in `config`, recovering its journal first.

    Raises `StudioError` (ConfigurationError, JournalError, BusError, KeyFileError) when a part
    cannot open; the parts opened before it are closed again.
    """
    path = config.journal_path
    with contextlib.ExitStack() as opened:
        keys = ensure_keys(config.keys_path)
        security = keys.security()
        try:
            # The journal's folder is the owner's alone, like the journal
            # (studio.journal.database.PRIVATE_MODE).
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            lock = opened.enter_context(JournalLock(path))
        except OSError as err:
            where = f"{err.strerror}: {err.filename}" if err.filename else str(err)
            raise JournalError(f"{path}: cannot open journal: {where}") from err
        # Checkpoints between rounds (the loop calls `journal.checkpoint()` after a round's end
        # is published), not inside a card's commit where SQLite's default would run them.
        journal = opened.enter_context(
            Journal(
                path,
                durable_events=config.journal.durable_events,
                checkpoint_between_rounds=True,
            )
        )
        settings = bind_settings(journal, config.table)
        controller = TableController(settings)
        report = recover(journal, controller, datetime.now(UTC))
        log.info("%s: %s", path, report.summary())
        # The restart's own events are the first this process publishes; everything before was
        # on the previous process's streams (or is fetched from replay by subscribers).
        before = journal.last_event_seq - len(report.restarted)
        bus = config.bus
        publisher = opened.enter_context(
            EventPublisher(
                settings.table,
                public_endpoint=bus.public,
                restricted_endpoint=bus.restricted,
                security=security,
                heartbeat_interval=bus.heartbeat_seconds,
                last_seq=before,
                last_public_seq=journal.last_event_seq_of("public", before),
                loop=loop,
            )
        )
        replay = opened.enter_context(
            ReplayService(
                bus.replay,
                open_source=lambda: JournalSource(path, host.served_view),
                security=security,
            )
        )
        channel = opened.enter_context(
            CommandChannel(bus.commands, host.decide, security, on_refused=host.refused)
        )
        shoe = opened.enter_context(
            ShoeDevice(config, resume_point(journal), loop=loop, wake=host.on_delivery)
        )
        camera = open_camera(config, settings.rules().positions, host.post_camera)
        if camera is not None:
            opened.enter_context(camera)
            # The shift manager's console shows an incident's zone as the camera sees it.
            replay.serve_crops(camera.zone_crop)
        parts = TableParts(
            settings=settings,
            keys=keys,
            lock=lock,
            journal=journal,
            controller=controller,
            table=RecordedTable(journal, controller),
            recovery=report,
            publisher=publisher,
            replay=replay,
            channel=channel,
            shoe=shoe,
            camera=camera,
        )
        opened.pop_all()
    return parts
