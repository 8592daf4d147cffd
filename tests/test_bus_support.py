"""Shared pieces of the bus tests: keys, an in-memory event store, envelopes (no tests here)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.bus import AllowList, KeyPair, Role, ServerSecurity
from studio.bus.keys import register_key

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
