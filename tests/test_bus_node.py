"""A Node.js consumer (npm `zeromq`) built from the docs and the JSON Schema sees what Python does.

Skipped when `node` is missing or its packages are not installed (`npm ci --prefix tests/node`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_bus_support import (  # noqa: F401  (fixtures are used by name)
    Keys,
    TableRig,
    drain,
    keys_fixture,
    no_leaks,
)

NODE_DIR = Path(__file__).resolve().parent / "node"


def _card_events(table: str, count: int) -> list[dict[str, Any]]:
    """Real-shaped card_dealt events: a face-down card's public twin has no card."""
    events = []
    for seq in range(1, count + 1):
        restricted = seq % 3 == 0
        events.append(
            {
                "table": table,
                "seq": seq,
                "game_number": f"{table}-000001",
                "ts": "2026-01-01T12:00:00.000001Z",
                "audience": "restricted" if restricted else "public",
                "type": "card_dealt",
                "body": {
                    "position": f"player_{seq % 5 + 1}",
                    "face": "down" if seq % 2 else "up",
                    "number": seq,
                    "card": "AS" if restricted or seq % 2 == 0 else None,
                },
                "schema_version": 1,
            }
        )
    return events


def test_a_node_consumer_validates_every_message_and_sees_the_python_sequence(
    keys: Keys, tmp_path: Path
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    if not (NODE_DIR / "node_modules" / "zeromq").is_dir():
        pytest.skip("npm packages missing: npm ci --prefix tests/node")
    schema = tmp_path / "schema.json"
    subprocess.run([sys.executable, "-m", "studio.cli", "schema", "--out", str(schema)], check=True)
    events = _card_events("T1", 300)
    last_public = max(e["seq"] for e in events if e["audience"] == "public")
    observer = keys.clients["observer"]
    assert observer.secret is not None
    with TableRig(keys) as rig, rig.subscriber("public", "observer") as python_sub:
        for event in events[:100]:  # The Node consumer joins late: it must catch up.
            rig.emit(event)
        consumer = subprocess.Popen(
            [
                node,
                str(NODE_DIR / "consumer.mjs"),
                rig.endpoints["public"],
                rig.replay.endpoint,
                keys.server.public.decode(),
                observer.public.decode(),
                observer.secret.decode(),
                str(schema),
                "T1",
                str(last_public),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            time.sleep(0.5)
            for event in events[100:]:
                rig.emit(event)
                time.sleep(0.001)
            out, err = consumer.communicate(timeout=30)
        finally:
            if consumer.poll() is None:
                consumer.kill()
                consumer.communicate()
        python_seqs = drain(python_sub, until=last_public)
    assert consumer.returncode == 0, err
    result = json.loads(out.strip().splitlines()[-1])
    assert result["delivered"] == python_seqs == [e["seq"] for e in events if e["seq"] % 3]
    assert result["validated"] >= len(python_seqs)
