"""A real Prometheus server scrapes a real `studio run`; its query API returns the figures.

Prometheus (Debian's `prometheus` package) is started by the test on loopback with a scrape
config in a temporary directory, and stopped at the end. The table deals a few rounds with the
simulated dealer; the figures must then be in Prometheus, not only on the table's page.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from test_e2e_support import TableRig, table_rig

from drivers.shoe.simulator import FaultRates, SimulatedShoe

PROMETHEUS = shutil.which("prometheus")
NO_CAMERA = '[camera]\nbackend = "none"\n'


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except urllib.error.URLError:
        return 0, ""  # not listening (yet)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def metrics_address(rig: TableRig) -> str:
    found = re.search(r"metrics\s+(http://\S+)/metrics", rig.banner)
    assert found, rig.banner
    return found.group(1)


def _wait_for_rounds(address: str, rounds: int, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    page = ""
    while time.monotonic() < deadline:
        _, page = _get(f"{address}/metrics")
        found = re.search(r'^studio_rounds_total\{table="T01"\} (\S+)$', page, re.M)
        if found and float(found.group(1)) >= rounds:
            return page
        time.sleep(0.3)
    pytest.fail(f"the table did not end {rounds} rounds: {page[-2000:]}")


def test_the_table_serves_its_figures_and_probes(tmp_path: Path) -> None:
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        rig.start()
        address = metrics_address(rig)
        assert _get(f"{address}/healthz") == (200, "alive\n")
        assert _get(f"{address}/readyz") == (200, "ready\n")
        assert _get(f"{address}/nothing")[0] == 404
        page = _wait_for_rounds(address, 2)
        assert 'studio_card_stage_seconds_count{stage="journal_commit",table="T01"}' in page
        assert 'studio_device_health{device="shoe",studio_device_health="ok",table="T01"} 1.0' in (
            page
        )
        assert 'studio_paused{table="T01"} 0.0' in page
        with rig.subscriber():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                _, page = _get(f"{address}/metrics")
                if 'studio_subscribers{stream="public",table="T01"} 1.0' in page:
                    break
                time.sleep(0.2)
            else:
                pytest.fail("the subscription was not counted")
        # A manager's command is counted by role, and the pause it causes shows.
        manager = str(rig.keys_dir / "shift-manager.key_secret")
        called = subprocess.run(
            [sys.executable, "-m", "studio.cli", "command", "call_manager", "--key", manager],
            env=rig.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert called.returncode == 0, called.stderr
        _, page = _get(f"{address}/metrics")
        assert (
            'studio_commands_total{outcome="accepted",role="shift_manager",table="T01"} 1.0' in page
        )
        assert 'studio_incidents_total{kind="manager_called",table="T01"} 1.0' in page
        assert 'studio_paused{table="T01"} 1.0' in page
        assert _get(f"{address}/readyz") == (200, "ready\n")  # paused, but fit to deal


def test_a_failing_cable_shows_as_damaged_frames_by_kind(tmp_path: Path) -> None:
    # A shoe of its own on a real pty, read by `studio run` through the serial driver; the
    # cable flips bits and adds noise: retransmission repairs every card, the figures show it.
    line = tmp_path / "shoe"
    extra = f'[shoe]\nbackend = "serial"\nurl = "{line}"\n{NO_CAMERA}'
    faults = FaultRates.parse("bitflip=0.3,garbage=0.3")
    with (
        SimulatedShoe(f"pty:{line}", "framed", cards=40, interval=0.05, faults=faults) as shoe,
        table_rig(tmp_path, extra=extra) as rig,
    ):
        rig.start()
        address = metrics_address(rig)
        shoe.start()
        assert shoe.wait(60), "the shoe never saw its last card acknowledged"
        _, page = _get(f"{address}/metrics")
    damaged = dict(
        re.findall(
            r'^studio_shoe_damaged_frames_total\{kind="(\w+)",table="T01"\} (\S+)$', page, re.M
        )
    )
    assert damaged and all(float(count) >= 1 for count in damaged.values()), page[-3000:]
    assert 'studio_clock_steps_total{table="T01"} 0.0' in page
    assert 'studio_journal_unwritable{table="T01"} 0.0' in page


@pytest.mark.skipif(PROMETHEUS is None, reason="Debian's prometheus package is not installed")
def test_a_real_prometheus_scrapes_the_table(tmp_path: Path) -> None:
    assert PROMETHEUS is not None
    prom = tmp_path / "prometheus"
    prom.mkdir()
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        rig.start()
        target = metrics_address(rig).removeprefix("http://")
        port = _free_port()
        config = prom / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            f"scrape_configs:\n  - job_name: studio\n    static_configs:\n"
            f"      - targets: ['{target}']\n"
        )
        log = (prom / "log").open("w")
        server = subprocess.Popen(
            [
                PROMETHEUS,
                f"--config.file={config}",
                f"--storage.tsdb.path={prom / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            api = f"http://127.0.0.1:{port}/api/v1/query?query="

            def query(expr: str) -> float | None:
                status, text = _get(api + urllib.parse.quote(expr))
                if status != 200:
                    return None
                result = json.loads(text)["data"]["result"]
                return float(result[0]["value"][1]) if result else None

            wanted = {
                'studio_rounds_total{table="T01"}': 3.0,
                'studio_card_stage_seconds_count{table="T01",stage="controller"}': 1.0,
                'studio_card_stage_seconds_count{table="T01",stage="shoe_to_input"}': 1.0,
                'studio_card_stage_seconds_count{table="T01",stage="publish"}': 1.0,
                'studio_device_health{table="T01",device="shoe",studio_device_health="ok"}': 1.0,
                'up{job="studio"}': 1.0,
            }
            seen: dict[str, float | None] = {}
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                seen = {expr: query(expr) for expr in wanted}
                if all((seen[e] or 0) >= low for e, low in wanted.items()):
                    break
                time.sleep(1)
            else:
                pytest.fail(f"Prometheus did not get the table's figures: {seen}")
            assert query('studio_paused{table="T01"}') == 0.0
            assert query('studio_voids_total{table="T01"}') == 0.0
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()
