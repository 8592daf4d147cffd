"""`studio shoe simulate | monitor | enroll` as other tools run them: real processes, real lines."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

STUDIO = [sys.executable, "-m", "studio.cli", "shoe"]


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
        proc.communicate(timeout=10)


def _simulate(procs: list[subprocess.Popen[str]], *args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*STUDIO, "simulate", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    procs.append(proc)
    assert proc.stdout is not None
    ready = proc.stdout.readline().strip()
    assert ready.startswith("ready "), ready
    return proc, ready.split("=", 1)[1]


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*STUDIO, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def test_simulate_listen_and_monitor_json_agree_with_the_log(
    procs: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    log = tmp_path / "deal.jsonl"
    sim, address = _simulate(
        procs,
        *("--protocol", "framed", "--listen", "127.0.0.1:0", "--cards", "120"),
        *(
            "--interval-ms",
            "2",
            "--seed",
            "9",
            "--faults",
            "garbage=0.1,drop=0.1",
            "--log",
            str(log),
        ),
    )
    mon = _run(
        "monitor", f"socket://{address}", "--protocol", "framed", "--json", "--count", "120",
        "--timeout", "30",
    )  # fmt: skip
    assert mon.returncode == 0, mon.stderr
    assert sim.wait(30) == 0
    lines = [json.loads(line) for line in mon.stdout.splitlines()]
    cards = [line["card"] for line in lines if line["kind"] == "card"]
    dealt = [json.loads(line) for line in log.read_text().splitlines()]
    assert cards == [entry["card"] for entry in dealt]
    assert {"card", "n", "seq", "tag", "faults", "expect", "t"} <= set(dealt[0])


def test_barcode_over_a_pty_in_plain_text(
    procs: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    pty = tmp_path / "shoe"
    sim, _ = _simulate(
        procs,
        *("--protocol", "barcode", "--pty", str(pty), "--cards", "60", "--interval-ms", "2"),
        *("--start-delay-ms", "1500", "--barcode-table", "numeric"),
    )
    mon = _run(
        "monitor", str(pty), "--protocol", "barcode", "--barcode-table", "numeric", "--count", "60"
    )
    assert mon.returncode == 0, mon.stderr
    assert sim.wait(30) == 0
    cards = [line for line in mon.stdout.splitlines() if line.startswith("card ")]
    assert len(cards) == 60 and cards[0].endswith("tag=None seq=None")
    assert not pty.exists(), "the simulator removes its pty symlink on exit"


def test_enroll_then_monitor_with_the_registration(
    procs: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    deck = tmp_path / "deck.json"
    # A deck more than enroll and monitor read: cards the shoe sent while enroll was closing its
    # connection are lost with it, and on a loaded machine that can be several.
    _, address = _simulate(
        procs, "--protocol", "framed", "--listen", "127.0.0.1:0", "--cards", "156",
        "--interval-ms", "2", "--deck-id", "7",
    )  # fmt: skip
    enroll = _run("enroll", f"socket://{address}", "--out", str(deck), "--deck-id", "sim-7")
    assert enroll.returncode == 0, enroll.stderr
    registration = json.loads(deck.read_text())
    assert registration["deck_id"] == "sim-7" and len(registration["tags"]) == 52
    mon = _run(
        "monitor", f"socket://{address}", "--protocol", "framed", "--deck", str(deck), "--json",
        "--count", "52", "--timeout", "30",
    )  # fmt: skip
    assert mon.returncode == 0, mon.stderr
    assert sum(json.loads(line)["kind"] == "card" for line in mon.stdout.splitlines()) == 52


def test_user_errors_are_one_line_and_status_2(tmp_path: Path) -> None:
    bad_fault = _run("simulate", "--protocol", "framed", "--pty", str(tmp_path / "s"),
                     "--faults", "meteor=0.1")  # fmt: skip
    assert bad_fault.returncode == 2
    assert bad_fault.stderr.count("\n") == 1 and "bad fault 'meteor=0.1'" in bad_fault.stderr
    bad_url = _run("monitor", "nosuch://x", "--protocol", "framed")
    assert bad_url.returncode == 2 and bad_url.stderr.startswith(
        "studio shoe monitor: bad shoe URL"
    )
    no_dir = _run("simulate", "--protocol", "barcode", "--pty", str(tmp_path / "no" / "shoe"))
    assert no_dir.returncode == 2 and "cannot create a pty" in no_dir.stderr
    missing_deck = _run("monitor", "loop://", "--protocol", "framed", "--deck", "/nonexistent.json")
    assert missing_deck.returncode == 2 and "deck registration" in missing_deck.stderr


def test_monitor_gives_up_after_its_timeout(tmp_path: Path) -> None:
    mon = _run("monitor", str(tmp_path / "absent"), "--protocol", "framed", "--json",
               "--count", "1", "--timeout", "0.5")  # fmt: skip
    assert mon.returncode == 1
    assert json.loads(mon.stdout.splitlines()[0])["kind"] == "fault"


def test_barcode_listener_waits_for_its_host(
    procs: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    log = tmp_path / "deal.jsonl"
    sim, address = _simulate(
        procs, "--protocol", "barcode", "--listen", "127.0.0.1:0", "--cards", "40",
        "--interval-ms", "2", "--log", str(log),
    )  # fmt: skip
    time.sleep(0.3)  # a barcode shoe must not deal into an empty socket
    mon = _run("monitor", f"socket://{address}", "--protocol", "barcode", "--json", "--count", "40")
    assert mon.returncode == 0, mon.stderr
    assert sim.wait(30) == 0
    cards = [json.loads(line)["card"] for line in mon.stdout.splitlines() if '"card"' in line]
    assert cards == [json.loads(line)["card"] for line in log.read_text().splitlines()]


def test_numbers_that_cannot_be_waited_for_or_bound_are_one_line(tmp_path: Path) -> None:
    # Each was a traceback (select refuses nan; bind refuses port 99999) or waited forever.
    pty = ["--protocol", "framed", "--pty", str(tmp_path / "s")]
    for args in (
        ["simulate", "--protocol", "framed", "--listen", "127.0.0.1:99999"],
        ["simulate", "--protocol", "framed", "--listen", "127.0.0.1:\u00b2"],
        ["simulate", *pty, "--interval-ms", "nan"],
        ["monitor", "loop://", "--protocol", "framed", "--timeout", "nan"],
        ["enroll", "loop://", "--out", str(tmp_path / "d.json"), "--deck-id", "d",
         "--timeout", "nan"],
    ):  # fmt: skip
        done = _run(*args, timeout=30)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_enroll_checks_where_it_will_write_before_reading_a_deck(tmp_path: Path) -> None:
    out = tmp_path / "no-such-dir" / "deck.json"
    done = _run("enroll", "loop://", "--out", str(out), "--deck-id", "d", "--timeout", "0.5")
    assert done.returncode == 2 and "no-such-dir" in done.stderr, done.stderr
