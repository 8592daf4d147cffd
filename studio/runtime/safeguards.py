"""The table's watch on itself: signed checkpoints, the software self-check, the clock.

`Safeguards` belongs to a `TableRuntime` (its `host`) and runs in the host's loop. It

- publishes a signed `Checkpoint` of the journal's end at every round's end and every
  `[journal] checkpoint_events` events (`studio.journal.anchors`);
- checks the installation against `[integrity] manifest` at start, on a shift manager's
  `check_integrity` and every `check_hours`, hashing off the loop, journalling every hash as an
  `integrity_checked` input (a difference pauses the table) and publishing the report
  (`studio.runtime.integrity`);
- compares the wall clock with the monotonic one before every input and every
  `[clock] check_seconds`, and with `require_sync` asks the kernel, journalling a step or a loss
  of sync as an `alarm_raised` input that pauses the table (`studio.runtime.clock`).

Its figures for the metrics: `clock_watch.steps`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal, Protocol

from studio.config import RuntimeConfig
from studio.errors import StudioError
from studio.journal import Journal
from studio.journal.anchors import CheckpointSigner
from studio.journal.recorder import StoredEvent
from studio.messages import AlarmCause, AlarmRaised, Envelope, Input, IntegrityChecked
from studio.messages.notices import AnyNotice
from studio.runtime.clock import Clock, ClockWatch, kernel_synchronised
from studio.runtime.integrity import IntegrityChecker, IntegritySchedule, Why, report

log = logging.getLogger(__name__)


class Host(Protocol):
    """What the safeguards need of the runtime."""

    clock: Clock

    def submit(self, inp: Input) -> list[Envelope]:
        """Journal and apply one input (raises `StudioError` when it cannot)."""
        ...

    def notify(self, notice: AnyNotice) -> None:
        """Send a notice on the restricted stream."""
        ...


class Safeguards:
    """See the module docstring. Loop thread only; `start` once, `stop` idempotent."""

    def __init__(self, host: Host, config: RuntimeConfig) -> None:
        self._host = host
        self._config = config
        self._table = config.table.table
        self.clock_watch = ClockWatch(config.clock.step_bound_ms / 1000)
        self._unsynchronised = False
        self._signer: CheckpointSigner | None = None
        self._journal: Journal | None = None
        self._since_checkpoint = 0
        self._integrity: IntegrityChecker | None = None
        self._schedule = IntegritySchedule(timedelta(hours=config.integrity.check_hours))
        self._loop: asyncio.AbstractEventLoop | None = None
        self._integrity_timer: asyncio.TimerHandle | None = None
        self._clock_timer: asyncio.TimerHandle | None = None
        self._stopping = False

    @property
    def checks_integrity(self) -> bool:
        """Whether a manifest is configured (so `check_integrity` has something to do)."""
        return self._integrity is not None

    def start(self, loop: asyncio.AbstractEventLoop, journal: Journal, keys_dir: Path) -> None:
        """Load the signing key, run the start-up self-check, start watching the clock.

        Raises `JournalError` for an unusable signing key, `ConfigurationError` for a manifest
        that cannot be read.
        """
        self._loop, self._journal = loop, journal
        self._signer = CheckpointSigner.load_or_create(keys_dir)
        # The events-only chain is read once now, not at the first round's end.
        self._signer.events.advance(journal)
        config = self._config
        if config.integrity.manifest:
            self._integrity = IntegrityChecker(config.expand(config.integrity.manifest), config)
            self._record(self._integrity.check("start", self._host.clock.now()))
        self._watch_clock()

    def stop(self) -> None:
        """Cancel the timers; nothing more is checked or journalled."""
        self._stopping = True
        for timer in (self._integrity_timer, self._clock_timer):
            if timer is not None:
                timer.cancel()
        self._integrity_timer = self._clock_timer = None

    # -- checkpoints -----------------------------------------------------------------------------

    def stored(self, events: Sequence[StoredEvent]) -> None:
        """Events are stored: publish a checkpoint at a round's end or every N events."""
        if self._signer is None or self._journal is None or not events:
            return
        self._since_checkpoint += len(events)
        ended = any(e.envelope.type in ("round_result", "round_voided") for e in events)
        if not ended and self._since_checkpoint < self._config.journal.checkpoint_events:
            return
        self._since_checkpoint = 0
        reason: Literal["round_end", "interval"] = "round_end" if ended else "interval"
        now = self._host.clock.now()
        self._host.notify(self._signer.checkpoint(self._table, self._journal, now, reason))

    # -- the software self-check -----------------------------------------------------------------

    def on_event(self, event: Envelope) -> None:
        """A shift manager's accepted `check_integrity` starts a check (an `EventListener`)."""
        if event.type == "command_accepted" and event.body.get("command") == "check_integrity":
            self._check("command")

    def _check(self, why: Why) -> None:
        """Hash the installation off the loop; journal and publish the result when it is done."""
        checker, loop = self._integrity, self._loop
        if checker is None or loop is None or self._stopping:
            return
        future = loop.run_in_executor(None, checker.check, why, self._host.clock.now())
        future.add_done_callback(lambda done: self._checked(checker, why, done))

    def _checked(
        self, checker: IntegrityChecker, why: Why, done: asyncio.Future[IntegrityChecked]
    ) -> None:
        if self._stopping or done.cancelled():
            return
        try:
            checked = done.result()
        except StudioError as err:
            # A file that cannot be read cannot be vouched for: that is a difference too.
            checked = IntegrityChecked(
                ts=self._host.clock.now(),
                why=why,
                manifest=checker.manifest_sha256,
                hashes={},
                differences=[str(err)],
            )
        self._record(checked)

    def _record(self, checked: IntegrityChecked) -> None:
        """Journal a check's hashes (a difference pauses), publish its report, re-arm the clock."""
        self._schedule.checked(checked.ts)
        try:
            self._host.submit(checked)
        except StudioError as err:
            log.error("the integrity check of %s was not journalled: %s", checked.ts, err)
        else:
            self._host.notify(report(self._table, checked))
            if checked.differences:
                log.error("software or configuration differs: %s", "; ".join(checked.differences))
        if self._integrity_timer is not None:
            self._integrity_timer.cancel()
        due = self._schedule.next_due()
        if due is not None and self._loop is not None and not self._stopping:
            delay = max(0.0, (due - self._host.clock.now()).total_seconds())
            self._integrity_timer = self._loop.call_later(delay, self._integrity_due)

    def _integrity_due(self) -> None:
        self._integrity_timer = None
        if self._schedule.due(self._host.clock.now()):
            self._check("schedule")

    # -- the clock -------------------------------------------------------------------------------

    def before_input(self) -> None:
        """Look for a clock step before an input, and journal one (a pause).

        An input stamped by a stepped clock must not move the timers before the pause does.
        The clock's own watch (`_watch_clock`) looks the same way between inputs.
        """
        clock = self._host.clock
        step = self.clock_watch.observe(clock.now(), clock.monotonic())
        if step is not None:
            self._alarm(
                "clock_step",
                f"the wall clock stepped {step.seconds * 1000:+.0f} ms against the monotonic "
                f"clock (bound {self._config.clock.step_bound_ms:g} ms): it read "
                f"{clock.now().isoformat()} where {step.expected.isoformat()} was due",
                step.expected,
            )

    def _watch_clock(self) -> None:
        """Compare the wall clock with the monotonic one (and ask the kernel); re-arm."""
        self._clock_timer = None
        self.before_input()  # the same look as before an input
        if self._config.clock.require_sync:
            unsynchronised = kernel_synchronised() is False
            if unsynchronised and not self._unsynchronised:
                self._alarm(
                    "clock_unsynchronised",
                    "the kernel reports the clock unsynchronised (adjtimex: TIME_ERROR): "
                    "no time daemon disciplines it",
                    self._host.clock.now(),
                )
            self._unsynchronised = unsynchronised
        if self._loop is not None and not self._stopping:
            self._clock_timer = self._loop.call_later(
                self._config.clock.check_seconds, self._watch_clock
            )

    def _alarm(self, cause: AlarmCause, detail: str, at: datetime) -> None:
        """Journal an alarm of the shell (it pauses the table), or log it if refused."""
        log.error("%s: %s", cause, detail)
        try:
            self._host.submit(AlarmRaised(ts=at, cause=cause, detail=detail))
        except StudioError as err:
            log.error("the %s alarm was not journalled: %s", cause, err)
