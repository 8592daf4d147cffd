"""How `studio watch` prints a followed stream: the `now:` line, each event once, silences.

`snapshot_line` is the table's state in one line; `WatchLog` prints a `Subscriber`'s events in
words (`studio.commands.words`) or as JSON and says when the table falls silent or is heard
again. Apart from `studio.commands.watch` so that `studio watch --help` loads none of this.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from studio.bus import Subscriber
from studio.commands.words import describe, describe_notice
from studio.errors import BusError
from studio.messages.notices import AnyNotice
from studio.messages.view import IncidentView, TableView

POLL = 0.25
"""Seconds between two looks at the silence while no event comes."""
PAIRED = frozenset({"card_dealt", "card_corrected", "card_discarded"})
"""Event types the table sends twice, public copy then restricted copy (a card's value)."""


def snapshot_line(view: TableView) -> str:
    """The table's state in one line: what a watcher joining now needs before the events."""
    state = "PAUSED" if view.paused else "running"
    parts = [
        f"{state}, phase {view.phase}, light {view.light or '-'}",
        f"round {view.game_number or '-'}, at event #{view.seq}",
    ]
    if view.cards:
        cards = " ".join(
            f"{c.position}={c.code or ('face down' if not c.face_up else 'unreadable')}"
            for c in view.cards
        )
        parts.append(f"cards {cards}")
    if view.window is not None:
        parts.append(f"{view.window.name} window open")
    parts.extend(_incident(i) for i in view.incidents)
    devices = ", ".join(f"{d} {h}" for d, h in sorted(view.devices.items()))
    if devices:
        parts.append(f"devices {devices}")
    return "; ".join(parts)


def _incident(incident: IncidentView) -> str:
    if not incident.journalled:
        return f"incident {incident.kind} (not journalled)"
    return f"incident #{incident.incident} {incident.kind}"


class WatchLog:
    """Prints a followed stream: each event once, and when the table falls silent or returns.

    On the restricted stream a card's event comes twice, public copy (value hidden) then the
    restricted one: the words show only the restricted copy (`--json` prints every envelope, as
    the journal holds them).
    """

    def __init__(self, table: str, *, as_json: bool, silence: float) -> None:
        self.table = table
        self._json = as_json
        self._silence = silence
        self._held: dict[str, Any] | None = None
        self._shown = 0
        self._silent_since: float | None = None

    def follow(self, sub: Subscriber, *, count: int | None, timeout: float | None) -> int:
        """Print until `count` events are shown (0) or none came for `timeout` seconds (1)."""
        last_event = time.monotonic()
        while count is None or self._shown < count:
            try:
                event = sub.receive(timeout=POLL if timeout is None else min(POLL, timeout))
            except BusError as err:
                print(f"studio watch: {err}", file=sys.stderr, flush=True)
                continue
            now = time.monotonic()
            self._heard(sub.last_heard, now)
            for notice in sub.notices():
                self._notice(notice)
            if event is None:
                self._flush()
                if timeout is not None and now - last_event >= timeout:
                    return 1
                continue
            last_event = now
            self._take(json.loads(event.payload), count)
        return 0

    def _heard(self, heard: float, now: float) -> None:
        if self._silent_since is None and now - heard >= self._silence:
            self._silent_since = heard
            self._say(
                f"-- no heartbeat from table {self.table} for {now - heard:.1f} s: "
                "the table or the link is down"
            )
        elif self._silent_since is not None and heard > self._silent_since:
            self._say(f"-- table {self.table} heard again after {heard - self._silent_since:.1f} s")
            self._silent_since = None

    def _notice(self, notice: AnyNotice) -> None:
        # Notices are not envelopes: with --json they go to stderr, as the silence notices do.
        self._say(describe_notice(notice))

    def _say(self, line: str) -> None:
        # JSON lines stay envelopes only: the notice goes to stderr there.
        print(line, file=sys.stderr if self._json else sys.stdout, flush=True)

    def _take(self, envelope: dict[str, Any], count: int | None) -> None:
        if self._json:
            self._print(envelope)
            return
        held, self._held = self._held, None
        if held is not None:
            twin = (
                envelope.get("audience") == "restricted"
                and envelope.get("type") == held.get("type")
                and envelope.get("seq") == held.get("seq", 0) + 1
            )
            if not twin:
                self._print(held)
                if count is not None and self._shown >= count:
                    return
        if envelope.get("audience") == "public" and envelope.get("type") in PAIRED:
            self._held = envelope
        else:
            self._print(envelope)

    def _flush(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            self._print(held)

    def _print(self, envelope: dict[str, Any]) -> None:
        print(json.dumps(envelope) if self._json else describe(envelope), flush=True)
        self._shown += 1
