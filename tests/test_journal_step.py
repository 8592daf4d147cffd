"""An input and its events in one durable write: `RecordedTable.step`, the running table's way.

The controller decides first, then the input and the events it caused are committed together
(one fsync per card). The chain is the one earlier versions' two commits wrote
(`journal_support.TwoCommitTable`); a write the journal refuses leaves
nothing on record, the controller that had applied the input takes no other, and once rebuilt
from the journal it is back where the record ends.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from journal_support import TwoCommitTable
from test_controller_kit import T0

from studio.controller import TableController
from studio.errors import JournalError
from studio.journal import Journal, RecordedTable, verify
from studio.journal.recorder import bind_settings, rebuild, replay
from studio.messages import CardDrawn, Command, Input, TableSettings, Tick

SETTINGS = TableSettings(game="caribbean-stud")


def _round_inputs() -> list[Input]:
    """A round opened, its betting closed by the clock, two cards drawn."""
    return [
        Tick(ts=T0),
        Command(ts=T0, actor="d1", role="dealer", command="start_round"),
        Tick(ts=T0 + timedelta(seconds=60)),
        CardDrawn(ts=T0 + timedelta(seconds=61), card="AS", raw=""),
        CardDrawn(ts=T0 + timedelta(seconds=62), card="KD", raw=""),
    ]


def test_a_step_writes_the_chain_that_two_commits_wrote(tmp_path: Path) -> None:
    chains = []
    for name, stepped in (("record", False), ("step", True)):
        with Journal(tmp_path / f"{name}.journal") as journal:
            bind_settings(journal, SETTINGS)
            controller = TableController(SETTINGS)
            table, old = RecordedTable(journal, controller), TwoCommitTable(journal, controller)
            for inp in _round_inputs():
                if stepped:
                    table.step(inp)
                else:
                    old.record(inp)
            assert verify(journal).ok
            chains.append(
                [(r.kind, r.seq, r.cause, r.batch, r.body, r.hash) for r in journal.records()]
            )
    assert chains[0] == chains[1]
    assert sum(kind == "event" for kind, *_ in chains[1]) > len(_round_inputs())


def test_a_refused_step_records_nothing_and_the_controller_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    with Journal(path) as journal:
        bind_settings(journal, SETTINGS)
        controller = TableController(SETTINGS)
        table = RecordedTable(journal, controller)
        inputs = _round_inputs()
        for inp in inputs[:2]:
            table.step(inp)
        # SQLite's own size limit answers SQLITE_FULL, as a full disk does. The journal keeps
        # its connection to itself: the test reaches it to set the limit on this very file.
        db = journal._db()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        last_view, written = controller.view(), list(journal.records())
        with pytest.raises(JournalError, match="full"):
            for n in range(1, 2000):
                table.step(Tick(ts=T0 + timedelta(seconds=n)))
                last_view, written = controller.view(), list(journal.records())
        assert list(journal.records()) == written  # nothing of the refused input
        assert table.ahead and controller.view() != last_view
        # The controller holds an input the journal does not: it takes no other.
        with pytest.raises(JournalError, match="rebuilt"):
            table.step(Tick(ts=T0 + timedelta(seconds=3000)))
        assert list(journal.records()) == written
        db.execute("PRAGMA max_page_count = 1073741823")
        fresh = TableController(SETTINGS)
        report = rebuild(journal, fresh)
        assert report.restored == 0
        controller.adopt(fresh)
        table.ahead = False
        assert controller.view() == last_view
        for inp in inputs[2:]:
            table.step(inp)
        assert verify(journal).ok
        ended = controller.view()
    with Journal(path, readonly=True) as journal:
        again = TableController(SETTINGS)
        replay(journal, again)
    assert again.view() == ended


def test_a_decision_is_on_record_only_once_recorded(tmp_path: Path) -> None:
    # The runtime decides, frames the events for the streams, then records: until the record
    # the input is nowhere on disk and the controller takes no other input.
    with Journal(tmp_path / "t.journal") as journal:
        bind_settings(journal, SETTINGS)
        controller = TableController(SETTINGS)
        table = RecordedTable(journal, controller)
        inputs = _round_inputs()
        for inp in inputs[:-1]:
            table.step(inp)
        written = list(journal.records())
        decision = table.decide(inputs[-1])
        assert decision.events
        assert list(journal.records()) == written and table.ahead
        with pytest.raises(JournalError, match="rebuilt"):
            table.decide(Tick(ts=T0 + timedelta(seconds=63)))
        stored = table.record(decision)
        assert stored == decision.events and not table.ahead
        records = list(journal.records())
        assert [r.body for r in records[len(written) + 1 :]] == [body for _, body in stored]
        # A decision is recorded once: a second record of it would write the input twice.
        with pytest.raises(JournalError, match="not the one"):
            table.record(decision)
        assert list(journal.records()) == records and verify(journal).ok
