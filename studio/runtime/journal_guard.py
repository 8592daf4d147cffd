"""The journal's fault latch: what a table does while its journal cannot be written.

Nothing may be acted on without its record. When a write fails (a full filesystem, a file-size
limit, a read-only remount) the table therefore refuses every input until the journal takes
writes again: a framed shoe's card is not acknowledged, so the shoe keeps it and sends it again;
a command is answered with the reason. The fault cannot be journalled while it lasts, so it is
said on the restricted stream (a `JournalAlarm` marked as not journalled) and in the log; the
runtime retries every `RETRY_SECONDS`, and on the first write that succeeds journals the fault as
an `AlarmRaised` input, which pauses the table until a shift manager resumes it. An input and its
events are written in one transaction (`RecordedTable.step`), so a failed write leaves nothing of
them to store later; the controller, which had applied the input, is rebuilt from the journal
before the alarm applies.

`JournalGuard` holds that state and makes the notices and the input; the runtime does the I/O.
`CardGate` keeps a framed shoe's deliveries in order around the refusals.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from drivers.shoe.readings import Receipt
from studio.messages import AlarmRaised
from studio.messages.notices import JournalAlarm
from studio.messages.view import IncidentView, ResumeBlocker, TableView

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0
"""How often a table whose journal failed tries to write again."""


@dataclass(slots=True)
class JournalFault:
    """A journal failure in progress: since when, what failed, how many inputs were refused."""

    since: datetime
    detail: str
    refused: int = 0


@dataclass(slots=True)
class JournalCounters:
    """Figures for the metrics: failures begun, inputs refused, recoveries (never reset)."""

    failures: int = 0
    refused: int = 0
    recovered: int = 0


class JournalGuard:
    """The latch of one table's journal faults (see the module docstring). Loop thread only."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.fault: JournalFault | None = None
        self.counters = JournalCounters()

    @property
    def faulted(self) -> bool:
        """Whether the journal has failed and not yet taken a write again."""
        return self.fault is not None

    def tripped(self, err: BaseException, now: datetime) -> JournalAlarm | None:
        """Note a failed write at `now`; return the alarm to publish when a fault begins.

        A failure while already faulted (a retry) returns None: the alarm was said once.
        """
        began = self.fault is None
        if self.fault is None:
            self.fault = JournalFault(since=now, detail=str(err))
            self.counters.failures += 1
            log.error("journal not writable: %s; the table refuses every input until it is", err)
        return self._alarm("unwritable", now) if began else None

    def refused(self) -> str:
        """Count one input refused because of the fault; return the reason to give."""
        assert self.fault is not None
        self.fault.refused += 1
        self.counters.refused += 1
        return f"the journal is not writable ({self.fault.detail}): nothing is acted on"

    def alarm_input(self, now: datetime) -> AlarmRaised:
        """The input that journals the fault once the journal takes writes (it pauses the table)."""
        fault = self.fault
        assert fault is not None
        seconds = (now - fault.since).total_seconds()
        detail = (
            f"the journal could not be written for {seconds:.1f} s from "
            f"{fault.since.isoformat()} ({fault.detail}); {fault.refused} input(s) were refused "
            "meanwhile (a framed shoe sends its cards again; a barcode line's are lost)"
        )
        # Stamped when the fault began: the table pauses with its timers as they stood then, so
        # no betting or decision window closes on time that passed with nothing on record.
        return AlarmRaised(ts=fault.since, cause="journal_unwritable", detail=detail)

    def overlay(self, view: TableView) -> TableView:
        """`view` as clients must see it: paused, with the fault and what clears it, while faulted.

        The controller cannot pause on a fault it cannot journal, so its view still says
        running; a person asking `studio status` must read paused instead, with the incident
        (marked not journalled) and the actions that end it. Unchanged when not faulted. Safe
        from any thread: the fault is read once.
        """
        fault = self.fault
        if fault is None:
            return view
        incident = IncidentView(
            incident=0,
            kind="journal_unwritable",
            position=None,
            cards=(),
            device="journal",
            raw="",
            detail=(
                f"the journal cannot be written since {fault.since.isoformat()}"
                f" ({fault.detail}); {fault.refused} input(s) refused meanwhile"
            ),
            journalled=False,
        )
        blocker = ResumeBlocker.of(
            "journal_unwritable",
            "the journal cannot be written: free space on its disk (or lift the file-size "
            f"limit); the table tries again every {RETRY_SECONDS:g} s, then journals the "
            "fault and a shift manager resumes (`studio command resume`)",
            device="journal",
        )
        return view.model_copy(
            update={
                "paused": True,
                "incidents": (*view.incidents, incident),
                "resume_blockers": (blocker.words, *view.resume_blockers),
                "blockers": (blocker, *view.blockers),
            }
        )

    def cleared(self, now: datetime) -> JournalAlarm:
        """The journal took a write at `now`: clear the latch; return the notice that says so."""
        notice = self._alarm("writable", now)
        assert self.fault is not None
        log.warning(
            "journal writable again after %.1f s (%d input(s) refused): a shift manager resumes",
            (now - self.fault.since).total_seconds(),
            self.fault.refused,
        )
        self.fault = None
        self.counters.recovered += 1
        return notice

    def _alarm(self, state: str, now: datetime) -> JournalAlarm:
        assert self.fault is not None
        return JournalAlarm.model_validate(
            {
                "table": self.table,
                "ts": now,
                "state": state,
                "detail": self.fault.detail,
                "since": self.fault.since,
                "refused": self.fault.refused,
            }
        )


class CardGate:
    """Keeps a framed shoe's deliveries in order around refused ones (loop thread only).

    After a refusal the reader is rewound and the shoe sends the frames again, but a delivery
    the reader queued before the rewind may still be waiting: a frame at or before the last one
    put on record is a duplicate (acknowledged again, not applied), and a frame past the next
    one is early (refused: the shoe sends it again in its turn).
    """

    def __init__(self) -> None:
        self.last: Receipt | None = None

    def verdict(self, receipt: Receipt | None) -> Literal["apply", "duplicate", "early"]:
        """What to do with a delivery whose frame is `receipt`: apply, duplicate or early."""
        last = self.last
        if receipt is None or last is None or receipt.session != last.session:
            return "apply"
        ahead = (receipt.seq - last.seq) & 0xFFFF
        if ahead == 0 or ahead >= 0x8000:
            return "duplicate"
        return "apply" if ahead == 1 else "early"

    def committed(self, receipt: Receipt | None) -> None:
        """`receipt`'s delivery is on record."""
        if receipt is not None:
            self.last = receipt
