"""The journal file: durable appends, a gapless chain, and `studio journal verify`."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.cli import main
from studio.errors import JournalError
from studio.journal import GENESIS, Journal, canonical_json, record_hash, verify


def _fill(path: Path, rounds: int = 3) -> None:
    with Journal(path) as journal:
        for i in range(rounds):
            journal.append_input({"kind": "tick", "ts": f"2026-11-29T10:00:0{i}Z"})
            seq = journal.last_event_seq
            journal.append_events(
                [
                    {"seq": seq + 1, "game_number": f"T01-{i}", "type": "round_opened", "body": {}},
                    {"seq": seq + 2, "game_number": f"T01-{i}", "type": "card_dealt", "body": {}},
                ]
            )


@pytest.fixture
def journal_path(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "table.journal"
    _fill(path)
    yield path


def _sql(path: Path, statement: str, *args: object) -> None:
    with sqlite3.connect(path) as db:
        db.execute(statement, args)
    db.close()


def test_canonical_form_and_hash_are_stable() -> None:
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'
    digest = record_hash(1, "input", 1, GENESIS, '{"a":1}')
    assert digest == record_hash(1, "input", 1, GENESIS, '{"a":1}')
    assert digest != record_hash(1, "input", 1, GENESIS, '{"a":2}')
    assert len(digest) == 64


@settings(max_examples=100, deadline=None)
@given(
    record_id=st.integers(1, 2**40),
    kind=st.sampled_from(["input", "event"]),
    seq=st.integers(1, 2**40),
    body=st.dictionaries(st.text(max_size=8), st.none() | st.integers() | st.text(max_size=8)),
    game=st.none() | st.text(max_size=30),
    cause=st.none() | st.integers(1, 2**40),
    batch=st.none() | st.integers(1, 50),
)
def test_a_records_hash_is_the_sha256_of_its_documented_canonical_form(
    record_id: int,
    kind: Any,
    seq: int,
    body: dict[str, Any],
    game: str | None,
    cause: int | None,
    batch: int | None,
) -> None:
    # The chain's text is made by concatenation for speed; it must stay the canonical JSON
    # object the module documents, or journals written before would no longer verify.
    prev = hashlib.sha256(str(record_id).encode()).hexdigest()
    form = {
        "batch": batch,
        "body": body,
        "cause": cause,
        "game_number": game,
        "id": record_id,
        "kind": kind,
        "prev": prev,
        "seq": seq,
    }
    expected = hashlib.sha256(canonical_json(form).encode()).hexdigest()
    made = record_hash(
        record_id, kind, seq, prev, canonical_json(body), game_number=game, cause=cause, batch=batch
    )
    assert made == expected


def test_appends_chain_and_survive_reopening(journal_path: Path) -> None:
    with Journal(journal_path) as journal:
        assert (journal.head_id, journal.input_count, journal.last_event_seq) == (9, 3, 6)
        records = list(journal.records())
        assert [r.id for r in records] == list(range(1, 10))
        assert records[0].prev == GENESIS
        assert all(b.prev == a.hash for a, b in pairwise(records))
        journal.append_input({"kind": "tick", "ts": "2026-11-29T10:00:09Z"})
        assert journal.input_count == 4
        assert journal.game_numbers() == ["T01-0", "T01-1", "T01-2"]
        assert [r.seq for r in journal.round_events("T01-1")] == [3, 4]
    with Journal(journal_path, readonly=True) as journal:
        report = verify(journal)
    assert report.ok, report.problem
    assert (report.records, report.inputs, report.events, report.rounds) == (10, 4, 6, 3)


@pytest.mark.parametrize("durable_events", [False, True])
def test_durability_settings(journal_path: Path, durable_events: bool) -> None:
    with Journal(journal_path, durable_events=durable_events) as journal:
        db = journal._db()
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        seen: list[str] = []
        db.set_trace_callback(seen.append)
        journal.append_input({"kind": "tick", "ts": "2026-11-29T10:00:09Z"})
        journal.append_events([{"seq": 7, "game_number": None, "type": "x", "body": {}}])
        db.set_trace_callback(None)
        # Inputs always commit under synchronous=FULL; events only when asked to.
        assert not any("synchronous=NORMAL" in sql for sql in seen[: seen.index("COMMIT") + 1])
        assert any("synchronous=NORMAL" in sql for sql in seen) != durable_events
        assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again


def test_event_gaps_and_duplicates_are_refused(journal_path: Path) -> None:
    with Journal(journal_path) as journal:
        with pytest.raises(JournalError, match="does not follow"):
            journal.append_events([{"seq": 8, "game_number": None, "type": "x", "body": {}}])
        with pytest.raises(JournalError, match="does not follow"):
            journal.append_events([{"seq": 6, "game_number": None, "type": "x", "body": {}}])
        assert journal.last_event_seq == 6
        assert journal.head_id == 9


def test_a_second_writer_is_detected(journal_path: Path) -> None:
    with Journal(journal_path) as first, Journal(journal_path) as second:
        first.append_input({"kind": "tick", "ts": "2026-11-29T10:00:09Z"})
        with pytest.raises(JournalError, match="another process"):
            second.append_input({"kind": "tick", "ts": "2026-11-29T10:00:10Z"})


def test_readonly_and_closing(tmp_path: Path, journal_path: Path) -> None:
    with pytest.raises(JournalError, match="no such journal"):
        Journal(tmp_path / "missing", readonly=True)
    journal = Journal(journal_path, readonly=True)
    with pytest.raises(JournalError, match="read-only"):
        journal.append_input({"kind": "tick", "ts": "2026-11-29T10:00:09Z"})
    journal.close()
    journal.close()
    assert journal.closed
    with pytest.raises(JournalError, match="closed"):
        journal.meta("format")
    not_sqlite = tmp_path / "garbage"
    not_sqlite.write_bytes(b"this is not a database" * 100)
    with pytest.raises(JournalError, match=r"garbage: not a journal \(not an SQLite database\)"):
        Journal(not_sqlite, readonly=True)


TAMPERING = [
    pytest.param(
        "UPDATE records SET body = replace(body, 'card_dealt', 'card_burnt') WHERE id = 6",
        6,
        "edited",
        id="edited-body",
    ),
    pytest.param("DELETE FROM records WHERE id = 5", 6, "deleted", id="deleted"),
    pytest.param(
        "UPDATE records SET seq = 9 WHERE id = 3", 3, "does not match its hash", id="renumbered"
    ),
    pytest.param("DELETE FROM records WHERE id = 9", 8, "cut off the end", id="truncated"),
]


@pytest.mark.parametrize(("statement", "bad", "words"), TAMPERING)
def test_verify_names_the_first_bad_record(
    journal_path: Path,
    statement: str,
    bad: int | None,
    words: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _sql(journal_path, statement)
    with Journal(journal_path, readonly=True) as journal:
        report = verify(journal)
    assert not report.ok
    assert report.bad_record == bad
    assert words in (report.problem or "")
    assert main(["journal", "verify", str(journal_path)]) == 1
    out = capsys.readouterr().out
    assert "BAD:" in out
    if bad is not None:
        assert f"record {bad} " in out
    assert main(["journal", "verify", "--json", str(journal_path)]) == 1
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["ok"] is False and verdict["bad_record"] == bad
    assert words in verdict["problem"]


def test_an_inserted_record_with_a_recomputed_hash_breaks_the_link(journal_path: Path) -> None:
    # A forger who recomputes the inserted record's own hash still cannot fix the next link.
    _sql(journal_path, "UPDATE records SET id = id + 100 WHERE id >= 5")
    _sql(journal_path, "UPDATE records SET id = id - 99 WHERE id >= 105")
    _sql(journal_path, "UPDATE records SET seq = seq + 100 WHERE kind = 'input' AND id >= 6")
    _sql(journal_path, "UPDATE records SET seq = seq - 99 WHERE kind = 'input' AND seq > 100")
    with Journal(journal_path, readonly=True) as journal:
        prev = next(r for r in journal.records() if r.id == 4).hash
    body = canonical_json({"kind": "tick", "ts": "2026-11-29T10:00:05Z"})
    digest = record_hash(5, "input", 3, prev, body)
    _sql(
        journal_path,
        "INSERT INTO records (id, kind, seq, game_number, body, prev, hash) VALUES (5, 'input', "
        "3, NULL, ?, ?, ?)",
        body,
        prev,
        digest,
    )
    with Journal(journal_path, readonly=True) as journal:
        report = verify(journal)
    assert report.bad_record == 6


def test_verify_command_exit_statuses(
    journal_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["journal", "verify", str(journal_path)]) == 0
    out = capsys.readouterr().out.strip()
    assert out.endswith("rounds), chain head " + out[-16:])
    assert "OK: 9 records (3 inputs, 6 events, 3 rounds)" in out
    assert main(["journal", "verify", "--json", str(journal_path)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict == {
        "path": str(journal_path),
        "ok": True,
        "records": 9,
        "inputs": 3,
        "events": 6,
        "rounds": 3,
        "head": verdict["head"],
        "problem": None,
        "bad_record": None,
        "unstored_events": 0,
        "anchors_checked": None,
    }
    assert out.endswith(verdict["head"][:16])
    assert main(["journal", "verify", str(tmp_path / "nothing")]) == 2
    assert "no such journal file" in capsys.readouterr().err


def test_reading_sees_one_state_of_a_live_journal(journal_path: Path) -> None:
    with Journal(journal_path, readonly=True) as reader, Journal(journal_path) as writer:
        with reader.reading():
            records = reader.records()
            first = next(records)
            writer.append_input({"kind": "tick", "ts": "2026-11-29T10:00:09Z"})
            rest = list(records)
            head = reader.meta("head")
        assert first.id == 1
        assert head == f"{rest[-1].id}:{rest[-1].hash}" == "9:" + rest[-1].hash
        assert reader.meta("head") == f"10:{writer.head_hash}"


def test_the_last_event_of_an_audience_is_a_query(tmp_path: Path) -> None:
    # A restarted table's public stream goes on from the journal's last public event, which may
    # lie far behind a run of restricted ones (a round's hole cards).
    with Journal(tmp_path / "t.journal") as journal:
        assert journal.last_event_seq_of("public") == 0
        journal.append_input({"kind": "tick", "ts": "2026-11-29T10:00:00Z"})
        audiences = ["public", "restricted", "public"] + ["restricted"] * 300
        journal.append_events(
            [
                {"seq": seq, "game_number": None, "type": "x", "audience": audience, "body": {}}
                for seq, audience in enumerate(audiences, start=1)
            ]
        )
        assert journal.last_event_seq_of("public") == 3
        assert journal.last_event_seq_of("public", up_to=2) == 1
        assert journal.last_event_seq_of("restricted") == 303
        assert journal.last_event_seq_of("restricted", up_to=1) == 0


def _step(seq: int, game: str | None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    inp = {"kind": "card_drawn", "ts": f"2026-11-29T10:00:{seq:02d}Z", "card": "AS", "raw": "é"}
    events = [
        {"seq": seq * 2 - 1, "game_number": game, "type": "card_dealt", "body": {"card": None}},
        {"seq": seq * 2, "game_number": game, "type": "card_dealt", "body": {"card": "AS"}},
    ]
    return inp, events


def test_an_input_with_its_event_texts_is_stored_as_the_helpers_store_it(tmp_path: Path) -> None:
    # `append_input` with the events' texts made (every table's way) chains and writes in one
    # function; the records, hashes and head are those of the mapping form, and it refuses alike.
    with Journal(tmp_path / "a") as plain, Journal(tmp_path / "b") as made:
        for journal in (plain, made):
            journal.set_meta("settings", '{"table":"T01"}')
        for seq, game in ((1, None), (2, "G-1"), (3, 'G "2"')):
            inp, events = _step(seq, game)
            plain.append_input(inp, events=events)
            made.append_input(
                canonical_json(inp), events=events, bodies=[canonical_json(e) for e in events]
            )
        assert list(made.records()) == list(plain.records())
        assert (made.head_id, made.meta("head")) == (plain.head_id, plain.meta("head"))
        inp, events = _step(9, None)
        bodies = [canonical_json(e) for e in events]
        with pytest.raises(JournalError, match="does not follow stored seq 6"):
            made.append_input(canonical_json(inp), events=events, bodies=bodies)
        with pytest.raises(JournalError, match="2 bodies given for 1 events"):
            made.append_input(canonical_json(inp), events=events[:1], bodies=bodies)
        assert list(made.records()) == list(plain.records())
        assert verify(made).ok
    with Journal(tmp_path / "b") as first, Journal(tmp_path / "b") as second:
        inp, events = _step(4, None)
        first.append_input(inp, events=events, bodies=[canonical_json(e) for e in events])
        # The second still holds the head it opened at: its append is the same step, refused.
        with pytest.raises(JournalError, match="another process"):
            second.append_input(inp, events=events, bodies=[canonical_json(e) for e in events])
        assert second.head_id == first.head_id - 3
    reader = Journal(tmp_path / "b", readonly=True)
    with pytest.raises(JournalError, match="read-only"):
        reader.append_input("{}", events=[], bodies=[])
    reader.close()
