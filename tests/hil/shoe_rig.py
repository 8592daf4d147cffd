"""The hardware-in-the-loop rigs and helpers: simulator and ser2net processes, deal collection."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from drivers.shoe.line_reader import ShoeLineReader
from drivers.shoe.readings import CardRead, CardUnreadable, Delivery

READY_TIMEOUT = 10.0
"""Seconds a simulator or ser2net may take to come up on a loaded two-core machine."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class SimulatorProcess:
    """`studio shoe simulate` in a child process, with its log read back."""

    def __init__(self, tmp: Path, protocol: str, *args: str) -> None:
        self.log_path = tmp / f"sim-{time.monotonic_ns()}.jsonl"
        self.pty = tmp / "shoe"
        cmd = [sys.executable, "-m", "studio.cli", "shoe", "simulate", "--protocol", protocol]
        where = [] if "--listen" in args else ["--pty", str(self.pty)]
        cmd += [*where, "--log", str(self.log_path), *args]
        self.stderr = tmp / "sim.err"
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=self.stderr.open("w"), text=True
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline().strip()
        if not ready.startswith("ready "):
            _stop(self.proc)
            pytest.fail(f"simulator did not start: {ready!r} {self.stderr.read_text()}")
        self.address = ready.split("=", 1)[1]

    def finished(self) -> bool:
        return self.proc.poll() is not None

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout)

    def log(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log_path.read_text().splitlines()]

    def stop(self) -> None:
        _stop(self.proc)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class Ser2net:
    """A real ser2net serving one pty on a loopback port, RFC 2217 enabled, no char delay."""

    def __init__(self, tmp: Path, device: Path) -> None:
        self.port = free_port()
        self.config = tmp / "ser2net.yaml"
        # chardelay off: the default holds bytes for two character times (>= 1 ms) to batch
        # them. tcp(nodelay): without it Nagle holds a small frame until the previous one is
        # acknowledged, up to a 40 ms delayed ACK. mdns off: no network beyond loopback.
        self.config.write_text(
            "%YAML 1.1\n---\n"
            "connection: &shoe\n"
            f"  accepter: telnet(rfc2217),tcp(nodelay),127.0.0.1,{self.port}\n"
            f"  connector: serialdev,{device},9600n81,local\n"
            "  options:\n"
            "    kickolduser: true\n"
            "    chardelay: false\n"
            "    mdns: false\n"
        )
        self.log = tmp / "ser2net.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"rfc2217://127.0.0.1:{self.port}?ign_set_control"

    def start(self) -> None:
        # -n: stay in the foreground, so the test owns the process; -u: no UUCP lock files.
        self.proc = subprocess.Popen(
            ["ser2net", "-n", "-u", "-c", str(self.config)],
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("a"),
        )
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.02)
        self.stop()
        pytest.fail(f"ser2net did not listen on {self.port}: {self.log.read_text()}")

    def kill(self) -> float:
        """Kill ser2net outright (a device server losing power); return when, monotonic."""
        assert self.proc is not None
        at = time.monotonic()
        self.proc.kill()
        self.proc.wait()
        return at

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)


@dataclass
class Rig:
    """Where the shoe under test is: `kind` is pty, ser2net or real."""

    kind: str
    tmp: Path
    protocol: str = "framed"
    real_url: str | None = None
    simulators: list[SimulatorProcess] = field(default_factory=list)
    server: Ser2net | None = None

    def simulate(self, protocol: str, *args: str) -> SimulatorProcess:
        if self.kind == "real":
            pytest.skip("needs the simulator (fault injection and a known deal)")
        sim = SimulatorProcess(self.tmp, protocol, *args)
        self.simulators.append(sim)
        if self.kind == "ser2net" and self.server is None:
            self.server = Ser2net(self.tmp, sim.pty)
        return sim

    @property
    def url(self) -> str:
        if self.kind == "real":
            assert self.real_url is not None
            return self.real_url
        if self.kind == "ser2net":
            assert self.server is not None
            return self.server.url
        return str(self.tmp / "shoe")

    def close(self) -> None:
        for sim in self.simulators:
            sim.stop()
        if self.server is not None:
            self.server.stop()


def collect(shoe: ShoeLineReader, sim: SimulatorProcess | None, timeout: float) -> list[Delivery]:
    """Read deliveries until the simulator exited and the line was quiet a moment."""
    out: list[Delivery] = []
    deadline = time.monotonic() + timeout
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        delivery = shoe.read(timeout=0.05)
        if delivery is not None:
            out.append(delivery)
            quiet_since = None
            continue
        if sim is not None and sim.finished():
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 0.5:
                return out
    pytest.fail(f"the deal did not finish within {timeout} s ({len(out)} deliveries)")


def tokens(deliveries: list[Delivery]) -> list[str]:
    """Cards and unreadable cards, in order, as `card:AS` / `unreadable`."""
    out = []
    for delivery in deliveries:
        if isinstance(delivery.item, CardRead):
            out.append(f"card:{delivery.item.card.code}")
        elif isinstance(delivery.item, CardUnreadable):
            out.append("unreadable")
    return out


EXPECTED_TOKENS = {
    "card": lambda code: [f"card:{code}"],
    "twice": lambda code: [f"card:{code}"] * 2,
    "unreadable": lambda code: ["unreadable"],
    "unreadable-twice": lambda code: ["unreadable"] * 2,
    "lost": lambda code: [],
}


def expected_tokens(log: list[dict[str, Any]]) -> list[str]:
    """What a correct reader delivers for the simulator's log."""
    out: list[str] = []
    for entry in log:
        out += EXPECTED_TOKENS[entry["expect"]](entry["card"])
    return out
