"""Check a journal's hash chain from the first record to the head, without trusting any of it.

`verify(journal)` walks every record once and stops at the first one that is wrong: a gap or
repeat in the record ids, a column that no longer matches its hash (edited), a record that does
not link to the one before it (something edited, inserted or deleted before it; for the first
record, the stored settings changed), a gap in the input numbers or event sequence, a record
whose columns disagree with its body, an input's events cut short (each event names its input
and how many events that input caused, and one input's events are stored in one transaction, so
a partial batch is never a crash), or a head that does not match the last record.

What no check inside the file can catch: a forger who deletes whole trailing inputs together
with all their events and sets the head to the new last record, or one who rewrites every hash
after a change. Only an anchor outside the file (docs/journal.md) or a replay of the inputs
through the controller (`recover`, and `studio journal verify` when the journal holds settings)
sees those; the replay catches the second, nothing in the file catches the first.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from studio.journal.chain import GENESIS, Record, canonical_json, genesis
from studio.journal.store import Journal


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What `verify` found.

    `problem` is None for a sound journal, else one line naming the first bad record;
    `bad_record` is that record's id (None when the damage is at the head). The counts cover the
    records checked before any problem.
    """

    records: int
    inputs: int
    events: int
    rounds: int
    head: str
    problem: str | None = None
    bad_record: int | None = None

    @property
    def ok(self) -> bool:
        """Whether the whole chain checked out."""
        return self.problem is None

    def summary(self) -> str:
        """One line: `OK: ...` with the counts and head hash, or `BAD: ...` with the problem."""
        if self.problem is not None:
            return f"BAD: {self.problem}"
        return (
            f"OK: {self.records} records ({self.inputs} inputs, {self.events} events, "
            f"{self.rounds} rounds), chain head {self.head[:16]}"
        )


def verify(journal: Journal) -> VerifyReport:
    """Check every record of `journal` and its head; never raises for damage, only reports it.

    Raises `JournalError` only when the file cannot be read at all.
    """
    with journal.reading():
        return _verify(journal)


def _verify(journal: Journal) -> VerifyReport:
    expected_id = 1
    prev = genesis(journal.meta("settings"))
    counts = {"input": 0, "event": 0}
    games: set[str] = set()
    batch_seen = 0  # events stored so far for the current input
    batch_size = 0  # how many events the current input's events say it caused
    last: Record | None = None

    def bad(record_id: int | None, problem: str) -> VerifyReport:
        return VerifyReport(
            records=expected_id - 1,
            inputs=counts["input"],
            events=counts["event"],
            rounds=len(games),
            head=prev,
            problem=problem,
            bad_record=record_id,
        )

    for record in journal.records():
        name = record.label()
        if record.id != expected_id:
            what = "deleted" if record.id > expected_id else "inserted or renumbered"
            return bad(
                record.id,
                f"{name}: expected record {expected_id} here (a record was {what})",
            )
        if record.kind not in counts:
            return bad(record.id, f"{name}: unknown record kind {record.kind!r}")
        if record.digest() != record.hash:
            return bad(record.id, f"{name}: content does not match its hash (record edited)")
        if record.prev != prev:
            if record.id == 1:
                return bad(
                    record.id,
                    f"{name}: does not link to the journal's settings "
                    "(meta.settings was edited, added or removed)",
                )
            return bad(
                record.id,
                f"{name}: does not link to the record before it "
                "(that record was edited, or a record was inserted or deleted)",
            )
        if record.seq != counts[record.kind] + 1:
            return bad(
                record.id,
                f"{name}: follows {record.kind} {counts[record.kind]} "
                f"(a {record.kind} was deleted or inserted)",
            )
        try:
            data = json.loads(record.body)
            canonical = isinstance(data, dict) and canonical_json(data) == record.body
        except ValueError:
            canonical = False
        if not canonical:
            return bad(record.id, f"{name}: body is not canonical JSON")
        if record.kind == "input":
            if record.game_number is not None or record.cause is not None or record.batch:
                return bad(record.id, f"{name}: an input with event columns set")
            if batch_seen < batch_size:
                return bad(record.id, _short(record, last, batch_seen, batch_size))
            batch_seen = batch_size = 0
        else:
            if data.get("seq") != record.seq or data.get("game_number") != record.game_number:
                return bad(record.id, f"{name}: columns disagree with the event's envelope")
            if record.cause != counts["input"] or counts["input"] == 0:
                return bad(
                    record.id,
                    f"{name}: names input {record.cause} as its cause, but follows "
                    f"input {counts['input']}",
                )
            if batch_seen == 0:
                batch_size = record.batch or 0
            if record.batch != batch_size or batch_seen >= batch_size:
                return bad(
                    record.id,
                    f"{name}: event {batch_seen + 1} of input {record.cause}, which "
                    f"caused {batch_size} (an event was inserted or its batch edited)",
                )
            batch_seen += 1
            if record.game_number is not None:
                games.add(record.game_number)
        counts[record.kind] = record.seq
        prev = record.hash
        last = record
        expected_id += 1

    if batch_seen < batch_size and last is not None:
        return bad(last.id, _short(None, last, batch_seen, batch_size))

    head = journal.meta("head")
    if head != f"{expected_id - 1}:{prev if last is not None else GENESIS}":
        return bad(
            None,
            f"the journal ends at record {expected_id - 1} but its head says "
            f"{head!r} (records were cut off the end, or the head was edited)",
        )
    return VerifyReport(
        records=expected_id - 1,
        inputs=counts["input"],
        events=counts["event"],
        rounds=len(games),
        head=prev if last is not None else GENESIS,
    )


def _short(following: Record | None, last: Record | None, seen: int, size: int) -> str:
    """The problem of an input whose events stop after `seen` of `size`."""
    cause = last.cause if last is not None else None
    once = "one input's events are stored together, so a crash never leaves part of them"
    if following is None:
        name = last.label() if last is not None else "the journal"
        return (
            f"{name}: input {cause} caused {size} events but the journal ends after {seen} "
            f"of them (records were cut off the end; {once})"
        )
    return (
        f"{following.label()}: input {cause} caused {size} events but only {seen} of them "
        f"come before this record (events were deleted; {once})"
    )
