"""The metrics count what the published events say, and the probes answer what a person needs."""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import generate_latest

from studio.errors import ConfigurationError, JournalError
from studio.messages import Envelope
from studio.runtime.health import MetricsServer
from studio.runtime.metrics import TableMetrics


def _event(seq: int, kind: str, body: dict[str, Any], audience: str = "restricted") -> Envelope:
    return Envelope(
        table="T9",
        seq=seq,
        game_number="G1",
        ts=datetime(2026, 1, 1, tzinfo=UTC),
        audience=audience,  # type: ignore[arg-type]
        type=kind,
        body=body,
    )


def _value(metrics: TableMetrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, {"table": "T9", **labels})


def test_events_are_counted_by_kind_and_role() -> None:
    metrics = TableMetrics("T9")
    metrics.published(
        [
            _event(1, "round_result", {}, "public"),
            _event(2, "round_voided", {}, "public"),
            _event(3, "incident_reported", {"kind": "duplicate_card"}),
            _event(4, "incident_reported", {"kind": "duplicate_card"}),
            _event(5, "command_accepted", {"role": "shift_manager"}),
            _event(6, "command_rejected", {"role": "dealer"}),
            _event(7, "command_rejected", {"role": "dealer"}),
        ]
    )
    assert _value(metrics, "studio_rounds_total") == 1
    assert _value(metrics, "studio_voids_total") == 1
    assert _value(metrics, "studio_incidents_total", kind="duplicate_card") == 2
    assert _value(metrics, "studio_commands_total", role="shift_manager", outcome="accepted") == 1
    assert _value(metrics, "studio_commands_total", role="dealer", outcome="refused") == 2
    assert _value(metrics, "studio_events_total") == 7
    # Two tables in one process never mix their figures.
    assert b"T9" not in generate_latest(TableMetrics("T8").registry)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_the_probes_say_why_a_table_is_not_ready() -> None:
    reasons = ["shoe fault", "journal not writable: /x"]
    alive = [False]
    with MetricsServer(
        "127.0.0.1",
        0,
        TableMetrics("T9").registry,
        alive=lambda: alive[0],
        not_ready=lambda: reasons,
    ) as server:
        assert _get(f"{server.address}/healthz") == (503, "event loop not answering\n")
        assert _get(f"{server.address}/readyz") == (503, "shoe fault\njournal not writable: /x\n")
        alive[0] = True
        reasons.clear()
        assert _get(f"{server.address}/healthz") == (200, "alive\n")
        assert _get(f"{server.address}/readyz") == (200, "ready\n")
        with pytest.raises(ConfigurationError, match="cannot listen"):
            port = int(server.address.rsplit(":", 1)[1])
            MetricsServer(
                "127.0.0.1", port, TableMetrics("T9").registry, alive=lambda: True, not_ready=list
            )
    server.close()  # idempotent


def test_readiness_names_each_reason(tmp_path: Path) -> None:
    from studio.controller import TableController
    from studio.messages import TableSettings
    from studio.runtime.health import not_ready

    view = TableController(TableSettings(game="caribbean-stud")).view()
    journal = tmp_path / "t.journal"
    journal.touch()
    assert not_ready(view, journal, None, stopping=False) == []
    faulty = view.model_copy(update={"devices": {"shoe": "fault"}})
    gone = tmp_path / "no-such-dir" / "t.journal"
    assert not_ready(faulty, gone, JournalError("disk full"), stopping=True) == [
        "table stopping",
        "journal failed: disk full",
        f"journal not writable: {gone}",
        "shoe fault",
    ]


def test_liveness_is_the_loop_answering() -> None:
    from studio.runtime.health import loop_answers

    assert not loop_answers(None)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        assert loop_answers(loop)
        blocked = threading.Event()
        loop.call_soon_threadsafe(blocked.wait, 5)  # a hung loop: a callback that never returns
        assert not loop_answers(loop, timeout=0.3)
        blocked.set()
        assert loop_answers(loop)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
    assert not loop_answers(loop)
