"""`TableMetrics`: a table's Prometheus figures, kept by watching what the runtime already does.

The metrics never reach into the controller: they observe the events the runtime publishes
(rounds, voids, incidents, commands by role), the table's view after each input (paused, device
health), the publisher's subscriptions, and the stopwatch laps the runtime takes around each
card's stages. Each table has its own `CollectorRegistry`, so two tables in one process (a test,
a bench) never mix their figures, and every series carries the `table` label.

Stages of a card (`studio_card_stage_seconds{stage=...}`):

- `shoe_to_input`: from the shoe reader handing the card over to the loop taking it;
- `controller`: the controller deciding what the card means (before anything is written);
- `journal_commit`: the card's input and its events made durable in the journal (one fsync);
- `publish`: its events handed to the public and restricted streams.

Some figures are counts the runtime's parts keep themselves (the shoe reader's damaged frames by
kind, the clock watch's steps, the journal guard's failures and refusals): `read_figures` gives
a function that returns them as `RuntimeFigures`, read at each scrape.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from prometheus_client import CollectorRegistry, Counter, Enum, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from studio.bus.publisher import StreamName
from studio.journal.recorder import Controller
from studio.messages import CardDrawn, Envelope, Input
from studio.messages.view import TableView

Stage = Literal["shoe_to_input", "journal_commit", "controller", "publish"]
"""The stages of a card's way through the table, in order."""
STAGES: tuple[Stage, ...] = ("shoe_to_input", "journal_commit", "controller", "publish")
DEVICE_STATES = ["ok", "fault", "silent"]
"""What `device_health_changed` may say of a device (the `studio_device_health` states)."""
STAGE_BUCKETS = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds: a card's stages take well under a millisecond to some hundreds on a slow disk."""


@dataclass(frozen=True)
class RuntimeFigures:
    """Counts the runtime's parts keep, as they stand at a scrape (see the module docstring).

    `damaged_frames` maps a kind of damage (`crc`, `outside_frame`, ...) to the frames the shoe
    reader saw damaged so; `clock_steps` counts wall-clock steps; `journal_failures` the journal
    faults begun, `journal_refused` the inputs refused meanwhile; `journal_unwritable` whether
    one lasts now.
    """

    damaged_frames: Mapping[str, int]
    clock_steps: int
    journal_failures: int
    journal_refused: int
    journal_unwritable: bool


class _FigureCollector(Collector):
    """Turns `RuntimeFigures` into series at each scrape (from the HTTP server's thread)."""

    def __init__(self, table: str, read: Callable[[], RuntimeFigures]) -> None:
        self._table = table
        self._read = read

    def describe(self) -> Iterator[Metric]:
        # Describing without reading: the figures' source may not be ready at registration.
        return self._families(None)

    def collect(self) -> Iterator[Metric]:
        return self._families(self._read())

    def _families(self, figures: RuntimeFigures | None) -> Iterator[Metric]:
        t = self._table
        damaged = CounterMetricFamily(
            "studio_shoe_damaged_frames",
            "Frames from the shoe that arrived damaged (repaired by retransmission), by kind",
            labels=("table", "kind"),
        )
        steps = CounterMetricFamily(
            "studio_clock_steps",
            "Steps of the wall clock against the monotonic one",
            labels=["table"],
        )
        failures = CounterMetricFamily(
            "studio_journal_failures", "Journal faults begun (writes that failed)", labels=["table"]
        )
        refused = CounterMetricFamily(
            "studio_journal_refused_inputs",
            "Inputs refused while the journal could not be written",
            labels=["table"],
        )
        unwritable = GaugeMetricFamily(
            "studio_journal_unwritable", "1 while the journal cannot be written", labels=["table"]
        )
        if figures is not None:
            for kind, count in sorted(figures.damaged_frames.items()):
                damaged.add_metric([t, kind], count)
            steps.add_metric([t], figures.clock_steps)
            failures.add_metric([t], figures.journal_failures)
            refused.add_metric([t], figures.journal_refused)
            unwritable.add_metric([t], 1 if figures.journal_unwritable else 0)
        yield from (damaged, steps, failures, refused, unwritable)


class TableMetrics:
    """The figures of one table (see the module docstring); `registry` holds them.

    Every method is called from the loop's thread except `collect` through the registry, which
    prometheus_client makes safe to call from the HTTP server's threads.
    """

    def __init__(self, table: str) -> None:
        self.table = table
        self.registry = CollectorRegistry(auto_describe=True)
        labels = ("table",)
        self._stages = Histogram(
            "studio_card_stage_seconds",
            "Seconds each card spent in each stage of the table",
            (*labels, "stage"),
            buckets=STAGE_BUCKETS,
            registry=self.registry,
        )
        self._rounds = Counter(
            "studio_rounds", "Rounds ended with a result", labels, registry=self.registry
        )
        self._voids = Counter("studio_voids", "Rounds voided", labels, registry=self.registry)
        self._incidents = Counter(
            "studio_incidents",
            "Incidents reported, by kind",
            (*labels, "kind"),
            registry=self.registry,
        )
        self._commands = Counter(
            "studio_commands",
            "Commands decided, by the caller's role and the outcome (accepted or refused)",
            (*labels, "role", "outcome"),
            registry=self.registry,
        )
        self._events = Counter(
            "studio_events",
            "Events published (public and restricted)",
            labels,
            registry=self.registry,
        )
        self._paused = Gauge(
            "studio_paused", "1 while the table is paused", labels, registry=self.registry
        )
        self._health = Enum(
            "studio_device_health",
            "Each device's health as the table last saw it",
            (*labels, "device"),
            states=DEVICE_STATES,
            registry=self.registry,
        )
        self._subscribers = Gauge(
            "studio_subscribers",
            "Subscriptions open on each stream",
            (*labels, "stream"),
            registry=self.registry,
        )
        # A stage seen zero times is a figure too: the series exist from the start. Kept, so
        # that a card's laps skip the label lookup (its lock and checks) on the loop's path.
        self._stage_series = {stage: self._stages.labels(table, stage) for stage in STAGES}
        self._rounds.labels(table)
        self._voids.labels(table)
        self._events.labels(table)
        self._controller_seconds = 0.0

    def stage(self, stage: Stage, seconds: float) -> None:
        """Record that one card spent `seconds` in `stage`."""
        self._stage_series[stage].observe(max(0.0, seconds))

    def timed(self, controller: Controller) -> Controller:
        """`controller` with each `handle` timed, for `applied` to split journal from controller."""
        return _TimedController(controller, self)

    def controller_ran(self, seconds: float) -> None:
        """Add `seconds` the controller spent on the input being applied (see `timed`)."""
        self._controller_seconds += seconds

    def applied(self, inp: Input, apply_seconds: float) -> None:
        """One input was journalled and applied in `apply_seconds` (the controller's part inside).

        Only cards are timed by stage; other inputs (ticks, commands) are not a card's latency.
        """
        controller, self._controller_seconds = self._controller_seconds, 0.0
        if isinstance(inp, CardDrawn):
            self.stage("journal_commit", apply_seconds - controller)
            self.stage("controller", controller)

    def published(self, events: Iterable[Envelope]) -> None:
        """Count what the published `events` say: rounds, voids, incidents, commands."""
        count = 0
        for event in events:
            count += 1
            body = event.body
            match event.type:
                case "round_result":
                    self._rounds.labels(self.table).inc()
                case "round_voided":
                    self._voids.labels(self.table).inc()
                case "incident_reported":
                    self._incidents.labels(self.table, str(body.get("kind"))).inc()
                case "command_accepted" | "command_rejected":
                    outcome = "accepted" if event.type == "command_accepted" else "refused"
                    self._commands.labels(self.table, str(body.get("role")), outcome).inc()
        self._events.labels(self.table).inc(count)

    def on_event(self, event: Envelope) -> None:
        """Count one published event (the runtime's listener hook)."""
        self.published((event,))

    def view(self, view: TableView) -> None:
        """Take the paused flag and each device's health from the table's latest view."""
        self._paused.labels(self.table).set(1 if view.paused else 0)
        for device, status in view.devices.items():
            if status in DEVICE_STATES:
                self._health.labels(self.table, device).state(status)

    def read_figures(self, read: Callable[[], RuntimeFigures]) -> None:
        """Serve the figures `read` returns at each scrape (call once; any thread may scrape)."""
        self.registry.register(_FigureCollector(self.table, read))

    def subscribers(self, counts: Mapping[StreamName, int]) -> None:
        """Set the number of subscriptions open on each stream."""
        for stream, count in counts.items():
            self._subscribers.labels(self.table, stream).set(count)


class _TimedController:
    """A controller whose `handle` adds its duration to the metrics' pending controller time."""

    def __init__(self, inner: Controller, metrics: TableMetrics) -> None:
        self._inner = inner
        self._metrics = metrics

    def handle(self, inp: Input, /) -> list[Envelope]:
        started = time.perf_counter()
        try:
            return self._inner.handle(inp)
        finally:
            # `controller_ran`, inline (this module's own figure): on every card's way.
            self._metrics._controller_seconds += time.perf_counter() - started
