"""Shared pieces of the bus tests: keys, an in-memory event store, envelopes (no tests here)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from studio.bus import (
    AllowList,
    EventPublisher,
    KeyPair,
    ReplayService,
    ReplayTarget,
    ServerSecurity,
    Subscriber,
)
from studio.bus.keys import register_key
from studio.messages import Role

ROLE_NAMES: tuple[Role, ...] = ("dealer", "shift_manager", "settlement", "observer")


def envelope(
    table: str, seq: int, audience: str = "public", type_: str = "card_dealt"
) -> dict[str, Any]:
    return {
        "table": table,
        "seq": seq,
        "game_number": f"{table}-1",
        "ts": "2026-01-01T00:00:00Z",
        "audience": audience,
        "type": type_,
        "body": {"n": seq},
        "schema_version": 1,
    }


def mixed_events(table: str, count: int) -> list[dict[str, Any]]:
    """Every third event restricted, like face-down cards among public ones."""
    return [
        envelope(table, s, "restricted" if s % 3 == 0 else "public") for s in range(1, count + 1)
    ]


class MemorySource:
    """An EventSource over a list, appended to by the test as the 'journal'."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: list[dict[str, Any]] = []

    def append(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._events.append(event)

    def events_from(self, seq: int) -> Iterator[dict[str, Any]]:
        with self._lock:
            snapshot = list(self._events[max(0, seq - 1) :])
        return iter(snapshot)

    def snapshot(self) -> Mapping[str, Any]:
        with self._lock:
            return {"phase": "dealing", "events": len(self._events)}

    def public_snapshot(self) -> Mapping[str, Any]:
        with self._lock:
            return {"phase": "dealing"}


@dataclass
class Keys:
    server: KeyPair
    clients: dict[str, KeyPair]
    allow_list_path: Path
    security: ServerSecurity


def make_keys(folder: Path) -> Keys:
    server = KeyPair.generate()
    path = folder / "allow_list.json"
    clients: dict[str, KeyPair] = {}
    for role in ROLE_NAMES:
        pair = KeyPair.generate()
        register_key(path, role, role, pair.public)
        clients[role] = pair
    clients["stranger"] = KeyPair.generate()
    return Keys(server, clients, path, ServerSecurity(server, AllowList(path)))


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Fail a test that leaves a thread or a file descriptor open (a zmq context holds both)."""
    before = set(threading.enumerate())
    fds_before = _open_fds()
    yield
    deadline = time.monotonic() + 3.0
    while True:
        extra = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        fds = _open_fds() - fds_before
        if (not extra and not fds) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not extra, f"leaked threads: {extra}"
    assert not fds, f"leaked file descriptors: {sorted(fds)}"


def _open_fds() -> set[str]:
    folder = Path("/proc/self/fd")
    if not folder.is_dir():
        return set()
    found = set()
    for fd in folder.iterdir():
        try:
            found.add(f"{fd.name}->{os.readlink(fd)}")
        except OSError:
            continue
    return found


@pytest.fixture(name="keys")
def keys_fixture(tmp_path: Path) -> Keys:
    return make_keys(tmp_path)


class TableRig:
    """One table's publisher and replay service over an in-memory 'journal'."""

    def __init__(
        self, keys: Keys, table: str = "T1", *, sndhwm: int = 1000, heartbeat: float = 0.2
    ) -> None:
        self.keys = keys
        self.table = table
        self.source = MemorySource()
        self.replay = ReplayService("tcp://127.0.0.1:0", self.source, security=keys.security)
        try:
            self.publisher = EventPublisher(
                table,
                public_endpoint="tcp://127.0.0.1:0",
                restricted_endpoint="tcp://127.0.0.1:0",
                security=keys.security,
                heartbeat_interval=heartbeat,
                sndhwm=sndhwm,
            )
        except BaseException:
            self.replay.close()
            raise
        self.endpoints = self.publisher.endpoints

    def emit(self, event: dict[str, Any]) -> None:
        # The journal first, then the stream: the order the runtime keeps.
        self.source.append(event)
        self.publisher.publish(event)

    def target(self) -> ReplayTarget:
        return ReplayTarget(self.replay.endpoint, self.keys.server.public)

    def subscriber(
        self, audience: str = "restricted", role: str = "settlement", **kw: Any
    ) -> Subscriber:
        restricted = audience == "restricted"
        return Subscriber(
            self.endpoints["restricted" if restricted else "public"],
            {self.table: self.target()},
            audience="restricted" if restricted else "public",
            client_keys=self.keys.clients[role],
            stream_server_key=self.keys.server.public if restricted else None,
            **kw,
        )

    def close(self) -> None:
        self.publisher.close()
        self.replay.close()

    def __enter__(self) -> TableRig:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def drain(sub: Subscriber, *, until: int, timeout: float = 10.0) -> list[int]:
    """Receive until the event `until` arrives (or the time runs out); return the seqs in order."""
    seqs: list[int] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = sub.receive(0.5)
        if event is None:
            continue
        seqs.append(event.seq)
        if event.seq >= until:
            break
    return seqs
