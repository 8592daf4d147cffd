"""Earlier forms of a card's way, for `card_steps.py --alternate`.

`halved`: main's card path before its calls were halved (bda3a04). Three parts of a card's way
were rewritten to make half the Python calls: the publisher's framing (`EventPublisher.frame`),
the recorder's decision with its JSON texts (`RecordedTable.decide`) and the journal's append
(`Journal.append_input`). Their earlier form is kept here, call for call.

`prepared`: the controller before the prepared next card (`studio.controller.prepared`):
`TableController.handle` as it was, every card taking the ordinary way (what `prepare` made is
dropped unused).

One process can so run two forms card by card, alternating: both meet the same load, the same
disk and the same cold caches, which separate runs do not on a shared machine. Each writes the
same bytes as the current form (tests/test_runtime_frames.py pins them), so the table behaves
the same whichever form a card takes.

    swap(old=True, parts="prepared")   # the next card takes the earlier form; old=False: today's
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from studio.bus.publisher import EventPublisher, FramedEvents, _checked, _routes
from studio.bus.wire import EnvelopeLike
from studio.controller import TableController
from studio.errors import JournalError
from studio.journal.chain import Record, canonical_json
from studio.journal.database import COLUMNS
from studio.journal.recorder import (
    Decision,
    RecordedTable,
    StoredEvent,
    _utc_text,
    input_json,
)
from studio.journal.store import Journal
from studio.messages import (
    Envelope,
    Input,
)


def frame(self: EventPublisher, events: Sequence[EnvelopeLike]) -> FramedEvents:
    """Main's `EventPublisher.frame`: each check, route and frame by its helper."""
    wires = tuple(self._own(event) for event in events)
    routes = tuple(_routes(wire) for wire in wires)
    if self._thread is not None:
        return FramedEvents(wires, routes, self._last_seq, self._last_seq, ())
    self._check_owner()
    last = _checked(list(wires), self._last_seq)
    return FramedEvents(wires, routes, self._last_seq, last, self._frames(wires, routes))


def event_json(event: Envelope) -> str:
    """Main's `event_json`: the time written per event, `canonical_json` through its method."""
    stamp = _utc_text(event.ts)
    if stamp is not None:
        try:
            return canonical_json(
                {
                    "audience": event.audience,
                    "body": event.body,
                    "game_number": event.game_number,
                    "schema_version": event.schema_version,
                    "seq": event.seq,
                    "table": event.table,
                    "ts": stamp,
                    "type": event.type,
                }
            )
        except (TypeError, ValueError):
            pass
    return canonical_json(event.model_dump(mode="json"))


def decide(self: RecordedTable, inp: Input) -> Decision:
    """Main's `RecordedTable.decide`: the input as a dict (encoded by the journal), named tuples."""
    if self.ahead:
        raise JournalError(f"{self.journal.path}: the controller holds an unrecorded input")
    data = input_json(inp)
    events: list[StoredEvent] = []
    numbers: list[dict[str, Any]] = []
    for envelope in self.controller.handle(inp):
        events.append(StoredEvent(envelope, event_json(envelope)))
        numbers.append({"seq": envelope.seq, "game_number": envelope.game_number})
    self.ahead = True
    # Main's `record` listed the bodies (a comprehension); the current one takes this list.
    decision = Decision(data, events, numbers, [body for _, body in events])  # type: ignore[arg-type]
    self._pending = decision
    return decision


def append_input(
    self: Journal,
    data: Mapping[str, Any] | str,
    *,
    events: Sequence[Mapping[str, Any]] = (),
    bodies: Sequence[str] | None = None,
) -> Record:
    """Main's `Journal.append_input`: `_chain` per record, `_write` in a `_Transaction`."""
    record = self._chain(
        self._head_id + 1, "input", self._inputs + 1, None, None, None, data, self._prev()
    )
    records = [record]
    records += self._event_records(events, bodies, record.id, record.hash, record.seq)
    db = self._db()
    old = f"{self._head_id}:{self._head_hash}"
    new = f"{records[-1].id}:{records[-1].hash}"
    with self._transaction():
        moved = db.execute(
            "UPDATE meta SET value = ? WHERE key = 'head' AND value = ?", (new, old)
        ).rowcount
        if moved != 1:
            raise JournalError(f"{self.path}: the journal's head moved")
        db.executemany(
            f"INSERT INTO records ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (r.id, r.kind, r.seq, r.game_number, r.cause, r.batch, r.body, r.prev, r.hash)
                for r in records
            ],
        )
    self._head_id, self._head_hash = records[-1].id, records[-1].hash
    self._inputs = record.seq
    if events:
        self._events = records[-1].seq
    return record


_HANDLE = TableController.handle
"""Today's `handle`, as imported: the earlier form is it with what `prepare` made dropped."""


def handle(self: TableController, inp: Input) -> list[Envelope]:
    """`TableController.handle` before the prepared next card: the ordinary way for every input.

    Today's `handle` with no preparation to take: what `prepare` made after the previous card
    is dropped unused, so the card walks the source, the dealing and the publishing as before
    (the one difference, `handle`'s test of its preparation, is an attribute read).
    """
    self._ready = None
    return _HANDLE(self, inp)


Parts = Literal["halved", "prepared"]
"""Which earlier form `swap` puts in (see the module docstring)."""

FORMS: dict[Parts, tuple[dict[tuple[Any, str], Any], dict[tuple[Any, str], Any]]] = {
    # (today's, the earlier form)
    "halved": (
        {
            (EventPublisher, "frame"): EventPublisher.frame,
            (RecordedTable, "decide"): RecordedTable.decide,
            (Journal, "append_input"): Journal.append_input,
        },
        {
            (EventPublisher, "frame"): frame,
            (RecordedTable, "decide"): decide,
            (Journal, "append_input"): append_input,
        },
    ),
    "prepared": (
        {(TableController, "handle"): _HANDLE},
        {(TableController, "handle"): handle},
    ),
}


def swap(*, old: bool, parts: Parts = "halved") -> None:
    """Have the next card take the earlier form of `parts` (`old`) or today's."""
    for (owner, name), function in FORMS[parts][old].items():
        setattr(owner, name, function)
