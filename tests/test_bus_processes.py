"""Whole processes on loopback: a subscriber SIGKILLed and restarted, `studio proxy` fan-in."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_bus_support import (  # noqa: F401  (fixtures are used by name)
    Keys,
    TableRig,
    drain,
    keys_fixture,
    mixed_events,
    no_leaks,
)

from studio.bus import KeyPair, ReplayTarget, StreamProxy, Subscriber
from studio.bus.keys import create_key_files, register_key
from studio.errors import BusError

# A settlement consumer: records each delivered seq on its own line (its persisted position).
CONSUMER = """
import sys
from studio.bus import KeyPair, ReplayTarget, Subscriber
stream, replay, server_key, key_file, out, after = sys.argv[1:]
server = server_key.encode()
with Subscriber(stream, {"T1": ReplayTarget(replay, server)}, audience="restricted",
                client_keys=KeyPair.load(key_file), stream_server_key=server,
                after={"T1": int(after)}) as sub, open(out, "a") as log:
    while (event := sub.receive(2.0)) is not None:
        log.write(f"{event.seq}\\n")
        log.flush()
"""


def _lines(path: Path) -> list[int]:
    if not path.exists():
        return []
    return [int(x) for x in path.read_text().split()]


def test_a_subscriber_killed_and_restarted_mid_stream_ends_gapless(
    keys: Keys, tmp_path: Path
) -> None:
    total = 3000
    _, secret = create_key_files(tmp_path, "settler")
    register_key(keys.allow_list_path, "settler", "settlement", KeyPair.load(secret).public)
    out = tmp_path / "delivered.txt"
    with TableRig(keys, heartbeat=0.2) as rig:
        args = [rig.endpoints["restricted"], rig.replay.endpoint, keys.server.public.decode()]
        args += [str(secret), str(out)]

        def start(after: int) -> subprocess.Popen[bytes]:
            return subprocess.Popen([sys.executable, "-c", CONSUMER, *args, str(after)])

        def publish() -> None:
            for event in mixed_events("T1", total):
                rig.emit(event)
                time.sleep(0.001)

        first = start(0)
        feeder = threading.Thread(target=publish)
        feeder.start()
        try:
            deadline = time.monotonic() + 20
            while len(_lines(out)) < 300 and time.monotonic() < deadline:
                time.sleep(0.02)
            first.send_signal(signal.SIGKILL)
            first.wait()
            killed_at = _lines(out)[-1]
            assert killed_at < total, "the stream ended before the kill: nothing was tested"
            second = start(killed_at)
            try:
                feeder.join()
                assert second.wait(timeout=30) == 0
            finally:
                if second.poll() is None:
                    second.kill()
                    second.wait()
        finally:
            feeder.join()
            if first.poll() is None:
                first.kill()
                first.wait()
    assert _lines(out) == list(range(1, total + 1))


def test_studio_proxy_forwards_several_tables_to_one_subscriber(keys: Keys) -> None:
    tables = ("T1", "T2", "T3")
    rigs = [TableRig(keys, t) for t in tables]
    proxy = None
    try:
        command = [sys.executable, "-m", "studio.cli", "proxy", "--frontend", "tcp://127.0.0.1:0"]
        for rig in rigs:
            command += ["--upstream", rig.endpoints["public"]]
        proxy = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=dict(os.environ))
        assert proxy.stdout is not None
        line = proxy.stdout.readline()
        frontend = line.split("frontend ")[1].split(",")[0]
        for rig in rigs:  # Some events before the subscriber exists: it must catch up on them.
            for event in mixed_events(rig.table, 20):
                rig.emit(event)
        with Subscriber(
            frontend,
            {rig.table: rig.target() for rig in rigs},
            audience="public",
            client_keys=keys.clients["observer"],
        ) as sub:
            time.sleep(0.5)  # The subscription travels through the proxy to every table.
            for rig in rigs:
                for event in mixed_events(rig.table, 200)[20:]:
                    rig.emit(event)
            seen: dict[str, list[int]] = {t: [] for t in tables}
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and any(s[-1:] != [200] for s in seen.values()):
                event = sub.receive(0.5)
                if event is not None:
                    seen[event.table].append(event.seq)
            live = sum(len(s) for s in seen.values()) - sub.replayed
        expected = [s for s in range(1, 201) if s % 3]
        assert seen == dict.fromkeys(tables, expected)
        assert live > 0, "nothing came through the proxy itself"
        proxy.send_signal(signal.SIGTERM)
        assert proxy.wait(timeout=10) == 0
    finally:
        if proxy is not None and proxy.poll() is None:
            proxy.kill()
            proxy.wait()
        if proxy is not None and proxy.stdout is not None:
            proxy.stdout.close()
        for rig in rigs:
            rig.close()


def test_a_curve_proxy_carries_restricted_streams_to_authorised_keys_only(keys: Keys) -> None:
    proxy_keys = KeyPair.generate()
    register_key(keys.allow_list_path, "proxy", "settlement", proxy_keys.public)
    with (
        TableRig(keys) as rig,
        StreamProxy(
            "tcp://127.0.0.1:0",
            [ReplayTarget(rig.endpoints["restricted"], keys.server.public)],
            security=keys.security,
            client_keys=proxy_keys,
        ) as proxy,
    ):
        for event in mixed_events("T1", 30):
            rig.emit(event)

        def follow(role: str, catch_up: bool = True) -> Subscriber:
            return Subscriber(
                proxy.frontend,
                {"T1": rig.target()},
                audience="restricted",
                client_keys=keys.clients[role],
                stream_server_key=keys.server.public,
                catch_up_on_start=catch_up,
            )

        with follow("settlement") as sub:
            time.sleep(0.5)  # The subscription travels through the proxy's own handshakes.
            for event in mixed_events("T1", 60)[30:]:
                rig.emit(event)
            assert drain(sub, until=60) == list(range(1, 61))
            assert sub.replayed < 60  # Some came live through the proxy.
        # An observer may neither replay restricted events nor complete the proxy's handshake.
        with pytest.raises(BusError, match="audience"):
            follow("observer")
        with follow("observer", catch_up=False) as outsider:
            rig.emit(mixed_events("T1", 61)[60])
            assert outsider.receive(1.0) is None
