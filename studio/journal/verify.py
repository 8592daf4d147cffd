"""Check a journal's hash chain from the first record to the head, without trusting any of it.

`verify(journal)` walks every record once and stops at the first one that is wrong: a gap or
repeat in the record ids, a body that no longer matches its hash (edited), a record that does not
link to the one before it (something edited, inserted or deleted before it), a gap in the input
numbers or event sequence, an event whose columns disagree with its body, or a head that does not
match the last record (records cut off the end).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from studio.journal.chain import GENESIS, canonical_json, record_hash
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
    prev = GENESIS
    counts = {"input": 0, "event": 0}
    games: set[str] = set()

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
        if record_hash(record.id, record.kind, record.seq, record.prev, record.body) != record.hash:
            return bad(record.id, f"{name}: content does not match its hash (record edited)")
        if record.prev != prev:
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
        if record.kind == "event":
            if data.get("seq") != record.seq or data.get("game_number") != record.game_number:
                return bad(record.id, f"{name}: columns disagree with the event's envelope")
            if record.game_number is not None:
                games.add(record.game_number)
        counts[record.kind] = record.seq
        prev = record.hash
        expected_id += 1

    head = journal.meta("head")
    if head != f"{expected_id - 1}:{prev}":
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
        head=prev,
    )
