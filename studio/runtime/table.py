"""`TableRuntime`: the asyncio shell that runs one table.

It composes the adapters around the pure controller, in one event loop that alone touches the
controller and the journal (so neither needs a lock):

- inputs come from the shoe's line (read in the loop itself where it is a file descriptor,
  else by a reader thread whose deliveries wake the loop: `drivers.shoe.readers`), the camera
  reader's thread (finished `card_seen` and `device_status` inputs, through
  `call_soon_threadsafe`), the command channel's thread (through `run_coroutine_threadsafe`,
  answered when the loop has decided), the clock (a tick at the controller's next timer
  deadline) and the simulated dealer;
- each input is applied and then journalled durably with the events it caused, in one
  transaction (`RecordedTable.step`), before any of them is published on the public and
  restricted streams or acknowledged to the shoe;
- the replay service serves the journal by sequence number and the latest snapshot;
- in-process consumers (the camera's zones, the simulated dealer's felt) attach as listeners
  (`add_listener`) and see every event once it is on the streams;
- a command the channel refuses by role is journalled too, as the command input it was: the
  controller refuses it again and records the actor and the reason.

The parts it runs on are built once by `studio.runtime.parts.build_parts`: all of them, or none.
`start()` recovers from the journal (a round a crash interrupted comes back paused) before
anything is bound; `stop()` (SIGTERM, SIGINT, `--rounds`, `--duration`) drains: no new cards,
the command channel closes after answering what it holds, deliveries already read are applied,
the publisher hands on every event, and the journal closes last.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from drivers.shoe.adapter import to_input
from drivers.shoe.host import receipt_of
from drivers.shoe.readings import Delivery, ShoeReset
from studio.bus.commands import CommandDecision, CommandRequest
from studio.bus.publisher import FramedEvents
from studio.bus.wire import WireEvent, encode_event
from studio.config import RuntimeConfig
from studio.controller import TableController
from studio.errors import JournalError, StudioError
from studio.journal import RecordedTable
from studio.journal.recorder import StoredEvent, event_json, rebuild
from studio.logs import set_log_context
from studio.messages import CardDrawn, DeviceStatus, Envelope, Input, Tick
from studio.messages.notices import AnyNotice
from studio.messages.view import TableView
from studio.runtime.announce import RunFile, run_dir, write_run_file
from studio.runtime.banner import ready_banner
from studio.runtime.clock import Clock, SystemClock
from studio.runtime.dealer import SimulatedDealer
from studio.runtime.health import MetricsServer, loop_answers, not_ready
from studio.runtime.journal_guard import RETRY_SECONDS, CardGate, JournalGuard
from studio.runtime.keys import TableKeys
from studio.runtime.lock import JournalLock as JournalLock  # its home was here
from studio.runtime.metrics import RuntimeFigures, TableMetrics
from studio.runtime.parts import EventListener, TableParts, build_parts
from studio.runtime.safeguards import Safeguards
from studio.runtime.shoe_identity import IdentityGate
from studio.runtime.systemd import SystemdNotifier
from studio.simulation.table import card_faces

log = logging.getLogger(__name__)

COMMAND_TIMEOUT = 5.0
"""Seconds the command channel's thread waits for the loop to decide a command."""
DRAIN_CARD_WAIT = 2.0
"""Seconds a stopping table waits for a card already in the shoe's line to arrive."""
TIMER_MARGIN = 0.0005
"""Seconds past a timer's deadline that its tick is sent, so the deadline has surely passed."""


class TableRuntime:
    """One table running in an asyncio loop (see the module docstring).

    Use `run()` from inside a loop: it starts, waits until `stop()` is requested (or the
    `rounds` / `duration` limit is reached) and stops. `rounds` counts rounds ended (result or
    void) during this run; `duration` is in seconds. `announce` prints where the streams are.
    """

    def __init__(
        self,
        config: RuntimeConfig,
        *,
        rounds: int | None = None,
        duration: float | None = None,
        announce: bool = True,
        clock: Clock | None = None,
    ) -> None:
        self.config = config
        self.clock: Clock = clock or SystemClock()
        self.safeguards = Safeguards(self, config)
        self.settings = config.table
        self._rounds = rounds
        self._duration = duration
        self._announce = announce
        # Made in `run()`, inside the loop; None before and after: the table is not running.
        self._parts: TableParts | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_requested = asyncio.Event()
        self._listeners: list[EventListener] = []
        self._dealer: SimulatedDealer | None = None
        self._dealer_task: asyncio.Task[None] | None = None
        self._tick: asyncio.TimerHandle | None = None
        self._view: TableView | None = None
        self._cards_drawn = 0
        # Set and replaced at every card_drawn applied: each waiter wakes once per card.
        self._card_applied = asyncio.Event()
        self._shoe_heard = False
        self._rounds_ended = 0
        self._stopping = False
        self._failure: BaseException | None = None
        self._run_file: Path | None = None
        self.events_published = 0
        self.metrics = TableMetrics(self.settings.table)
        self._systemd = SystemdNotifier()
        self._watchdog: asyncio.TimerHandle | None = None
        self._http: MetricsServer | None = None
        set_log_context(self.settings.table)
        self.journal_guard = JournalGuard(self.settings.table)
        self._gate = CardGate()
        self._identity = IdentityGate(config.shoe.identity)
        self._journal_retry: asyncio.TimerHandle | None = None
        self.metrics.read_figures(self._figures)

    @property
    def keys(self) -> TableKeys | None:
        """The table's keys while it runs (None before it starts)."""
        return self._parts.keys if self._parts is not None else None

    # -- listeners ------------------------------------------------------------------------------

    def add_listener(self, listener: EventListener) -> None:
        """Have `listener` see every event from now on, once it is on the streams (loop only)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: EventListener) -> None:
        """Stop giving `listener` events; raises ValueError if it was not added."""
        self._listeners.remove(listener)

    # -- what the dealer and the replay source read ---------------------------------------------

    def view(self) -> TableView:
        """The controller's frozen `TableView` after the last input (restricted: all cards)."""
        if self._view is None:
            raise StudioError("the table is not open: start() it first")
        return self._view

    def served_view(self) -> TableView:
        """`view()` as clients see it: paused, with the fault, while the journal is unwritable."""
        return self.journal_guard.overlay(self.view())

    def _figures(self) -> RuntimeFigures:
        """What the parts count themselves, for a scrape (the metrics server's thread)."""
        parts, guard = self._parts, self.journal_guard
        return RuntimeFigures(
            damaged_frames=dict(parts.shoe.reader.health().damaged) if parts is not None else {},
            clock_steps=self.safeguards.clock_watch.steps,
            journal_failures=guard.counters.failures,
            journal_refused=guard.counters.refused,
            journal_unwritable=guard.faulted,
        )

    @property
    def cards_drawn(self) -> int:
        """How many card_drawn inputs this run has applied."""
        return self._cards_drawn

    @property
    def journal_writable(self) -> bool:
        """False while a journal failure makes the table refuse every input (see journal_guard)."""
        return not self.journal_guard.faulted

    async def card_drawn_after(self, count: int) -> None:
        """Return once this run has applied more than `count` card_drawn inputs (loop only)."""
        while self._cards_drawn <= count:
            await self._card_applied.wait()

    # -- inputs -----------------------------------------------------------------------------------

    def _running(self) -> TableParts:
        parts = self._parts
        if parts is None:
            raise StudioError("the table is not running")
        return parts

    def submit(self, inp: Input) -> list[Envelope]:
        """Apply `inp`, journal it with its events, publish them, re-arm the clock; return them.

        Runs in the loop's thread only. An input that is not on record must not be acted on, and
        no later one may be either: its events are published only once the input and they are
        on disk (one fsync), and while the journal cannot be written every input is refused
        with a `JournalError` (see `studio.runtime.journal_guard`); the controller, which
        applied the refused input, is rebuilt from the journal before it takes another.
        """
        return self._submit(self._running(), inp)

    def _submit(self, parts: TableParts, inp: Input) -> list[Envelope]:
        """`submit` on the running table's `parts` (the line's callback has them already)."""
        if self._failure is not None:
            raise StudioError("the table has stopped after a failure")
        if self.journal_guard.fault is not None:  # `faulted`, inline: on every card's way
            raise JournalError(self.journal_guard.refused())
        self.safeguards.before_input()
        if inp.mono is None:
            inp = inp.model_copy(update={"mono": self.clock.monotonic()})
        started = time.perf_counter()
        try:
            decision = parts.table.decide(inp)
            # Framed while nothing is on record yet, sent only once it is: after the commit's
            # fsync the caches are cold, and what is left for them is the sends alone.
            framed = self._frame(parts, decision.events)
            stored = parts.table.record(decision)
        except JournalError as err:
            self._journal_failed(err)
            raise
        return self._applied(parts, inp, stored, time.perf_counter() - started, framed)

    def _frame(self, parts: TableParts, events: list[StoredEvent]) -> FramedEvents | None:
        """`events` checked and framed for the streams, not sent; None if there are none.

        Also None when the publisher refuses them: `_publish` then offers them the way it
        always has, after the commit, and logs why they were not published.
        """
        if not events:
            return None
        try:
            # `encode_event` inline (two calls fewer on a card's way before its commit).
            return parts.publisher.frame(
                [WireEvent(event, body.encode()) for event, body in events]
            )
        except StudioError:
            return None

    def _applied(
        self,
        parts: TableParts,
        inp: Input,
        stored: list[StoredEvent],
        seconds: float,
        framed: FramedEvents | None = None,
    ) -> list[Envelope]:
        """Publish the events of `inp`, on record with it after `seconds`; return them.

        `framed`, if given, is what `_frame` made of them before the commit.
        """
        # The input and its events are on disk (one transaction): a subscriber only ever sees
        # what recovery finds, and the replay service has every event it may be asked for.
        try:
            self._publish(parts, stored, framed)
        finally:
            self.safeguards.stored(stored)
        # Book-keeping waits until the card is on its way: each step of it costs several
        # times more on the card's path, the caches cold after the idle gap between cards.
        self.metrics.applied(inp, seconds)
        if isinstance(inp, CardDrawn):
            self._cards_drawn += 1
            self._card_applied.set()
            self._card_applied = asyncio.Event()
        self._view = parts.controller.view()
        self.metrics.view(self._view)
        set_log_context(game_number=self._view.game_number, seq=self._view.seq)
        if stored and log.isEnabledFor(logging.DEBUG):
            log.debug("%s: %s", inp.kind, " ".join(event.type for event, _ in stored))
        self._arm_clock()
        # Between inputs, off every card's way: the shoe's next card then only fills in its seat
        # and events (`studio.controller.prepared`); any other input drops what was prepared.
        parts.controller.prepare()
        if any(event.type in ("round_result", "round_voided") for event, _ in stored):
            self._checkpoint(parts)
        return [event.envelope for event in stored]

    def _checkpoint(self, parts: TableParts) -> None:
        """Checkpoint the journal's WAL between rounds, after the round's end is published.

        Not in a card's commit (SQLite's default checkpointed in whichever commit filled 1,000
        pages), and the next round writes the WAL over in place rather than growing it. Every
        commit is durable in the WAL already: a failure here loses nothing (logged; SQLite's
        backstop checkpoint still bounds the WAL).
        """
        if self.journal_guard.faulted:
            return  # the guard reports the journal; a checkpoint would only fail again
        try:
            parts.journal.checkpoint()
        except JournalError as err:
            log.warning("journal checkpoint between rounds failed: %s", err)

    def _publish(
        self, parts: TableParts, events: list[StoredEvent], framed: FramedEvents | None = None
    ) -> None:
        if events:
            # The events are on record already; a stream that misses one is repaired by replay.
            # Sent from this thread, as the journal stores them: no hand-off, no re-encoding.
            started = time.perf_counter()
            try:
                if framed is not None:
                    parts.publisher.send_framed(framed)
                else:
                    wires = [encode_event(event, body) for event, body in events]
                    parts.publisher.publish_all(wires)
                self.events_published += len(events)
            except StudioError:
                log.exception("events %d..%d not published", events[0][0].seq, events[-1][0].seq)
            if any(event.type == "card_dealt" for event, _ in events):
                self.metrics.stage("publish", time.perf_counter() - started)
            self.metrics.subscribers(parts.publisher.subscriptions)
        for event, _ in events:
            if event.type in ("round_result", "round_voided") and event.audience == "public":
                self._rounds_ended += 1
        # The listeners follow once the streams have the events: a card's event never waits
        # for the simulated hands that react to it.
        for event, _ in events:
            for listener in list(self._listeners):
                try:
                    listener.on_event(event)
                except Exception:  # one consumer's fault must not stop the table or the others
                    log.exception("listener %r failed on event %d", listener, event.seq)
        if self._rounds is not None and self._rounds_ended >= self._rounds:
            self.stop()

    def post_camera(self, inputs: list[Input]) -> None:
        """Hand the camera reader's inputs to the loop (called in the reader's thread)."""
        loop = self._loop
        if loop is None:
            return
        try:
            loop.call_soon_threadsafe(self._on_camera, inputs)
        except RuntimeError:
            log.debug("camera inputs after the loop closed are dropped")

    def _on_camera(self, inputs: list[Input]) -> None:
        """Journal and apply the camera's inputs (in the loop's thread)."""
        for inp in inputs:
            if self._parts is None:
                return
            try:
                self.submit(inp)
            except StudioError:
                return

    def notify(self, notice: AnyNotice) -> None:
        """Send a notice on the restricted stream (it is not journalled: see its model)."""
        if self._parts is None:
            return
        try:
            self._parts.publisher.publish_notice(notice)
        except StudioError:
            log.exception("the %s notice was not published", notice.kind)

    def _journal_failed(self, err: JournalError) -> None:
        """Latch the journal's fault, say so on the restricted stream, and retry later."""
        alarm = self.journal_guard.tripped(err, self.clock.now())
        if alarm is not None:
            self.notify(alarm)
            if self._view is not None:
                self.metrics.view(self.served_view())  # studio_paused says what status says
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        if self._journal_retry is None and not self._stopping:
            loop = asyncio.get_running_loop()
            self._journal_retry = loop.call_later(RETRY_SECONDS, self._retry_journal)

    def _retry_journal(self) -> None:
        """Try the journal again: rebuild the controller if need be, journal the fault (a pause)."""
        self._journal_retry = None
        guard, parts = self.journal_guard, self._parts
        if not guard.faulted or parts is None or self._stopping:
            return
        now = self.clock.now()
        alarm = guard.alarm_input(now)
        try:
            if parts.table.ahead:
                self._rebuild_controller(parts)
            started = time.perf_counter()
            stored = parts.table.step(alarm)
        except JournalError as err:
            self._journal_failed(err)
            return
        self.notify(guard.cleared(now))
        self._applied(parts, alarm, stored, time.perf_counter() - started)

    def _rebuild_controller(self, parts: TableParts) -> None:
        """Replace the controller's state by the journal's (it applied an input never recorded).

        Raises `JournalError` (the journal cannot be read); the fault stays latched meanwhile.
        """
        fresh = TableController(parts.settings)
        report = rebuild(parts.journal, fresh)
        parts.controller.adopt(fresh)
        parts.table.ahead = False
        log.info("controller rebuilt from the journal after a refused write: %s", report.summary())

    def _arm_clock(self) -> None:
        """Schedule a tick at the controller's earliest timer deadline (none while paused)."""
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        deadlines = [t.deadline for t in self.view().timers if t.deadline is not None]
        # A paused table's timers are frozen (no deadline): nothing to tick for.
        if not deadlines or self._stopping or self.journal_guard.faulted:
            return
        deadline = min(deadlines)
        delay = (deadline - self.clock.now()).total_seconds() + TIMER_MARGIN
        self._tick = asyncio.get_running_loop().call_later(max(0.0, delay), self._on_tick)

    def _on_tick(self) -> None:
        self._tick = None
        with contextlib.suppress(StudioError):
            self.submit(Tick(ts=self.clock.now()))

    def on_delivery(self) -> None:
        """Apply every delivery the shoe reader has queued (called in the loop's thread)."""
        parts = self._parts
        if parts is None:
            return
        deliveries = parts.shoe.reader.deliveries
        # Only this thread takes from the queue: not empty means a get that cannot fail (an
        # Empty raised and caught after every card cost more than the check).
        while not deliveries.empty():
            delivery: Delivery = deliveries.get_nowait()
            item = delivery.item
            receipt = receipt_of(item)
            # The gate's calls only where they can say something (a RESET names its shoe; a
            # pin is configured): on every card's way before its commit, each call is dear.
            if isinstance(item, ShoeReset):
                self._identity.saw(item)
            problem = self._identity.problem(receipt) if self._identity.pin is not None else None
            if problem is not None:
                # Not the pinned shoe: never a card, never acknowledged; a fault says why.
                self._wrong_shoe(problem, delivery)
                continue
            verdict = self._gate.verdict(receipt)
            if verdict != "apply":
                # A frame queued before a refusal rewound the reader (see CardGate).
                if verdict == "duplicate":
                    parts.shoe.commit(delivery)
                else:
                    parts.shoe.rewind()
                continue
            first, self._shoe_heard = not self._shoe_heard, True
            inp = to_input(delivery, mono=self.clock.monotonic())
            if first and isinstance(delivery.item, ShoeReset):
                # A framed shoe announces every session with a RESET, the one it opens at power-on
                # too; only a reset after the reader has heard the shoe can have lost cards.
                log.info("shoe session started (%s)", delivery.item)
                inp = None
            # Observed once the card is published (see `_applied`).
            waited = time.monotonic() - delivery.at
            if inp is not None:
                try:
                    self._submit(parts, inp)
                except StudioError as err:
                    # Not on record: never acknowledged, so a framed shoe keeps the frame and
                    # sends it again; a barcode line's card is gone (the alarm says so).
                    if receipt is None and isinstance(inp, CardDrawn):
                        log.warning("a barcode card was lost to the refusal: %s", err)
                    parts.shoe.rewind()
                    continue
            parts.shoe.commit(delivery)
            self._gate.committed(receipt)
            if isinstance(inp, CardDrawn):
                self.metrics.stage("shoe_to_input", waited)

    def _wrong_shoe(self, problem: str, delivery: Delivery) -> None:
        if self._view is not None and self._view.devices.get("shoe") == "fault":
            return
        log.error("%s", problem)
        fault = DeviceStatus(
            ts=delivery.ts, device="shoe", status="fault", detail=f"wrong_device: {problem}"
        )
        with contextlib.suppress(StudioError):
            self.submit(fault)

    # -- commands (called in the command channel's thread) -----------------------------------------

    def decide(self, request: CommandRequest) -> CommandDecision:
        """Decide `request` in the loop and answer it (the command channel's thread)."""
        return self._bridge(request, role_refusal=None)

    def refused(self, request: CommandRequest, reason: str) -> None:
        """Journal a command refused by role, as the input it was (the channel's thread)."""
        self._bridge(request, role_refusal=reason)

    def _bridge(self, request: CommandRequest, role_refusal: str | None) -> CommandDecision:
        loop = self._loop
        if loop is None:
            return CommandDecision(False, "the table is not running")

        async def apply() -> CommandDecision:
            if self._parts is None:
                return CommandDecision(False, "the table is stopping")
            if request.action == "check_integrity" and not self.safeguards.checks_integrity:
                return CommandDecision(False, "no manifest to check: set [integrity] manifest")
            try:
                events = self.submit(request.as_input(self.clock.now()))
            except JournalError as err:
                return CommandDecision(False, str(err))
            for event in events:
                if event.type == "command_rejected":
                    return CommandDecision(False, str(event.body.get("reason")))
            if role_refusal is not None:
                return CommandDecision(False, role_refusal)
            return CommandDecision(True)

        future = asyncio.run_coroutine_threadsafe(apply(), loop)
        return future.result(timeout=COMMAND_TIMEOUT)

    # -- life cycle -----------------------------------------------------------------------------

    def stop(self) -> None:
        """Ask the table to drain and stop (from the loop's thread; signals land here)."""
        self._stop_requested.set()

    async def run(self, driver: Callable[[TableRuntime], Awaitable[None]] | None = None) -> int:
        """Start, serve until stopped, drain and stop; return the exit status (0, or 1 on failure).

        `driver`, if given, is awaited once the table is ready (a benchmark or test feeding it
        inputs through `submit`); the table stops when it returns. Raises `StudioError`
        (ConfigurationError, JournalError, BusError, KeyFileError) when the table cannot start;
        what was started is closed again.
        """
        loop = self._loop = asyncio.get_running_loop()
        self._stop_requested = asyncio.Event()
        try:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stop)
            self._start(loop)
            if self._duration is not None:
                loop.call_later(self._duration, self.stop)
            if driver is not None:
                await driver(self)
                self.stop()
            await self._stop_requested.wait()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)
            await self._shutdown()
        if self.journal_guard.faulted:
            log.error("the table stopped with its journal not writable")
        return 1 if self._failure is not None or self.journal_guard.faulted else 0

    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        config = self.config
        parts = build_parts(config, self, loop)
        # The controller's time is measured apart from the journal's (the card's stages).
        parts = self._parts = dataclasses.replace(
            parts, table=RecordedTable(parts.journal, self.metrics.timed(parts.controller))
        )
        self._view = parts.controller.view()
        self.metrics.view(self._view)
        # The metrics count what the events say, as any other consumer of them does.
        self.add_listener(self.metrics)
        report = parts.recovery
        self._publish(parts, [StoredEvent(e, event_json(e)) for e in report.restarted])
        # Signing key, software check (before any card: a mismatch pauses at once), clock watch.
        self.safeguards.start(loop, parts.journal, parts.keys.directory)
        self.add_listener(self.safeguards)
        if parts.camera is not None:
            self.add_listener(parts.camera)
        settings = parts.settings
        if config.dealer.enabled and parts.shoe.simulator is not None:
            rules = settings.rules()
            self._dealer = SimulatedDealer(
                self,
                parts.shoe.deal,
                config.dealer,
                # A continued journal gets new cards, not the same shuffles again.
                seed=f"{config.dealer.seed}:{parts.journal.input_count}",
                faces=card_faces(rules.deals),
                round_gap=settings.round_gap_seconds,
                camera=config.camera.backend == "simulated",
                rounds=self._rounds,
                felt=parts.camera.felt if parts.camera is not None else None,
                confirm_seconds=settings.camera_confirm_seconds,
                camera_only=settings.card_source == "camera",
                new_deck_every_round=settings.new_deck_every_round,
            )
            self.add_listener(self._dealer)
            self._dealer_task = loop.create_task(self._dealer.run())
        self._arm_clock()
        metrics = config.metrics
        if metrics.enabled:
            self._http = MetricsServer(
                metrics.host,
                metrics.port,
                self.metrics.registry,
                alive=lambda: loop_answers(self._loop),
                not_ready=self._not_ready,
            )
        self._run_file = self._write_run_file(parts)
        if self._announce:
            banner = ready_banner(
                config,
                parts,
                self.view(),
                recovery=report.summary(),
                dealer=self._dealer is not None,
                run_file=self._run_file,
                metrics=self._http.address if self._http is not None else None,
            )
            print(banner, flush=True)
        self._systemd.notify("READY=1", f"STATUS=table {self.settings.table} {report.summary()}")
        self._on_watchdog()

    def _not_ready(self) -> list[str]:
        """Why the table is not fit to deal (the metrics server's thread reads it)."""
        stopping = self._stopping or self._parts is None
        return not_ready(self._view, self.config.journal_path, self._failure, stopping=stopping)

    def _on_watchdog(self) -> None:
        """Ping systemd's watchdog from the loop, twice a period: a hung loop misses it."""
        seconds = self._systemd.watchdog_seconds
        if seconds is None or self._stopping or self._loop is None:
            return
        self._systemd.notify("WATCHDOG=1")
        self._watchdog = self._loop.call_later(seconds / 2, self._on_watchdog)

    def _write_run_file(self, parts: TableParts) -> Path:
        streams = parts.publisher.endpoints
        return write_run_file(
            RunFile(
                table=self.settings.table,
                game=self.settings.game,
                pid=os.getpid(),
                public=streams["public"],
                restricted=streams["restricted"],
                replay=parts.replay.endpoint,
                commands=parts.channel.endpoint,
                server_key=str(parts.keys.server_public),
                keys_dir=str(parts.keys.directory),
                journal=str(self.config.journal_path),
                metrics=self._http.address if self._http is not None else None,
            )
        )

    async def _shutdown(self) -> None:
        self._stopping = True
        self._systemd.notify("STOPPING=1")
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._dealer_task is not None:
            self._dealer_task.cancel()
            try:
                await self._dealer_task
            except asyncio.CancelledError:
                pass
            except StudioError:
                log.exception("the simulated dealer stopped")
            # A card already on the line was drawn: it must reach the journal, not vanish.
            waited = 0.0
            while self._dealer is not None and self._dealer.in_flight and waited < DRAIN_CARD_WAIT:
                await asyncio.sleep(0.01)
                waited += 0.01
        parts = self._parts
        if parts is not None:
            # Deliveries already read are applied before the journal closes.
            await parts.close(after_readers=self._drain)
        self._parts = None
        self._listeners.clear()
        if self._http is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._http.close)
        if self._run_file is not None:
            with contextlib.suppress(FileNotFoundError):
                self._run_file.unlink()
        self._systemd.close()
        log.info("table %s stopped", self.settings.table)

    def _drain(self) -> None:
        self.on_delivery()
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        if self._journal_retry is not None:
            self._journal_retry.cancel()
            self._journal_retry = None
        self.safeguards.stop()


def run_table(
    config: RuntimeConfig,
    *,
    rounds: int | None = None,
    duration: float | None = None,
    announce: bool = True,
) -> int:
    """Run the table in `config` in a new event loop until it stops; return the exit status.

    Raises `StudioError` when it cannot start (see `TableRuntime.run`).
    """
    run_dir().mkdir(parents=True, exist_ok=True)
    runtime = TableRuntime(config, rounds=rounds, duration=duration, announce=announce)
    return asyncio.run(runtime.run())
