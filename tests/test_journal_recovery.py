"""Journal-before-apply and recovery by replay, with a stand-in controller (no game rules).

The real controller's replay, crash and restart behaviour is in tests/test_crash*.py; here the
journal's own duties are pinned with a controller whose output is trivially known.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from studio.errors import ConfigurationError, JournalError, ReplayMismatchError
from studio.journal import Journal, verify
from studio.journal.recorder import RecordedTable, bind_settings, recover
from studio.messages import Envelope, Input, TableSettings, Tick

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


class EchoController:
    """Two events per input (one when `quiet`), then a `restarted_seen` on a restart."""

    def __init__(self, quiet: bool = False) -> None:
        self.seq = 0
        self.quiet = quiet

    def _event(self, inp: Input, type_: str) -> Envelope:
        self.seq += 1
        return Envelope(
            table="T01",
            seq=self.seq,
            game_number="T01-20261129-100000",
            ts=inp.ts,
            audience="public",
            type=type_,
            body={"kind": inp.kind},
        )

    def handle(self, inp: Input, /) -> list[Envelope]:
        if inp.kind == "restarted":
            return [self._event(inp, "restarted_seen")]
        first = self._event(inp, "input_seen")
        return [first] if self.quiet else [first, self._event(inp, "input_echoed")]


def _ticks(n: int) -> list[Tick]:
    return [Tick(ts=T0 + timedelta(seconds=i)) for i in range(n)]


def test_a_step_journals_each_input_with_its_events_after_the_controller_decides(
    tmp_path: Path,
) -> None:
    seen: list[tuple[int, int]] = []

    class Spy(EchoController):
        def handle(self, inp: Input, /) -> list[Envelope]:
            seen.append((journal.input_count, journal.last_event_seq))
            return super().handle(inp)

    with Journal(tmp_path / "j") as journal:
        table = RecordedTable(journal, Spy())
        after: list[tuple[int, int]] = []
        for tick in _ticks(3):
            table.step(tick)
            after.append((journal.input_count, journal.last_event_seq))
        # The controller decides before anything of the input is written; once `step` returns,
        # the input and both its events are on record together.
        assert seen == [(0, 0), (1, 2), (2, 4)]
        assert after == [(1, 2), (2, 4), (3, 6)]


def test_recover_replays_and_journals_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal(path) as journal:
        table = RecordedTable(journal, EchoController())
        for tick in _ticks(4):
            table.step(tick)
    with Journal(path) as journal:
        controller = EchoController()
        report = recover(journal, controller, now=T0 + timedelta(hours=1))
        assert (report.inputs, report.events, report.restored) == (4, 8, 0)
        assert [e.type for e in report.restarted] == ["restarted_seen"]
        assert report.restarted[0].seq == 9
        assert controller.seq == 9
        assert verify(journal).ok
        assert "recovered 4 inputs" in report.summary()


def test_recover_of_a_new_journal_does_nothing(tmp_path: Path) -> None:
    with Journal(tmp_path / "j") as journal:
        report = recover(journal, EchoController(), now=T0)
        assert (report.inputs, report.restarted, journal.head_id) == (0, [], 0)


def test_a_restart_never_runs_time_backwards(tmp_path: Path) -> None:
    with Journal(tmp_path / "j") as journal:
        RecordedTable(journal, EchoController()).step(Tick(ts=T0))
        report = recover(journal, EchoController(), now=T0 - timedelta(days=1))
        assert report.restarted[0].ts == T0


def test_events_lost_between_input_and_store_are_restored_once(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal(path) as journal:
        table = RecordedTable(journal, EchoController())
        for tick in _ticks(2):
            table.step(tick)
        # An earlier version's crash between its two commits: the input is on disk, the
        # process died before its events were stored.
        journal.append_input(Tick(ts=T0 + timedelta(seconds=5)).model_dump(mode="json"))
    with Journal(path) as journal:
        report = recover(journal, EchoController(), now=T0 + timedelta(seconds=6))
        assert (report.inputs, report.events, report.restored) == (3, 4, 2)
        seqs = [r.seq for r in journal.records() if r.kind == "event"]
        assert seqs == list(range(1, 8))
        assert verify(journal).ok
    with Journal(path) as journal:
        again = recover(journal, EchoController(), now=T0 + timedelta(seconds=7))
        assert (again.inputs, again.events, again.restored) == (4, 7, 0)


def test_a_replay_that_differs_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "j"
    with Journal(path) as journal:
        table = RecordedTable(journal, EchoController())
        for tick in _ticks(2):
            table.step(tick)
    with (
        Journal(path) as journal,
        pytest.raises(ReplayMismatchError, match=r"record 3 \(event 2\): replaying record 1"),
    ):
        recover(journal, EchoController(quiet=True), now=T0)
    with Journal(path) as journal:
        assert journal.head_id == 6, "a failed recovery must not write anything"


def test_recovery_refuses_a_broken_chain(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "j"
    with Journal(path) as journal:
        RecordedTable(journal, EchoController()).step(Tick(ts=T0))
    with sqlite3.connect(path) as db:
        db.execute("UPDATE records SET body = replace(body, 'input_seen', 'input_lost')")
    db.close()
    with Journal(path) as journal, pytest.raises(JournalError, match="edited"):
        recover(journal, EchoController(), now=T0)


def test_a_journal_keeps_its_table_settings(tmp_path: Path) -> None:
    stud = TableSettings(game="caribbean-stud")
    with Journal(tmp_path / "j") as journal:
        with pytest.raises(JournalError, match="no table settings"):
            bind_settings(journal, None)
        assert bind_settings(journal, stud) == stud
        assert bind_settings(journal, None) == stud
        with pytest.raises(ConfigurationError, match="other settings") as refused:
            bind_settings(journal, TableSettings(game="caribbean-stud", camera=True))
        assert "camera: false -> true" in str(refused.value)
        assert "[journal] path" in str(refused.value)


def test_a_forged_chain_still_fails_the_replay(tmp_path: Path) -> None:
    """Rewriting a card and every hash after it fools the chain, never the replay."""
    import json
    import sqlite3

    from studio.cli import main
    from studio.controller import TableController
    from studio.journal import canonical_json, genesis, record_hash
    from studio.simulation import simulate

    path = tmp_path / "j"
    settings = TableSettings(game="caribbean-stud")
    simulate(path, settings, rounds=2, seed=4)
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT id, kind, seq, game_number, cause, batch, body FROM records ORDER BY id"
        ).fetchall()
        prev = genesis(db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()[0])
        forged = False
        for record_id, kind, seq, game, cause, batch, body in rows:
            data = json.loads(body)
            if not forged and data.get("type") == "card_dealt" and data["body"]["card"]:
                data["body"]["card"] = "AS" if data["body"]["card"] != "AS" else "KS"
                body, forged = canonical_json(data), True
            digest = record_hash(
                record_id, kind, seq, prev, body, game_number=game, cause=cause, batch=batch
            )
            db.execute(
                "UPDATE records SET body = ?, prev = ?, hash = ? WHERE id = ?",
                (body, prev, digest, record_id),
            )
            prev = digest
        db.execute("UPDATE meta SET value = ? WHERE key = 'head'", (f"{rows[-1][0]}:{prev}",))
    db.close()
    with Journal(path) as journal:
        assert verify(journal).ok
    # The chain alone cannot see this forgery; the command's replay and recovery do.
    assert main(["journal", "verify", "--no-replay", str(path)]) == 0
    assert main(["journal", "verify", str(path)]) == 1
    with Journal(path) as journal, pytest.raises(ReplayMismatchError, match="card_dealt"):
        recover(journal, TableController(settings), now=T0)
