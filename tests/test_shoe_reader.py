"""The shoe's readers and SimulatedShoe in one process: URLs, faults on the queue, reconnection,
health, tracing, the input adapter. Every test on a line the loop can watch runs with both
readers: `SerialShoe` (a thread of its own) and `WatchedSerialShoe` (an asyncio loop, here
running in a thread of the test, watches the line). The same devices run in tests/hil against
real ptys and ser2net."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from shoe_readers import Reader

from drivers.errors import DriverConfigurationError, DriverError, FrameError, LineError
from drivers.shoe.adapter import to_input
from drivers.shoe.deck import BarcodeTable
from drivers.shoe.host import ProtocolOptions, receipt_of
from drivers.shoe.line_reader import ShoeLineReader
from drivers.shoe.readers import READERS, open_reader, scheme
from drivers.shoe.readings import (
    CardRead,
    CardUnreadable,
    Delivery,
    FaultReason,
    Receipt,
    ShoeFault,
    ShoeRecovered,
    ShoeReset,
    ShoeStatus,
    StatusFlag,
)
from drivers.shoe.serial_shoe import SerialShoe
from drivers.shoe.sim_line import TcpLine, line_for_config
from drivers.shoe.simulator import FaultRates, SimulatedShoe
from drivers.shoe.watched_shoe import WatchedSerialShoe
from studio.cards import Card
from studio.messages.inputs import CardDrawn, DeviceStatus


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    yield
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        alive = [t.name for t in threading.enumerate() if t.name.startswith("shoe-")]
        if not alive:
            return
        time.sleep(0.02)
    pytest.fail(f"leaked shoe threads: {alive}")


def _read_until(shoe: ShoeLineReader, want: type, timeout: float = 10.0) -> list[Delivery]:
    seen: list[Delivery] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        delivery = shoe.read(timeout=0.05)
        if delivery is None:
            continue
        seen.append(delivery)
        if isinstance(delivery.item, want):
            return seen
    pytest.fail(f"no {want.__name__} within {timeout} s: {[d.item for d in seen]}")


def test_bad_configuration_raises_one_clear_error() -> None:
    with pytest.raises(DriverConfigurationError, match="unknown shoe protocol 'morse'"):
        SerialShoe("loop://", "morse")
    with pytest.raises(DriverConfigurationError, match="bad shoe URL"):
        SerialShoe("nosuch://x", "framed")
    with pytest.raises(DriverConfigurationError, match="expected pty:PATH or tcp:HOST:PORT"):
        line_for_config("usb:1")
    with pytest.raises(DriverConfigurationError, match="bad fault 'jam=2'"):
        FaultRates.parse("jam=2")


def test_close_is_idempotent_and_stops_the_thread() -> None:
    shoe = SerialShoe("loop://", "barcode")
    with shoe:
        assert shoe.health().protocol == "barcode"
    shoe.close()
    assert shoe.closed
    assert not [t for t in threading.enumerate() if t.name.startswith("shoe-")]


def test_absent_shoe_is_a_fault_then_recovers_when_plugged(
    tmp_path: Path, make_reader: Reader
) -> None:
    path = tmp_path / "shoe"
    with make_reader(str(path), "framed") as shoe:
        first = _read_until(shoe, ShoeFault)[-1].item
        assert isinstance(first, ShoeFault) and first.reason is FaultReason.DISCONNECTED
        with SimulatedShoe(f"pty:{path}", "framed", cards=20, interval=0.002).start() as sim:
            seen = _read_until(shoe, ShoeRecovered)
            while sum(isinstance(d.item, CardRead) for d in seen) < 20:
                seen += _read_until(shoe, CardRead)
            assert sim.wait(10) and sim.error is None and sim.given_up == 0
        assert shoe.health().reconnects == 0  # the first open is not a reconnection


def test_socket_url_reaches_a_simulator_on_tcp(make_reader: Reader) -> None:
    log = io.StringIO()
    line = TcpLine("127.0.0.1", 0)
    faults = FaultRates(garbage=0.05, drop=0.05, duplicate=0.05, bitflip=0.05)
    with make_reader(f"socket://127.0.0.1:{line.port}", "framed") as shoe:
        # The shoe powers on once the host is attached. A shoe started first sends its RESET to
        # nobody, and the host joins at the next heartbeat, after the last card: the duplicates
        # are then frames of a session it has not joined, not counted (CI saw 0 once).
        deadline = time.monotonic() + 10
        while not line.connected():
            assert time.monotonic() < deadline, "the reader never connected"
            time.sleep(0.005)
        with SimulatedShoe(
            line, "framed", cards=150, interval=0.002, seed=4, faults=faults, log_to=log
        ).start() as sim:
            cards: list[str] = []
            while len(cards) < 150:
                delivery = shoe.read(timeout=10)
                assert delivery is not None
                if isinstance(delivery.item, CardRead):
                    cards.append(delivery.item.card.code)
            assert sim.wait(10) and sim.given_up == 0
            health = shoe.health()
    dealt = [line.split('"')[3] for line in log.getvalue().splitlines()]
    assert cards == dealt
    assert health.connected and health.crc_errors > 0 and health.duplicates > 0
    assert health.last_heartbeat is not None and len(health.last_frames) == 16


def test_a_shoe_unplugged_while_read_is_a_fault_then_read_again_when_back(
    tmp_path: Path, make_reader: Reader
) -> None:
    # The loop-watched reader reads a pty with one os.read of its own: a line whose far end
    # went away must still be a disconnection, and the shoe plugged back read again.
    path = tmp_path / "shoe"
    with make_reader(str(path), "framed") as shoe:
        with SimulatedShoe(f"pty:{path}", "framed", cards=3, interval=0.002).start() as sim:
            seen = _read_until(shoe, CardRead)
            while sum(isinstance(d.item, CardRead) for d in seen) < 3:
                seen += _read_until(shoe, CardRead)
            assert sim.wait(10) and sim.error is None
        lost = _read_until(shoe, ShoeFault)[-1].item
        assert isinstance(lost, ShoeFault) and lost.reason is FaultReason.DISCONNECTED
        with SimulatedShoe(f"pty:{path}", "framed", cards=2, interval=0.002).start() as sim:
            seen = _read_until(shoe, CardRead)
            assert sim.wait(10) and sim.error is None
        assert shoe.health().reconnects >= 1


def test_a_table_that_dies_before_acknowledging_loses_and_repeats_no_card(
    tmp_path: Path, make_reader: Reader
) -> None:
    # The table's reader holds acknowledgements until a card is journalled. A first reader
    # journals 5 cards and acknowledges them, journals a 6th and dies before acknowledging it,
    # and dies with later cards read but not journalled. A second reader resumes after the 6th
    # (what `studio run` finds in its journal): the shoe resends what was never acknowledged,
    # the 6th is not taken again, and the journal ends with every card once, in order.
    path = tmp_path / "shoe"
    log = io.StringIO()
    journal: list[str] = []
    resume: Receipt | None = None
    with SimulatedShoe(f"pty:{path}", "framed", cards=14, interval=0.03, log_to=log) as sim:
        with make_reader(str(path), "framed", options=ProtocolOptions(hold_acks=True)) as first:
            sim.start()
            while len(journal) < 6:
                delivery = first.read(timeout=10)
                assert delivery is not None
                if isinstance(delivery.item, CardRead):
                    journal.append(delivery.item.card.code)
                    resume = receipt_of(delivery.item)
                if len(journal) < 6:
                    first.commit(delivery)
            time.sleep(0.2)  # later cards arrive, unjournalled and unacknowledged
        options = ProtocolOptions(hold_acks=True, resume_after=resume)
        with make_reader(str(path), "framed", options=options) as second:
            while len(journal) < 14:
                delivery = second.read(timeout=10)
                assert delivery is not None
                if isinstance(delivery.item, CardRead):
                    journal.append(delivery.item.card.code)
                second.commit(delivery)
            assert sim.wait(10) and sim.error is None and sim.given_up == 0
    dealt = [line.split('"')[3] for line in log.getvalue().splitlines()]
    assert journal == dealt


def test_a_reader_failure_is_delivered_and_reading_goes_on(
    tmp_path: Path, make_reader: Reader
) -> None:
    path = tmp_path / "shoe"
    with (
        SimulatedShoe(
            f"pty:{path}", "barcode", cards=30, interval=0.02, start_delay=0.3
        ).start() as sim,
        make_reader(str(path), "barcode") as shoe,
    ):
        real_feed = shoe.protocol.feed
        calls = {"n": 0}

        def failing_feed(data: bytes, now: float) -> tuple[list[object], bytes]:
            calls["n"] += 1
            if calls["n"] == 3:
                raise RuntimeError("decoder bug")
            return real_feed(data, now)  # type: ignore[return-value]

        shoe.protocol.feed = failing_feed  # type: ignore[assignment,method-assign]
        seen = _read_until(shoe, DriverError)
        failure = seen[-1].item
        assert isinstance(failure, DriverError) and "decoder bug" in str(failure)
        assert isinstance(failure.__cause__, RuntimeError)
        seen += _read_until(shoe, ShoeRecovered)
        seen += _read_until(shoe, CardRead)
        sim.close()


def test_trace_switch_logs_raw_bytes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, make_reader: Reader
) -> None:
    path = tmp_path / "shoe"
    caplog.set_level(logging.DEBUG, logger="drivers.shoe")
    with (
        SimulatedShoe(
            f"pty:{path}", "barcode", cards=3, interval=0.01, start_delay=0.3
        ).start() as sim,
        make_reader(str(path), "barcode", trace=True) as shoe,
    ):
        _read_until(shoe, CardRead)
        sim.wait(5)
    assert any(rec.getMessage().startswith("rx ") for rec in caplog.records)


TS = datetime(2026, 1, 1, tzinfo=UTC)


def _delivery(item: object) -> Delivery:
    return Delivery(item, 0.0, TS)  # type: ignore[arg-type]


def test_adapter_maps_every_reading_to_one_input() -> None:
    ace = Card.parse("AS")
    assert to_input(_delivery(CardRead(ace, "E0", b"\x02", 5))) == CardDrawn(
        ts=TS, card="AS", raw="02"
    )
    assert to_input(_delivery(CardUnreadable(b"NOREAD"))) == CardDrawn(
        ts=TS, card=None, raw=b"NOREAD".hex(), detail="the shoe reported a card it could not read"
    )
    garbled = to_input(_delivery(LineError("bad", b"\xff")))
    assert isinstance(garbled, CardDrawn) and garbled.card is None
    assert garbled.detail == "bad"  # the driver's words reach the incident
    assert to_input(_delivery(FrameError("CRC mismatch", b"\x02"))) is None
    jam = to_input(_delivery(ShoeStatus(frozenset({StatusFlag.JAM}))))
    assert jam == DeviceStatus(ts=TS, device="shoe", status="fault", detail="jam")
    clear = to_input(_delivery(ShoeStatus(frozenset())))
    assert isinstance(clear, DeviceStatus) and clear.status == "ok"
    lost = to_input(_delivery(ShoeFault(FaultReason.DISCONNECTED, "gone")))
    assert lost == DeviceStatus(ts=TS, device="shoe", status="fault", detail="disconnected: gone")
    back = to_input(_delivery(ShoeRecovered("line open again")))
    assert isinstance(back, DeviceStatus) and back.status == "ok"
    reset = to_input(_delivery(ShoeReset(1)))
    assert isinstance(reset, DeviceStatus) and reset.status == "fault"
    other = to_input(_delivery(DriverError("reader failed")))
    assert isinstance(other, DeviceStatus) and "reader failed" in other.detail


def test_cards_already_on_the_line_when_it_opens_are_delivered(
    tmp_path: Path, make_reader: Reader
) -> None:
    # pyserial flushes the input at the end of every open(); a barcode shoe never resends, so a
    # card that reached the line just before (a pty) or as (socket://) the host connected was lost.
    master, slave = os.openpty()
    try:
        table = BarcodeTable.card_codes()
        drawn = [Card.parse("AS"), Card.parse("TD")]
        os.write(master, b"".join(table.code_for(c).encode() + b"\r\n" for c in drawn))
        with make_reader(os.ttyname(slave), "barcode") as shoe:
            seen = _read_until(shoe, CardRead)
            seen += _read_until(shoe, CardRead)
        assert [d.item.card for d in seen if isinstance(d.item, CardRead)] == drawn
    finally:
        os.close(master)
        os.close(slave)


def test_a_shoe_fed_by_its_draw_hook_deals_the_dealers_cards_and_keeps_its_line_alive(
    tmp_path: Path, make_reader: Reader
) -> None:
    # The table's simulated dealer draws each card through the simulator's public `draw` hook.
    # While the dealer draws nothing the shoe keeps serving its line: the host hears its
    # heartbeats for longer than the host's silence limit and reports no fault.
    path = tmp_path / "shoe"
    hand = [Card.parse(code) for code in ("AS", "KD", "2C")]
    orders: list[Card] = []
    ready = threading.Event()

    def draw(timeout: float) -> Card | None:
        if not ready.wait(timeout) or not orders:
            return None
        return orders.pop(0)

    sim = SimulatedShoe(f"pty:{path}", "framed", cards=3, interval=0.0, draw=draw)
    with sim, make_reader(str(path), "framed") as reader:
        sim.start()
        time.sleep(1.5)  # nothing drawn yet: past the host's heartbeat limit
        orders.extend(hand)
        ready.set()
        got: list[Card] = []
        while len(got) < 3:
            delivery = reader.read(timeout=10)
            assert delivery is not None
            assert not isinstance(delivery.item, ShoeFault), delivery.item
            if isinstance(delivery.item, CardRead):
                got.append(delivery.item.card)
        assert sim.wait(10) and sim.error is None
    assert got == hand


def test_the_loop_watches_a_descriptor_and_a_thread_reads_every_other_line(
    loop: asyncio.AbstractEventLoop,
) -> None:
    # pyserial's RFC 2217 client reads its socket in a thread of its own, `loop://` has no
    # descriptor: those are read by a thread; a device path and `socket://` by the loop.
    assert scheme("/dev/ttyUSB0") == "" and scheme("SOCKET://h:1") == "socket"
    assert set(READERS) == {"", "socket"}
    for url, kind in [
        ("/nonexistent/shoe", WatchedSerialShoe),
        ("socket://127.0.0.1:9", WatchedSerialShoe),
        ("rfc2217://127.0.0.1:9", SerialShoe),
        ("loop://", SerialShoe),
    ]:
        with open_reader(url, "framed", loop=loop) as reader:
            assert type(reader) is kind, url
    with open_reader("/nonexistent/shoe", "framed") as reader:
        assert type(reader) is SerialShoe  # no loop: only a thread can read


def test_either_reader_hands_its_deliveries_to_the_loops_thread(tmp_path: Path) -> None:
    # The runtime applies every delivery in its loop's thread, whichever reader read it.
    async def deal(url: str) -> tuple[list[str], set[int]]:
        loop = asyncio.get_running_loop()
        threads: set[int] = set()
        cards: list[str] = []
        done = asyncio.Event()
        reader: ShoeLineReader | None = None

        def wake() -> None:
            threads.add(threading.get_ident())
            assert reader is not None
            while not reader.deliveries.empty():
                item = reader.deliveries.get_nowait().item
                if isinstance(item, CardRead):
                    cards.append(item.card.code)
            if len(cards) == 5:
                done.set()

        reader = open_reader(url, "barcode", loop=loop, wake=wake)
        try:
            await asyncio.wait_for(done.wait(), 20)
        finally:
            await asyncio.to_thread(reader.close)
        return cards, threads

    log = io.StringIO()
    line = TcpLine("127.0.0.1", 0)
    with SimulatedShoe(line, "barcode", cards=5, interval=0.01, log_to=log).start() as sim:
        cards, threads = asyncio.run(deal(f"socket://127.0.0.1:{line.port}"))
        assert sim.wait(10) and sim.error is None
    assert cards == [entry.split('"')[3] for entry in log.getvalue().splitlines()]
    assert threads == {threading.get_ident()}  # asyncio.run's loop runs in this thread


def test_a_watched_reader_closed_from_another_thread_lets_go_of_its_line(
    tmp_path: Path, loop: asyncio.AbstractEventLoop
) -> None:
    path = tmp_path / "shoe"
    with SimulatedShoe(f"pty:{path}", "framed", cards=2, interval=0.01).start() as sim:
        reader = WatchedSerialShoe(str(path), "framed", loop=loop, wake=lambda: None)
        _read_until(reader, CardRead)
        assert reader.health().connected
        reader.close()
        assert reader.closed and not reader.health().connected
        reader.close()  # idempotent
        sim.close()
    # The loop watches nothing of the reader's any more: it stops and closes cleanly.
    assert not [t for t in threading.enumerate() if t.name.startswith("shoe-")]
