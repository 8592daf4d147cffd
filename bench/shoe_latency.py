"""Shoe-to-input latency: from the simulator writing a card's bytes to the reader handing over the
`CardRead`, p50 and p99, over a pty, over ser2net (rfc2217), over a TCP socket, beside the raw pty
one-way trip and round trip measured in the same run.

The simulator runs as its own process (`studio shoe simulate`), as a real shoe is, and logs when
it wrote each card; the reader runs here. Both read CLOCK_MONOTONIC, one clock for every process.
ser2net (Debian package) is started on a loopback port with `chardelay: false`; without it the
ser2net row is skipped.

    python bench/shoe_latency.py [--cards N] [--interval-ms MS] [--protocol framed|barcode] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import termios
import time
import tty
from pathlib import Path

import numpy as np

from drivers.shoe.readings import CardRead
from drivers.shoe.serial_shoe import SerialShoe

FRAME = bytes(range(0x20, 0x20 + 22))  # the size of a card frame with an 8-byte tag


def percentiles(samples: list[float]) -> dict[str, float]:
    p50, p99 = (float(v) for v in np.percentile(samples, [50, 99]))
    return {
        "n": len(samples),
        "p50_us": p50 * 1e6,
        "p99_us": p99 * 1e6,
        "max_us": max(samples) * 1e6,
        "mean_us": statistics.fmean(samples) * 1e6,
    }


def raw_pty(count: int) -> tuple[list[float], list[float]]:
    """Write a frame into a raw pty master, time until the slave reads it; and back again."""
    master, slave = os.openpty()
    tty.setraw(slave, termios.TCSANOW)
    one_way: list[float] = []
    round_trip: list[float] = []
    try:
        for _ in range(count):
            t0 = time.monotonic()
            os.write(master, FRAME)
            got = b""
            while len(got) < len(FRAME):
                select.select([slave], [], [], 1.0)
                got += os.read(slave, 4096)
            t1 = time.monotonic()
            os.write(slave, got)
            back = b""
            while len(back) < len(FRAME):
                select.select([master], [], [], 1.0)
                back += os.read(master, 4096)
            t2 = time.monotonic()
            one_way.append(t1 - t0)
            round_trip.append(t2 - t0)
    finally:
        os.close(master)
        os.close(slave)
    return one_way, round_trip


def start_simulator(
    tmp: Path, protocol: str, where: list[str], cards: int, interval_ms: float
) -> tuple[subprocess.Popen[str], Path, str]:
    """Start `studio shoe simulate` in its own process; return it, its log and its address."""
    log = tmp / f"deal-{time.monotonic_ns()}.jsonl"
    cmd = [sys.executable, "-m", "studio.cli", "shoe", "simulate", "--protocol", protocol, *where]
    cmd += ["--cards", str(cards), "--interval-ms", str(interval_ms), "--start-delay-ms", "1500"]
    proc = subprocess.Popen(
        [*cmd, "--log", str(log)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    ready = proc.stdout.readline().strip()
    if not ready.startswith("ready "):
        proc.kill()
        raise SystemExit(f"simulator did not start: {ready!r}")
    return proc, log, ready.split("=", 1)[1]


def shoe_latency(
    proc: subprocess.Popen[str], log: Path, url: str, protocol: str, cards: int
) -> list[float]:
    """Read `cards` cards from `url`; latency = reader hand-over minus simulator write time."""
    arrived: list[float] = []
    try:
        with SerialShoe(url, protocol) as shoe:
            deadline = time.monotonic() + 120
            while len(arrived) < cards and time.monotonic() < deadline:
                delivery = shoe.read(timeout=1.0)
                if delivery is not None and isinstance(delivery.item, CardRead):
                    arrived.append(delivery.at)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    written = [json.loads(line)["t"] for line in log.read_text().splitlines()]
    # time.monotonic() is CLOCK_MONOTONIC: one clock for both processes.
    return [at - t for at, t in zip(arrived, written, strict=False)]


def ser2net(tmp: Path, device: Path) -> tuple[subprocess.Popen[bytes], int]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = tmp / "ser2net.yaml"
    config.write_text(
        "%YAML 1.1\n---\nconnection: &shoe\n"
        f"  accepter: telnet(rfc2217),tcp(nodelay),127.0.0.1,{port}\n"
        f"  connector: serialdev,{device},9600n81,local\n"
        "  options:\n    kickolduser: true\n    chardelay: false\n    mdns: false\n"
    )
    proc = subprocess.Popen(
        ["ser2net", "-n", "-u", "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.02)
    return proc, port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--interval-ms", type=float, default=2.0)
    parser.add_argument("--protocol", default="framed", choices=("framed", "barcode"))
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    figures: dict[str, dict[str, float]] = {}

    one_way, round_trip = raw_pty(args.cards)
    figures["raw pty one-way"] = percentiles(one_way)
    figures["raw pty round trip"] = percentiles(round_trip)

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        path = tmp / "shoe"
        n, ms = args.cards, args.interval_ms
        proc, log, _ = start_simulator(tmp, args.protocol, ["--pty", str(path)], n, ms)
        figures["shoe -> input, pty"] = percentiles(
            shoe_latency(proc, log, str(path), args.protocol, n)
        )
        where = ["--listen", "127.0.0.1:0"]
        proc, log, address = start_simulator(tmp, args.protocol, where, n, ms)
        figures["shoe -> input, socket://"] = percentiles(
            shoe_latency(proc, log, f"socket://{address}", args.protocol, n)
        )
        if shutil.which("ser2net"):
            proc, log, _ = start_simulator(tmp, args.protocol, ["--pty", str(path)], n, ms)
            server, port = ser2net(tmp, path)
            try:
                url = f"rfc2217://127.0.0.1:{port}?ign_set_control"
                figures["shoe -> input, ser2net rfc2217"] = percentiles(
                    shoe_latency(proc, log, url, args.protocol, n)
                )
            finally:
                server.terminate()
                server.wait()
        else:
            print("ser2net is not installed: skipping the ser2net row")

    print(f"{args.protocol} protocol, {args.cards} cards, one per {args.interval_ms} ms")
    print(f"{'path':34} {'n':>6} {'p50 us':>9} {'p99 us':>9} {'max us':>9}")
    for name, row in figures.items():
        print(
            f"{name:34} {row['n']:6.0f} {row['p50_us']:9.0f} {row['p99_us']:9.0f} "
            f"{row['max_us']:9.0f}"
        )
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
