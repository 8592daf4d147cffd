"""Journal before anything acts, and recovery by replay.

`RecordedTable` wraps a controller so that every input is durably journalled together with
the events it causes (`step`), before anything acts on them. `recover` rebuilds a fresh
controller from a journal: it replays the stored inputs in order, checks that the rebuilt events
equal the stored ones field for field, stores the events a crash kept from being stored (a
journal written by an earlier version, with two commits per input, whose process died between
them), and finally journals and applies a `Restarted` input so that a round in progress comes
back paused.

The journal never builds a controller itself: the shell passes in a fresh one, so this adapter
depends only on the message shapes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, NamedTuple, Protocol, cast

from pydantic import ValidationError

from studio.errors import ConfigurationError, InputError, JournalError, ReplayMismatchError
from studio.journal.chain import Record, canonical_json, canonical_parts
from studio.journal.store import Journal
from studio.journal.verify import verify
from studio.messages import CardDrawn, Envelope, Input, Restarted, TableSettings, parse_input

log = logging.getLogger(__name__)


class Controller(Protocol):
    """What the journal needs of a controller: a deterministic `handle(input) -> events`."""

    def handle(self, inp: Input, /) -> list[Envelope]:
        """Apply one input; return the events it causes, numbered after the previous ones."""
        ...


def _utc_text(ts: datetime) -> str | None:
    """`ts` as the models write a UTC time in JSON (`...T05:34:14.123456Z`); None if not UTC."""
    stamp = ts.isoformat()
    return stamp[:-6] + "Z" if stamp.endswith("+00:00") else None


CARD_FIELDS = ("ts", "schema_version", "mono", "kind", "card", "raw", "detail")
"""`CardDrawn`'s fields, which `input_json` writes by hand."""

if tuple(CardDrawn.model_fields) != CARD_FIELDS:
    raise RuntimeError("CardDrawn's fields changed: update input_json's CARD_FIELDS with them")


def input_json(inp: Input, stamp: str | None = None) -> dict[str, Any]:
    """`inp.model_dump(mode="json")`, the form the journal stores.

    A card, the input on every card's way to the streams, is written from its fields directly
    (a model dump costs several times its warm figure there); tests/test_trusted_messages.py
    holds the two equal. `stamp`, if given, is `inp.ts` as the models write it.
    """
    if type(inp) is CardDrawn and (stamp or (stamp := _utc_text(inp.ts))) is not None:
        return {
            "ts": stamp,
            "schema_version": inp.schema_version,
            "mono": inp.mono,
            "kind": inp.kind,
            "card": inp.card,
            "raw": inp.raw,
            "detail": inp.detail,
        }
    return inp.model_dump(mode="json")


def event_json(event: Envelope, stamp: str | None = None) -> str:
    """An event's canonical JSON text, as the journal stores and compares it.

    The same text as `canonical_json(event.model_dump(mode="json"))`, made from the fields
    directly: this runs for every event on a card's way to the streams, where a model dump
    costs several times its warm figure. `stamp`, if given, is `event.ts` as the models write
    it (the input's, made once for all its events). An envelope whose body holds anything but
    JSON types, or whose time is not in UTC, is dumped by the model
    (tests/test_trusted_messages.py holds the two equal).
    """
    if stamp is None:
        stamp = _utc_text(event.ts)
    if stamp is not None:
        fields = {
            "audience": event.audience,
            "body": event.body,
            "game_number": event.game_number,
            "schema_version": event.schema_version,
            "seq": event.seq,
            "table": event.table,
            "ts": stamp,
            "type": event.type,
        }
        try:
            if canonical_parts is not None:
                return "".join(canonical_parts(fields, 0))
            return canonical_json(fields)
        except (TypeError, ValueError, RecursionError):
            pass
    return canonical_json(event.model_dump(mode="json"))


def input_text(inp: Input, stamp: str | None = None) -> str:
    """`canonical_json(input_json(inp))`: the input's text as the journal stores it.

    `stamp`, if given, is `inp.ts` as the models write it. A card's text is encoded by the
    canonical encoder itself (`canonical_parts`), on every card's way before its commit.
    Raises `JournalError` for an input JSON cannot represent.
    """
    try:
        fields = input_json(inp, stamp)
        if canonical_parts is not None:
            return "".join(canonical_parts(fields, 0))
        return canonical_json(fields)
    except (TypeError, ValueError, RecursionError) as err:
        raise JournalError(f"a {inp.kind} input cannot be stored as JSON: {err}") from err


def bind_settings(journal: Journal, settings: TableSettings | None) -> TableSettings:
    """The settings the journal's table runs with, storing `settings` in a new journal.

    A journal remembers the settings it was first written with, since only the same settings
    replay to the same events. Raises `ConfigurationError` when `settings` differ from the stored
    ones, and `JournalError` when neither exist or the stored ones are unreadable.
    """
    stored = journal.meta("settings")
    if stored is None:
        if settings is None:
            raise JournalError(f"{journal.path}: the journal holds no table settings")
        journal.set_meta("settings", settings.model_dump_json())
        return settings
    try:
        known = TableSettings.model_validate_json(stored)
    except ValidationError as err:
        raise JournalError(f"{journal.path}: stored table settings are unreadable") from err
    if settings is not None and settings != known:
        raise ConfigurationError(
            f"{journal.path} was written by a table with other settings "
            f"({known.game} {known.variant}, table {known.table}; "
            f"{_differences(known, settings)}); move it away or set [journal] path to a new file"
        )
    return known


def _differences(stored: TableSettings, wanted: TableSettings) -> str:
    """Which settings differ, as `name: stored -> wanted` (the first three)."""
    old, new = stored.model_dump(mode="json"), wanted.model_dump(mode="json")
    changed = [k for k in new if old.get(k) != new.get(k)]
    shown = [f"{k}: {json.dumps(old.get(k))} -> {json.dumps(new.get(k))}" for k in changed[:3]]
    more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
    return ", ".join(shown) + more


class StoredEvent(NamedTuple):
    """An event as the journal stored it: the envelope and its canonical JSON text."""

    envelope: Envelope
    body: str


class Decision(NamedTuple):
    """What the controller decided for one input (`RecordedTable.decide`), not yet on record.

    `events` are the envelopes it caused with their canonical JSON; `data` is the input's
    canonical JSON text, `numbers` each event's `seq` and `game_number` and `bodies` each
    event's text, as the journal takes them.
    """

    data: str
    events: list[StoredEvent]
    numbers: list[dict[str, Any]]
    bodies: list[str]


# Made as the tuples they are: a named tuple's generated `__new__` is a Python call, three per card.
_stored = cast(Callable[[tuple[Envelope, str]], StoredEvent], partial(tuple.__new__, StoredEvent))
_decision = cast(Callable[[tuple[Any, ...]], Decision], partial(tuple.__new__, Decision))


class RecordedTable:
    """A controller whose every input is journalled with the events it causes, in one write.

    `step(inp)` is how every table writes (`studio run`, `studio simulate`, and the `Restarted`
    input of `recover`): the input and its events in one durable write, so the table's own
    writes never leave an input without its events. Earlier versions wrote in two commits (the
    input durably, then its events); a journal written so may end in an input whose events a
    crash kept from being stored, and `recover` still restores exactly the same history from it.
    `step` is `decide` then `record`: a caller may prepare what it will do with the events in
    between (the runtime frames them for the streams), while none of them may act yet.
    """

    def __init__(self, journal: Journal, controller: Controller) -> None:
        self.journal = journal
        self.controller = controller
        self.ahead = False
        """True while the controller has applied an input the journal does not hold: from a
        `decide` until its `record` is on disk, and for good after a write that failed. It
        then takes no other until it is rebuilt (`rebuild`) and this is set False again."""
        self._pending: Decision | None = None

    def step(self, inp: Input) -> list[StoredEvent]:
        """Apply `inp`, then journal it with its events in one durable transaction; return them.

        The controller decides first and the input and its events reach the disk together, with
        one fsync (a crash keeps both or neither): nothing may act on the events, publish them
        or acknowledge the input's source, before this returns. Raises `JournalError` when the
        write fails: then nothing is on record, but the controller has applied `inp`, so `ahead`
        is set and every later `step` is refused until the owner rebuilds the controller from
        the journal (`rebuild`, into a fresh controller it then adopts).
        """
        return self.record(self.decide(inp))

    def decide(self, inp: Input) -> Decision:
        """Apply `inp` to the controller; return its events, to be put on record by `record`.

        Nothing may act on the events before `record` returns; until then `ahead` is set.
        Raises `JournalError` while `ahead` is set (an earlier input is not on record).
        """
        if self.ahead:
            raise JournalError(
                f"{self.journal.path}: the controller holds an input the journal refused; "
                "it must be rebuilt from the journal first"
            )
        ts = inp.ts
        # `_utc_text` inline, once for the input and the events it causes (they carry its time).
        iso = ts.isoformat()
        stamp = iso[:-6] + "Z" if iso.endswith("+00:00") else None
        data = input_text(inp, stamp)
        events: list[StoredEvent] = []
        numbers: list[dict[str, Any]] = []
        bodies: list[str] = []
        # One pass over the events (this runs for every card on its way to the streams).
        for envelope in self.controller.handle(inp):
            text = event_json(envelope, stamp if envelope.ts is ts else None)
            events.append(_stored((envelope, text)))
            numbers.append({"seq": envelope.seq, "game_number": envelope.game_number})
            bodies.append(text)
        self.ahead = True
        decision = self._pending = _decision((data, events, numbers, bodies))
        return decision

    def record(self, decision: Decision) -> list[StoredEvent]:
        """Journal the input of `decision` with its events in one durable transaction.

        `decision` must be the last `decide`'s. Returns its events, on disk when this returns.
        Raises `JournalError` when the write fails (nothing is on record and `ahead` stays
        set) or when `decision` is not the one awaiting its record.
        """
        if decision is not self._pending:
            raise JournalError(f"{self.journal.path}: that decision is not the one to record")
        events = decision.events
        self.journal.append_input(decision.data, events=decision.numbers, bodies=decision.bodies)
        self._pending = None
        self.ahead = False
        return events


@dataclass(slots=True)
class RecoveryReport:
    """What `recover` did.

    `inputs` replayed, stored `events` checked equal, `restored` events that a crash had kept
    from being stored, and the events of the `Restarted` input (empty for a new journal).
    """

    inputs: int = 0
    events: int = 0
    restored: int = 0
    restarted: list[Envelope] = field(default_factory=list)

    def summary(self) -> str:
        """One line for logs and the command line."""
        return (
            f"recovered {self.inputs} inputs, {self.events} events checked, "
            f"{self.restored} restored, {len(self.restarted)} on restart"
        )


def _check(
    path: object, inp: Record, rebuilt: Sequence[Envelope], stored: Sequence[Record], *, last: bool
) -> list[Envelope]:
    """The rebuilt events missing from `stored` (only the last input may miss any, and then all).

    One input's events are stored in one transaction, so a crash leaves all of them or none:
    a last input followed by only some of its events was cut short, not crashed. Raises
    `ReplayMismatchError` naming the first event that differs.
    """
    texts = [event_json(e) for e in rebuilt]
    for i, record in enumerate(stored):
        if i >= len(texts):
            raise ReplayMismatchError(
                f"{path}: {record.label()}: replaying {inp.label()} rebuilt only "
                f"{len(texts)} events, the journal holds more"
            )
        if record.body != texts[i]:
            raise ReplayMismatchError(
                f"{path}: {record.label()}: replaying {inp.label()} rebuilt {texts[i]} "
                f"but the journal holds {record.body}"
            )
    if len(stored) < len(texts) and (stored or not last):
        raise ReplayMismatchError(
            f"{path}: {inp.label()}: replay rebuilt {len(texts)} events but the journal "
            f"holds {len(stored)} after it"
        )
    return list(rebuilt[len(stored) :])


def replay(journal: Journal, controller: Controller) -> tuple[RecoveryReport, list[Envelope]]:
    """Replay every stored input through the fresh `controller`; write nothing.

    The events each input rebuilds must equal the events stored after it; only the last input
    may lack its events (the process died before storing them, or a live table is between the
    two writes). Returns the counts and the events missing after the last input. Does not verify
    the chain (call `verify` first). Raises `JournalError` for an unreadable input and
    `ReplayMismatchError` naming the first event that differs.
    """
    result = RecoveryReport()
    pending: Record | None = None
    rebuilt: list[Envelope] = []
    stored: list[Record] = []
    missing: list[Envelope] = []
    with journal.reading():
        for record in journal.records():
            if record.kind == "event":
                stored.append(record)
                continue
            if pending is not None:
                _check(journal.path, pending, rebuilt, stored, last=False)
                result.events += len(stored)
            try:
                inp = parse_input(record.body)
            except InputError as err:
                raise JournalError(f"{journal.path}: {record.label()}: {err}") from err
            rebuilt = controller.handle(inp)
            pending, stored = record, []
            result.inputs += 1
        if pending is not None:
            missing = _check(journal.path, pending, rebuilt, stored, last=True)
            result.events += len(stored)
    return result, missing


def rebuild(journal: Journal, controller: Controller) -> RecoveryReport:
    """Replay `journal` into the fresh `controller` and store what a crash kept from being stored.

    `controller` ends in the state the journal's inputs lead to, as after a restart but without
    the `Restarted` input (a running table rebuilds its controller so after a `RecordedTable.step`
    whose write failed). Raises as `replay` does, and `JournalError` when the missing events
    cannot be stored.
    """
    result, missing = replay(journal, controller)
    if missing:
        log.warning("%s: storing %d events lost in a crash", journal.path, len(missing))
        journal.append_events([e.model_dump(mode="json") for e in missing])
        result.restored = len(missing)
    return result


def recover(journal: Journal, controller: Controller, now: datetime) -> RecoveryReport:
    """Replay `journal` through the fresh `controller`, repair a torn tail, journal a restart.

    The chain is verified first. Every stored input is parsed and applied in order; the events
    it rebuilds must equal the events stored after it (`replay`). Only the last input may lack
    its events (the process died before storing them): they are stored now. Then, for a journal
    that held inputs, a `Restarted` input stamped `now` (or the last input's time, if later: time
    never runs backwards in a journal) is journalled and applied.

    Raises `JournalError` for a broken chain or an unreadable input, and `ReplayMismatchError`
    when the rebuilt events differ from the stored ones.
    """
    report = verify(journal)
    if not report.ok:
        raise JournalError(f"{journal.path}: {report.problem}; run `studio journal verify`")
    result = rebuild(journal, controller)
    last = journal.last_input()
    if last is not None:
        last_ts = parse_input(last.body).ts
        table = RecordedTable(journal, controller)
        restarted = table.step(Restarted(ts=max(now, last_ts)))
        result.restarted = [stored.envelope for stored in restarted]
    return result
