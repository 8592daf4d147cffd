"""Shared pieces of the end-to-end tests: a `studio run` process on ipc endpoints (no tests here).

Each table gets its own temporary data directory, key directory and ipc endpoints, so tests never
meet each other (or the default loopback ports another engineer's table may hold), and every
process is killed and reaped when its test ends.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rig_support import RigConfig

from studio.bus import KeyPair, ReplayTarget, Subscriber
from studio.bus.keys import create_key_files, register_key
from studio.bus.wire import WireEvent
from studio.config import CameraConfig, DealerConfig
from studio.messages import Role

START_SECONDS = 60
"""How long `studio run` may take to print `ready`. A liveness bound, not a speed target: on a
cold cache the table may first learn its deck, and CI shares two cores with other work, where a
start that takes 5 s on a quiet machine has been seen to take over 20 s."""


def fast_table(root: Path, table: str, game: str, draw: float, extra: str = "") -> RigConfig:
    """The end-to-end tests' table: a quick pace, the simulated shoe and the synthetic camera.

    `extra` is TOML of the sections a test sets itself (`[camera]`, `[shoe]`, `[integrity]`),
    each read whole into the rig's typed section (a section the rig does not take is refused).
    The synthetic camera is the embedded default: several tables (and the tests) share two cores
    here, so it gets more than the default 2 s to confirm a card. A card it cannot read still
    pauses the round, only later. Rounds open when the simulated dealer opens them.
    """
    sections: dict[str, Any] = {
        "shoe": "simulated",
        "camera": CameraConfig(backend="synthetic"),
        **tomllib.loads(extra),
    }
    return RigConfig(
        root=root,
        table=table,
        game=game,
        camera_confirm_seconds=5.0,
        auto_start=False,
        dealer=DealerConfig(draw_seconds=draw),
        **sections,
    )


@dataclass
class TableRig:
    """One table's files and endpoints, and the `studio run` processes started on them."""

    root: Path
    game: str = "caribbean-stud"
    draw: float = 0.02
    extra: str = ""
    table: str = "T01"
    procs: list[subprocess.Popen[str]] = field(default_factory=list)
    banner: str = ""

    def __post_init__(self) -> None:
        self.settings = fast_table(self.root, self.table, self.game, self.draw, self.extra)
        self.config = self.settings.write()
        self.env = {
            **os.environ,
            "XDG_DATA_HOME": str(self.root / "data"),
            "STUDIO_KEYS_DIR": str(self.root / "keys"),
        }

    def reconfigure(self, **changes: Any) -> None:
        """Set `changes` on the rig's configuration (refused if unknown) and write it again."""
        self.settings = RigConfig(**{**dict(self.settings), **changes})
        self.settings.write(self.config)

    @property
    def keys_dir(self) -> Path:
        return self.root / "keys"

    @property
    def journal(self) -> Path:
        return self.root / "data" / "studio" / "journals" / f"{self.table}-{self.game}.journal"

    def endpoint(self, name: str) -> str:
        return f"ipc://{self.root}/{name}"

    def server_key(self) -> bytes:
        return KeyPair.load(self.keys_dir / "table.key").public

    def key(self, name: str) -> KeyPair:
        return KeyPair.load(self.keys_dir / f"{name}.key_secret")

    def add_key(self, name: str, role: Role) -> KeyPair:
        public, _ = create_key_files(self.keys_dir, name)
        register_key(self.keys_dir / "allow_list.json", name, role, KeyPair.load(public).public)
        return self.key(name)

    def start(self, *args: str) -> subprocess.Popen[str]:
        """Start `studio run` and wait for its `ready` line."""
        proc = subprocess.Popen(
            [sys.executable, "-m", "studio.cli", "run", "--config", str(self.config), *args],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.procs.append(proc)
        assert proc.stdout is not None
        lines = []
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            if line.strip() == "ready":
                self.banner = "".join(lines)
                # Keep draining stdout so the table never blocks on a full pipe.
                threading.Thread(target=proc.stdout.read, daemon=True).start()
                return proc
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"studio run did not get ready: {''.join(lines)}\n{err}")

    def replay_target(self) -> ReplayTarget:
        """This table's replay service and its CURVE public key (the table made it on start)."""
        return ReplayTarget(self.endpoint("rep"), self.server_key())

    def subscriber(
        self, key: str = "observer", *, after: int = 0, restricted: bool = False
    ) -> Subscriber:
        server = self.server_key()
        return Subscriber(
            self.endpoint("res" if restricted else "pub"),
            {self.table: ReplayTarget(self.endpoint("rep"), server)},
            audience="restricted" if restricted else "public",
            client_keys=self.key(key),
            stream_server_key=server if restricted else None,
            after={self.table: after},
        )

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()


@contextmanager
def table_rig(
    root: Path, game: str = "caribbean-stud", extra: str = "", *, table_id: str = "T01"
) -> Iterator[TableRig]:
    """A `TableRig` whose processes are killed and reaped when the block ends."""
    table = TableRig(root, game, table=table_id, extra=extra)
    try:
        yield table
    finally:
        table.close()


@pytest.fixture(name="rig")
def rig_fixture(tmp_path: Path) -> Iterator[TableRig]:
    with table_rig(tmp_path) as table:
        yield table


def collect(
    sub: Subscriber, until: Any, timeout: float = 30.0, into: list[WireEvent] | None = None
) -> list[WireEvent]:
    """Receive events until `until(event)` is true for one; fail after `timeout` seconds."""
    got = into if into is not None else []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = sub.receive(timeout=0.5)
        if event is None:
            continue
        got.append(event)
        if until(event):
            return got
    pytest.fail(f"gave up after {len(got)} events: {[e.type for e in got[-10:]]}")


def body(event: WireEvent) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(event.payload)["body"]
    return data
