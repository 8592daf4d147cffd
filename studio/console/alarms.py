"""Alarms that reach a person: each new incident to a webhook, de-duplicated and escalated.

`AlarmPolicy` is pure (time is an argument): fed each table's restricted view, it says which
notices to send. A fault is known by its table, kind and where it struck (position or device):

- a new fault is sent at once;
- the same fault again while the table is still paused (a repeat: a new incident of the same
  kind at the same place) is not sent again until `escalate_seconds` have passed since the last
  notice of it; then it goes once more, marked as an escalation, and so every
  `escalate_seconds` while the table stays paused and nobody has acknowledged it;
- a table that resumes (or is voided) clears its faults: the next one is new again;
- an acknowledgement stops the escalation of that table's faults.

`WebhookSender` POSTs each notice as JSON (`AlarmNotice`) with aiohttp; a failure is logged and
kept as `last_error`, never raised into the console.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

import aiohttp
from pydantic import BaseModel, ConfigDict

from studio.messages.view import TableView

log = logging.getLogger(__name__)


class AlarmNotice(BaseModel):
    """What the webhook receives, as JSON."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str
    incident: int
    kind: str
    position: str | None
    device: str | None
    detail: str
    game_number: str | None
    notice: Literal["new", "escalation"]
    sent_at: datetime


@dataclass
class _Fault:
    first: datetime
    last_sent: datetime


@dataclass
class AlarmPolicy:
    """Decides which alarm notices go out (see the module docstring)."""

    escalate_seconds: float = 300.0
    _faults: dict[tuple[str, str, str], _Fault] = field(default_factory=dict)
    _acknowledged: set[str] = field(default_factory=set)

    def observe(self, view: TableView, now: datetime) -> list[AlarmNotice]:
        """The notices to send for `view` (a restricted view) at `now`."""
        table = view.table
        if not view.paused:
            self._faults = {k: v for k, v in self._faults.items() if k[0] != table}
            self._acknowledged.discard(table)
            return []
        notices: list[AlarmNotice] = []
        for incident in view.incidents:
            key = (table, incident.kind, incident.position or incident.device or "")
            fault = self._faults.get(key)
            kind: Literal["new", "escalation"] | None = None
            if fault is None:
                self._faults[key] = _Fault(now, now)
                kind = "new"
            elif (
                table not in self._acknowledged
                and (now - fault.last_sent).total_seconds() >= self.escalate_seconds
            ):
                fault.last_sent = now
                kind = "escalation"
            if kind is not None:
                notices.append(
                    AlarmNotice(
                        table=table,
                        incident=incident.incident,
                        kind=incident.kind,
                        position=incident.position,
                        device=incident.device,
                        detail=incident.detail,
                        game_number=view.game_number,
                        notice=kind,
                        sent_at=now,
                    )
                )
        return notices

    def acknowledge(self, table: str) -> None:
        """Stop escalating `table`'s current faults (a manager has them in hand)."""
        self._acknowledged.add(table)

    def acknowledged(self, table: str) -> bool:
        """Whether the table's current faults have been acknowledged."""
        return table in self._acknowledged


class WebhookSender:
    """POST alarm notices as JSON to `url` (one aiohttp session; `close()` it on shutdown)."""

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        """Post to `url`; nothing is sent until `send`."""
        self.url = url
        self._timeout = aiohttp.ClientTimeout(total=timeout)
        self._session: aiohttp.ClientSession | None = None
        self.sent = 0
        self.last_error: str | None = None

    async def send(self, notice: AlarmNotice) -> bool:
        """Post one notice; True when the receiver answered 2xx (else logged, kept, False)."""
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self._timeout)
        try:
            async with self._session.post(
                self.url,
                data=notice.model_dump_json(),
                headers={"Content-Type": "application/json"},
            ) as reply:
                if 200 <= reply.status < 300:
                    self.sent += 1
                    self.last_error = None
                    return True
                self.last_error = f"webhook answered HTTP {reply.status}"
        except (aiohttp.ClientError, TimeoutError) as err:
            self.last_error = f"webhook unreachable: {err or type(err).__name__}"
        log.warning("alarm for table %s not delivered: %s", notice.table, self.last_error)
        return False

    async def close(self) -> None:
        """Close the HTTP session (idempotent)."""
        if self._session is not None:
            await self._session.close()
            self._session = None
