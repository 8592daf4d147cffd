"""`TableLink`: one table followed by the console, in its own thread, reconnecting on its own.

It follows the table's restricted stream with the console's key (or, through `studio proxy`, its
public stream: a `Subscriber` either way, lossless, gaps fetched from the replay service) and,
after each batch of events, asks the replay service for the table's `TableView` twice: public
(the only one the dealer display ever gets) and restricted (for a shift manager); a view older
than the last event received is asked for again until it has caught up. Each change is
handed to `on_update` (from the link's thread). When the table stops answering, the link says so
(`reachable` False) and retries; it then continues from the last event it had, so the recall and
counts have no gap and no repeat.

While the table is paused for incidents at a position, the link also asks the replay service for
that zone as the camera sees it (`ReplayClient.crop`), when the incident appears and again every
`CROP_SECONDS` while it stands (the dealer may still be laying the card down), keeping a crop only
when its picture changed. A table without a camera answers with an error and has no crops.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from studio.bus.keys import KeyPair
from studio.bus.replay import ReplayClient, ZoneCrop
from studio.bus.subscriber import ReplayTarget, Subscriber
from studio.closing import Closing
from studio.console.history import RoundBook
from studio.errors import BusTimeoutError, StudioError
from studio.messages import Envelope
from studio.messages.view import TableView

log = logging.getLogger(__name__)

RETRY_SECONDS = 0.5
"""Seconds between attempts to reach a table that went away."""

CROP_SECONDS = 2.0
"""How often the crop of a standing incident's zone is asked for again."""

RECALL_BACKLOG = 3000
"""Events read back from the replay service at start, to fill the recall of the last rounds."""


@dataclass(frozen=True)
class TableAddress:
    """Where one table's stream, replay service and command channel are, and its key.

    `stream` is the table's restricted stream (`stream_key` None: its CURVE key is the table's
    `server_key`) or, with `public_stream`, a plain public stream such as a proxy's frontend.
    """

    table: str
    stream: str
    replay: str
    commands: str
    server_key: bytes
    public_stream: bool = False


@dataclass(frozen=True)
class TableState:
    """What the console knows of a table now: both views, reachability, when it last spoke.

    `crops` holds, by incident number, the camera's crop of each standing incident's zone (for
    restricted readers only: it may show a face-down card's face). `acknowledged_by` is who the
    table recorded as acknowledging the alarm of the pause now standing (its `acknowledge_alarm`
    command, from this console or any other client; None: nobody yet, or not paused).
    """

    table: str
    reachable: bool
    public: TableView | None
    restricted: TableView | None
    last_event: datetime | None
    crops: Mapping[int, ZoneCrop] = field(default_factory=dict)
    acknowledged_by: str | None = None


class TableLink(Closing):
    """Follow one table (see the module docstring); `close()` stops the thread (idempotent)."""

    def __init__(
        self,
        address: TableAddress,
        keys: KeyPair,
        on_update: Callable[[TableState], None],
        *,
        timeout: float = 1.0,
    ) -> None:
        """Start following `address` with the console's `keys`; nothing raises here."""
        self.address = address
        self.book = RoundBook()
        self._keys = keys
        self._on_update = on_update
        self._timeout = timeout
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._state = TableState(address.table, False, None, None, None)
        self._last_seq = 0
        self._acknowledged_by: str | None = None
        self._crops: dict[int, ZoneCrop] = {}
        self._crop_asked: dict[int, float] = {}
        self._thread = threading.Thread(target=self._run, name=f"console-{address.table}")
        self._thread.start()

    @property
    def state(self) -> TableState:
        """The latest state (thread-safe)."""
        with self._lock:
            return self._state

    def _publish(self, state: TableState) -> None:
        with self._lock:
            self._state = state
        try:
            self._on_update(state)
        except Exception:
            log.exception("console update listener failed")

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._follow()
            except StudioError as err:
                log.info("table %s unreachable: %s", self.address.table, err)
            except Exception:
                log.exception("table %s: link failed", self.address.table)
            if self._stop.is_set():
                return
            previous = self.state
            if previous.reachable or previous.public is None:
                self._publish(
                    TableState(
                        self.address.table,
                        False,
                        previous.public,
                        previous.restricted,
                        previous.last_event,
                        previous.crops,
                        previous.acknowledged_by,
                    )
                )
            self._stop.wait(RETRY_SECONDS)

    def _follow(self) -> None:
        address = self.address
        with ReplayClient(
            address.replay,
            client_keys=self._keys,
            server_key=address.server_key,
            timeout=self._timeout,
        ) as replay:
            view = replay.view(audience="restricted")
            if self._last_seq == 0:
                self._last_seq = max(0, view.seq - RECALL_BACKLOG)
            with Subscriber(
                address.stream,
                {address.table: ReplayTarget(address.replay, address.server_key)},
                audience="public" if address.public_stream else "restricted",
                client_keys=self._keys,
                stream_server_key=None if address.public_stream else address.server_key,
                after={address.table: self._last_seq},
                replay_timeout=self._timeout,
            ) as sub:
                self._refresh(replay, None)
                silent_since = time.monotonic()
                while not self._stop.is_set():
                    event = sub.receive(timeout=0.2)
                    if event is None:
                        known = self.state.restricted
                        if known is not None and known.seq < self._last_seq:
                            # The view was taken before the table had applied the last events
                            # (they reach the stream first): ask again, or the screens would
                            # show the older state until the table's next event.
                            self._refresh(replay, None)
                        elif self._update_crops(replay, known):
                            self._publish(replace(self.state, crops=dict(self._crops)))
                        # Heartbeats keep a live table's stream busy; silence means it is gone.
                        if time.monotonic() - silent_since > 3 * self._timeout:
                            replay.view(audience="public")  # raises when the table is away
                            silent_since = time.monotonic()
                        continue
                    silent_since = time.monotonic()
                    last = event.envelope.ts
                    self._take(event.envelope)
                    self._last_seq = event.seq
                    # Take every event already queued before asking for the view once.
                    while (more := sub.receive(timeout=0)) is not None:
                        self._take(more.envelope)
                        self._last_seq = more.seq
                        last = more.envelope.ts
                    self._refresh(replay, last)

    def _take(self, envelope: Envelope) -> None:
        """One event into the recall, and into who acknowledged the standing pause's alarm."""
        self.book.add(envelope)
        if envelope.type in ("round_resumed", "round_voided"):
            self._acknowledged_by = None  # that pause is over
        elif envelope.type == "command_accepted" and envelope.body.get("command") == (
            "acknowledge_alarm"
        ):
            self._acknowledged_by = str(envelope.body.get("actor"))

    def _refresh(self, replay: ReplayClient, last: datetime | None) -> None:
        restricted = replay.view(audience="restricted")
        public = replay.view(audience="public")
        seen = last or self.state.last_event or restricted.now or datetime.now(UTC)
        self._update_crops(replay, restricted)
        if not restricted.paused:
            self._acknowledged_by = None
        state = TableState(self.address.table, True, public, restricted, seen, dict(self._crops))
        self._publish(replace(state, acknowledged_by=self._acknowledged_by))

    def _update_crops(self, replay: ReplayClient, view: TableView | None) -> bool:
        """Ask for the zone of each standing incident that is due; True when a picture changed.

        Raises BusTimeoutError when the table does not answer (the link then reconnects).
        """
        standing = {i.incident: i.position for i in view.incidents if i.position} if view else {}
        changed = any(n not in standing for n in self._crops)
        self._crops = {n: c for n, c in self._crops.items() if n in standing}
        self._crop_asked = {n: t for n, t in self._crop_asked.items() if n in standing}
        now = time.monotonic()
        for number, zone in standing.items():
            if now - self._crop_asked.get(number, -CROP_SECONDS) < CROP_SECONDS:
                continue
            self._crop_asked[number] = now
            try:
                crop = replay.crop(zone)
            except BusTimeoutError:
                raise
            except StudioError as err:
                log.debug("no crop of %s at table %s: %s", zone, self.address.table, err)
                continue
            kept = self._crops.get(number)
            if kept is None or kept.jpeg != crop.jpeg:
                self._crops[number] = crop
                changed = True
        return changed

    def close(self) -> None:
        """Stop following and join the thread."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
