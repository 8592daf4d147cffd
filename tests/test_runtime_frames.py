"""The bytes a running table publishes and journals for a round, pinned.

A card's way through `TableRuntime.submit` is tuned for its latency (the events' JSON made from
their fields, the frames made before the commit, the journal's records chained inline). None of
that may change a byte a subscriber or an auditor sees: this plays two clean rounds of Caribbean
Stud (live variant, hidden procedure) through a real runtime (journal, streams on
ipc sockets, subscribers with a restricted reader's key), on a clock the test sets, each card's
input made from the shoe driver's reading as the line's callback makes it, and compares every
event frame received on both streams, and the journal's records, to digests taken before the
tuning. A change that alters them on purpose (a new field, a format) updates the digests in
the same commit and says why.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import zmq
from test_controller_kit import CONFIGS, FAST, T0, bench, shuffled

from drivers.shoe.adapter import to_input
from drivers.shoe.readings import CardRead, Delivery
from studio.bus.keys import KeyPair
from studio.bus.security import secure_client
from studio.bus.wire import parse_frames
from studio.cards import Card
from studio.config import RuntimeConfig, build_config
from studio.journal import Journal
from studio.messages import CardDrawn, Envelope, Input
from studio.runtime import TableRuntime

FRAMES_DIGEST = "3de0ff5325a8f11ac51cc7176b6b0c9cafeda1420355b1dee4bfd2fb7e5eca0c"
"""SHA-256 of every event frame both streams carried (110 events), in order (main at bda3a04)."""
RECORDS_DIGEST = "9be092003b531848fa4ffdcc87a896329ba7dd3882f86d16b17545f20edffedb"
"""SHA-256 of the journal's 124 records, every column, in order (main at bda3a04)."""


class SetClock:
    """The runtime's clock, moved by the test only: the wall clock and a monotonic count."""

    def __init__(self) -> None:
        self.at = T0
        self.mono = 1000.0

    def now(self) -> datetime:
        return self.at

    def monotonic(self) -> float:
        return self.mono


def _config(root: Path) -> RuntimeConfig:
    return build_config(
        {
            "table": {**FAST, **CONFIGS[0]},
            "shoe": {"pty": str(root / "shoe")},
            "journal": {"path": str(root / "table.journal")},
            "bus": {
                "public": f"ipc://{root}/pub",
                "restricted": f"ipc://{root}/res",
                "replay": f"ipc://{root}/rep",
                "commands": f"ipc://{root}/cmd",
                "keys_dir": str(root / "keys"),
            },
            "dealer": {"enabled": False},
            "camera": {"backend": "none"},
        }
    )


def _subscribe(
    ctx: zmq.Context[zmq.Socket[bytes]], table: TableRuntime, config: RuntimeConfig
) -> dict[str, zmq.Socket[bytes]]:
    keys = table.keys
    assert keys is not None
    socks: dict[str, zmq.Socket[bytes]] = {}
    for name, endpoint in (("public", config.bus.public), ("restricted", config.bus.restricted)):
        sock = ctx.socket(zmq.SUB)
        sock.setsockopt(zmq.LINGER, 0)
        if name == "restricted":
            manager = KeyPair.load(keys.local_secret("shift-manager"))
            secure_client(sock, manager, KeyPair.load(keys.server_public).public)
        sock.setsockopt(zmq.SUBSCRIBE, b"")
        sock.connect(endpoint)
        socks[name] = sock
    return socks


async def _joined(socks: dict[str, zmq.Socket[bytes]]) -> None:
    # Every stream greets a new subscriber (a heartbeat): then its subscription is in.
    for sock in socks.values():
        deadline = time.monotonic() + 10
        while True:
            try:
                sock.recv_multipart(zmq.NOBLOCK)
                break
            except zmq.Again:
                assert time.monotonic() < deadline, "the stream never greeted its subscriber"
                await asyncio.sleep(0.01)


async def _events(sock: zmq.Socket[bytes], count: int) -> list[list[bytes]]:
    got: list[list[bytes]] = []
    deadline = time.monotonic() + 10
    while len(got) < count and time.monotonic() < deadline:
        try:
            frames = sock.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            await asyncio.sleep(0.01)
            continue
        if parse_frames(frames).event is not None:  # not a heartbeat, not a notice
            got.append(frames)
    return got


def _digest(parts: list[Any]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else repr(part).encode()
        digest.update(len(data).to_bytes(4, "big") + data)
    return digest.hexdigest()


def test_a_round_publishes_and_journals_the_same_bytes_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    config = _config(tmp_path)
    clock = SetClock()
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    received: dict[str, list[list[bytes]]] = {}
    counts = {"public": 0, "restricted": 0}

    async def drive(table: TableRuntime) -> None:
        socks = _subscribe(ctx, table, config)
        try:
            await _joined(socks)
            b = bench(CONFIGS[0])
            assert table._parts is not None
            b.ctl = table._parts.controller  # type: ignore[assignment]

            def feed(inp: Input) -> list[Envelope]:
                clock.at, clock.mono = inp.ts, 1000.0 + (inp.ts - T0).total_seconds()
                if isinstance(inp, CardDrawn) and inp.card is not None:
                    # As the line's callback makes it: from the driver's typed reading.
                    card = Card.parse(inp.card)
                    reading = CardRead(card, "E0041A2B", b"\x02\x10\x03", card.index, 3)
                    inp = to_input(Delivery(reading, 0.0, inp.ts), mono=clock.monotonic())
                out = table.submit(inp)
                b.inputs.append(inp)
                b.events.extend(out)
                for event in out:
                    counts["restricted"] += 1
                    counts["public"] += event.audience == "public"
                return out

            b.feed = feed  # type: ignore[method-assign]
            for seed in (7, 8):
                assert b.play_round(shuffled(seed))
                b.step(2.0)
            for name, sock in socks.items():
                received[name] = await _events(sock, counts[name])
        finally:
            for sock in socks.values():
                sock.close()
            table.stop()

    try:
        assert asyncio.run(TableRuntime(config, announce=False, clock=clock).run(drive)) == 0
    finally:
        ctx.term()
    assert counts["public"] > 20 and len(received["public"]) == counts["public"]
    assert len(received["restricted"]) == counts["restricted"]
    with Journal(config.journal_path, readonly=True) as journal:
        records = list(journal.records())
    assert any(r.kind == "input" and '"card_drawn"' in r.body for r in records)
    frames = [part for name in ("public", "restricted") for f in received[name] for part in f]
    assert _digest(frames) == FRAMES_DIGEST
    assert _digest([tuple(r) for r in records]) == RECORDS_DIGEST
