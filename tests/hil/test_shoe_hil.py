"""The same tests on every rig: a simulated shoe on a real pty, behind a real ser2net, or a real
shoe (`pytest --shoe-url URL`): clean deals, every injected fault, unplug and replug.

Each line is read by the reader a table chooses for it (`open_reader`, on a running loop): a pty
or a `socket://` line watched by the loop, an `rfc2217://` one (ser2net) by a thread.

The simulator's log is the truth: each card, the faults injected with it, what a correct reader
must deliver, and (monotonic, one clock for every process) when the line went away or mute.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from shoe_rig import Rig, SimulatorProcess, collect, expected_tokens, tokens

from drivers.shoe.readers import open_reader
from drivers.shoe.readings import (
    CardRead,
    Delivery,
    FaultReason,
    ShoeFault,
    ShoeRecovered,
)

# pyserial's own RFC 2217 reader thread dies with BrokenPipeError when ser2net accepts a client
# and then closes at once because its pty is gone (mid-replug); our reader sees the closed line
# and retries, so that thread's traceback is expected noise, not a lost error of ours.
# pyserial 3.5 (the last release) also still calls Thread.setDaemon and setName.
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:.*pySerial RFC 2217 reader thread:pytest.PytestUnhandledThreadExceptionWarning"
    ),
    pytest.mark.filterwarnings("ignore:set(Daemon|Name).. is deprecated:DeprecationWarning"),
]

FAULT_REPORT_BOUND = 1.0
"""The issue's requirement: an unplugged or mute shoe is a fault input within one second."""
START_DELAY_MS = "1500"
"""Time for the reader to open the line before the first card, on a loaded two-core machine."""
ALL_FAULTS = (
    "garbage=0.05,bitflip=0.05,drop=0.05,duplicate=0.05,unreadable=0.05,"
    "heartbeat-stop=0.004,disconnect=0.004,jam=0.01,slow=0.02"
)
FAULT_KINDS = {part.split("=")[0] for part in ALL_FAULTS.split(",")}


def _first_fault_after(deliveries: list[Delivery], at: float, reason: FaultReason) -> float:
    for delivery in deliveries:
        item = delivery.item
        if isinstance(item, ShoeFault) and item.reason is reason and delivery.at >= at:
            return delivery.at - at
    pytest.fail(f"no {reason.value} fault after {at}")


def _check_fault_timing(log: list[dict[str, Any]], deliveries: list[Delivery]) -> None:
    for entry in log:
        if "unplugged_at" in entry:
            took = _first_fault_after(deliveries, entry["unplugged_at"], FaultReason.DISCONNECTED)
            assert took < FAULT_REPORT_BOUND, f"unplug reported after {took:.3f} s"
        if "muted_at" in entry:
            took = _first_fault_after(deliveries, entry["muted_at"], FaultReason.SILENT)
            assert took < FAULT_REPORT_BOUND, f"silence reported after {took:.3f} s"


@pytest.mark.parametrize("protocol", ["framed", "barcode"])
class TestShoeLine:
    def test_clean_deal_of_thousands_of_cards(
        self, rig: Rig, protocol: str, loop: asyncio.AbstractEventLoop
    ) -> None:
        sim = rig.simulate(
            protocol, "--cards", "2000", "--interval-ms", "1", "--start-delay-ms", START_DELAY_MS
        )
        with open_reader(rig.url, protocol, loop=loop) as shoe:
            deliveries = collect(shoe, sim, timeout=40)
        assert sim.wait(5) == 0
        log = sim.log()
        assert len(log) == 2000
        assert tokens(deliveries) == [f"card:{entry['card']}" for entry in log]
        last_card = max(d.at for d in deliveries if isinstance(d.item, CardRead))
        # The simulator's exit unplugs the line afterwards; nothing may fault during the deal.
        assert not [d for d in deliveries if isinstance(d.item, ShoeFault) and d.at < last_card]

    def test_every_fault_kind_is_survived_or_reported(
        self, rig: Rig, protocol: str, loop: asyncio.AbstractEventLoop
    ) -> None:
        faults, kinds = ALL_FAULTS, FAULT_KINDS
        if rig.kind == "ser2net" and protocol == "barcode":
            # A barcode line has no retransmission: after a simulated unplug, the cards drawn
            # before the device server reopens the line are lost, as on real hardware (CI saw
            # 182 of 400). The pty rig still covers the barcode disconnect.
            faults = ",".join(p for p in ALL_FAULTS.split(",") if not p.startswith("disconnect"))
            kinds = FAULT_KINDS - {"disconnect"}
        sim = rig.simulate(
            protocol,
            *("--cards", "400", "--interval-ms", "2", "--start-delay-ms", START_DELAY_MS),
            *("--seed", "6", "--faults", faults),
        )
        with open_reader(rig.url, protocol, loop=loop) as shoe:
            deliveries = collect(shoe, sim, timeout=60)
            health = shoe.health()
        assert sim.wait(5) == 0
        log = sim.log()
        injected = {fault for entry in log for fault in entry["faults"]}
        assert injected == kinds, "the seed must exercise every fault kind"
        assert tokens(deliveries) == expected_tokens(log)
        _check_fault_timing(log, deliveries)
        assert health.protocol_errors > 0
        if protocol == "framed":
            assert health.retransmissions > 0 and health.duplicates > 0

    def test_unplug_and_replug_mid_round(
        self, rig: Rig, protocol: str, loop: asyncio.AbstractEventLoop
    ) -> None:
        if rig.kind == "ser2net" and protocol == "barcode":
            pytest.skip(
                "a barcode line has no retransmission: bytes inside a killed server are lost"
            )
        faults = "disconnect=0.03" if rig.kind == "pty" else ""
        sim = rig.simulate(
            protocol,
            *("--cards", "120", "--interval-ms", "10", "--start-delay-ms", START_DELAY_MS),
            *("--seed", "5", "--faults", faults),
        )
        with open_reader(rig.url, protocol, loop=loop) as shoe:
            killed_at = None
            if rig.kind == "ser2net":
                assert rig.server is not None
                while True:  # unplug the device server in the middle of the deal
                    delivery = shoe.read(timeout=10)
                    assert delivery is not None
                    if isinstance(delivery.item, CardRead) and delivery.item.seq == 40:
                        break
                killed_at = rig.server.kill()
                time.sleep(0.4)
                rig.server.start()
            deliveries = collect(shoe, sim, timeout=60)
        assert sim.wait(5) == 0
        log = sim.log()
        if killed_at is not None:
            took = _first_fault_after(deliveries, killed_at, FaultReason.DISCONNECTED)
            assert took < FAULT_REPORT_BOUND
            skipped = [entry for entry in log if entry["seq"] <= 40]
            log = [entry for entry in log if entry["seq"] > 40]
            assert len(skipped) == 39  # seq 1 is the shoe's RESET frame
        else:
            assert any("unplugged_at" in entry for entry in log)
            _check_fault_timing(log, deliveries)
        assert tokens(deliveries) == expected_tokens(log)
        # Every fault during the deal heals (the simulator's exit unplugs the line at the end).
        last_card = max(d.at for d in deliveries if isinstance(d.item, CardRead))
        faults = [d for d in deliveries if isinstance(d.item, ShoeFault) and d.at < last_card]
        recoveries = [d for d in deliveries if isinstance(d.item, ShoeRecovered)]
        assert faults and len(recoveries) >= len(faults)


def test_real_shoe_deals_a_deck(rig: Rig, loop: asyncio.AbstractEventLoop) -> None:
    """With --shoe-url: a person deals one full deck; every card arrives once."""
    if rig.kind != "real":
        pytest.skip("only for a real shoe (--shoe-url)")
    seen: list[str] = []
    with open_reader(rig.url, rig.protocol, loop=loop) as shoe:
        deadline = time.monotonic() + 300
        while len(seen) < 52 and time.monotonic() < deadline:
            delivery = shoe.read(timeout=1)
            if delivery is not None and isinstance(delivery.item, CardRead):
                seen.append(delivery.item.card.code)
    assert len(seen) == 52 and len(set(seen)) == 52


def test_reader_on_a_socat_pty_bridged_to_a_tcp_shoe(
    tmp_path: Path, loop: asyncio.AbstractEventLoop
) -> None:
    """A pty made by another program (socat), bridged to a simulator on TCP, killed mid-deal."""
    if shutil.which("socat") is None:
        pytest.skip("socat is not installed (Debian package socat; .ci/run installs it)")
    sim = SimulatorProcess(
        tmp_path, "framed", "--cards", "300", "--interval-ms", "5", "--listen", "127.0.0.1:0"
    )
    address = sim.address
    link = tmp_path / "bridge"
    bridge = [
        "socat",
        f"PTY,link={link},raw,echo=0",
        f"TCP:{address},nodelay",
    ]
    socat = subprocess.Popen(bridge, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if link.exists():
                break
            time.sleep(0.02)
        with open_reader(str(link), "framed", loop=loop) as shoe:
            seen: list[Delivery] = []
            while sum(isinstance(d.item, CardRead) for d in seen) < 100:
                delivery = shoe.read(timeout=10)
                assert delivery is not None
                seen.append(delivery)
            killed_at = time.monotonic()
            socat.kill()
            socat.wait()
            socat = subprocess.Popen(bridge, stderr=subprocess.DEVNULL)
            seen += collect(shoe, sim, timeout=60)
        assert sim.wait(5) == 0
        took = _first_fault_after(seen, killed_at, FaultReason.DISCONNECTED)
        assert took < FAULT_REPORT_BOUND
        assert tokens(seen) == expected_tokens(sim.log())
    finally:
        socat.kill()
        socat.wait()
        sim.stop()
