"""The runtime's parts on their own: replay source, first-run keys, run files, the watch log."""

from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from journal_support import journal_event
from test_controller_kit import CONFIGS

from drivers.shoe.framed import Frame, FrameType, encode_frame
from drivers.shoe.readers import WakingQueue
from drivers.shoe.readings import CardRead, Receipt
from studio.bus.keys import read_allow_list
from studio.cards import Card
from studio.commands.words import describe
from studio.config import build_config
from studio.controller import TableController, TableSettings
from studio.errors import ConfigurationError
from studio.journal import Journal
from studio.messages import CardDrawn, Tick
from studio.messages.view import TableView
from studio.runtime import JournalSource, RunFile, ensure_keys, find_table
from studio.runtime.announce import write_run_file
from studio.runtime.devices import ShoeDevice, resume_point

TAG_PAYLOAD = bytes.fromhex("07E0040000000110") + bytes((51,))


def test_the_replay_source_reads_events_by_sequence_number(tmp_path: Path) -> None:
    path = tmp_path / "j.journal"
    with Journal(path) as journal:
        journal.append_input({"kind": "tick", "ts": "2026-01-01T00:00:00Z"})
        journal.append_events([journal_event(s) for s in range(1, 6)])
        journal.append_input({"kind": "tick", "ts": "2026-01-01T00:00:01Z"})
        journal.append_events([journal_event(s) for s in range(6, 9)])
        journal_bodies = [record.body for record in journal.events_from(1)]
    view = TableController(TableSettings(**CONFIGS[0])).view()
    with JournalSource(path, lambda: view) as source:
        # The stored bytes, which the replay service sends unchanged.
        assert [json.loads(b)["seq"] for b in source.events_from(4)] == [4, 5, 6, 7, 8]
        assert next(iter(source.events_from(8))) == journal_bodies[-1].encode()
        assert list(source.events_from(9)) == []
        assert source.snapshot()["phase"] == "idle"
        assert TableView.model_validate(source.snapshot()) == view
        assert TableView.model_validate(source.public_snapshot()) == view.public()
        source.close()


def test_first_run_keys_are_made_once_and_never_replaced(tmp_path: Path) -> None:
    keys = ensure_keys(tmp_path / "keys")
    names = {(k.name, k.role) for k in read_allow_list(keys.allow_list).keys}
    assert names == {
        ("shift-manager", "shift_manager"),
        ("observer", "observer"),
        ("console", "console"),
    }
    before = {p.name: p.read_bytes() for p in keys.directory.iterdir()}
    again = ensure_keys(tmp_path / "keys")
    assert {p.name: p.read_bytes() for p in again.directory.iterdir()} == before
    assert again.security().allow_list.lookup(b"0" * 40) is None


def test_watch_finds_the_one_live_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert find_table(None) is None

    def run_file(table: str, pid: int) -> RunFile:
        fields = {k: "x" for k in ("public", "restricted", "replay", "commands", "journal")}
        return RunFile(table=table, game="g", pid=pid, server_key="k", keys_dir="d", **fields)

    write_run_file(run_file("T01", os.getpid()))
    dead = run_file("T02", 2**22 + 12345)
    write_run_file(dead)
    found = find_table(None)
    assert found is not None and found.table == "T01"
    assert find_table("T02") is None  # its process is gone
    write_run_file(run_file("T03", os.getpid()))
    with pytest.raises(ConfigurationError, match="several tables"):
        find_table(None)


def test_the_watch_log_shows_phase_cards_incidents_and_results() -> None:
    def line(kind: str, body: dict[str, object], audience: str = "public") -> str:
        return describe(
            {"seq": 3, "game_number": "G1", "type": kind, "audience": audience, "body": body}
        )

    assert line("betting_light_changed", {"light": "yellow"}) == (
        "#3 G1 betting_light_changed: light yellow"
    )
    assert line("card_dealt", {"position": "dealer-2", "face": "down", "card": None}).endswith(
        "dealer-2 face down"
    )
    assert line("card_dealt", {"position": "player-1", "face": "up", "card": "AS"}).endswith(
        "player-1 AS (face up)"
    )
    assert "PAUSED: duplicate_card" in line("round_paused", {"kind": "duplicate_card"})
    assert "[restricted]" in line("incident_reported", {"kind": "x"}, "restricted")
    assert "player-1=AS" in line("round_result", {"positions": {"player-1": "AS"}})


def test_a_delivery_wakes_the_loop_from_another_thread() -> None:
    async def main() -> int:
        woken = asyncio.Event()
        deliveries = WakingQueue(asyncio.get_running_loop(), woken.set)
        await asyncio.to_thread(deliveries.put, object())  # type: ignore[arg-type]
        await asyncio.wait_for(woken.wait(), 2)
        return deliveries.qsize()

    assert asyncio.run(main()) == 1


def test_the_table_shoe_waits_for_the_journal_before_the_shoe_forgets_a_card(
    tmp_path: Path,
) -> None:
    config = build_config({"shoe": {"pty": str(tmp_path / "shoe")}, "camera": {"backend": "none"}})
    with ShoeDevice(config) as shoe:
        deliveries = shoe.reader.deliveries
        assert shoe.simulator is not None and shoe.simulator.session is not None
        shoe.deal(Card.parse("QS"))
        while True:
            delivery = deliveries.get(timeout=10)
            if isinstance(delivery.item, CardRead):
                card = delivery.item
                break
            shoe.commit(delivery)  # the RESET that opens the shoe's session
        assert card.card == Card.parse("QS") and card.seq is not None
        session = shoe.simulator.session
        time.sleep(0.5)  # past the shoe's retransmission time: still held, and resent
        assert session.is_pending(card.seq) and session.retransmissions > 0
        assert deliveries.empty()  # a resend is a duplicate, not a second card
        shoe.commit(delivery)
        deadline = time.monotonic() + 5
        while session.is_pending(card.seq) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not session.is_pending(card.seq)


def test_the_shoe_resumes_after_the_last_card_frame_in_the_journal(tmp_path: Path) -> None:
    frame = encode_frame(Frame(0x1234, 77, FrameType.CARD_DRAWN, TAG_PAYLOAD))
    with Journal(tmp_path / "t.journal") as journal:
        assert resume_point(journal) is None
        ts = datetime(2026, 1, 1, tzinfo=UTC)
        journal.append_input(CardDrawn(ts=ts, card="AS", raw=frame.hex()).model_dump(mode="json"))
        journal.append_input(Tick(ts=ts).model_dump(mode="json"))
        assert resume_point(journal) == Receipt(0x1234, 77)
        barcode = CardDrawn(ts=ts, card="KD", raw=b"KD".hex()).model_dump(mode="json")
        journal.append_input(barcode)
        assert resume_point(journal) is None


@pytest.mark.parametrize(
    "content",
    [b"\xa3 not UTF-8", b'{"table": "T01"}', b"[1, 2]", b"{not json"],
)
def test_a_damaged_run_file_is_one_line_saying_what_to_do(
    content: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It was a UnicodeDecodeError text or pydantic's multi-line report with its URL.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    (tmp_path / "studio" / "run").mkdir(parents=True)
    (tmp_path / "studio" / "run" / "T01.json").write_bytes(content)
    with pytest.raises(ConfigurationError) as info:
        find_table(None)
    assert "\n" not in str(info.value) and "remove it if no table runs there" in str(info.value)


def test_a_run_file_with_a_pid_that_names_no_one_process_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pid 0 or -1 made os.kill check a whole group (always "alive"); 2**40 overflowed it.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    fields = {k: "x" for k in ("public", "restricted", "replay", "commands", "journal")}
    good = RunFile(table="T01", game="g", pid=os.getpid(), server_key="k", keys_dir="d", **fields)
    path = write_run_file(good)
    for pid in (0, -1, 2**40):
        data = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({**data, "pid": pid}), encoding="utf-8")
        with pytest.raises(ConfigurationError, match="pid"):
            find_table("T01")
