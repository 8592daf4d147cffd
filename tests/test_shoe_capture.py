"""`studio shoe record` / `replay`: a shoe's line captured with times and played back on a pty.

The end-to-end test records the simulated shoe (with damaged frames and stray bytes, the faults
a failing cable makes) through a real pty, replays the capture onto another real pty, and
checks that a reader of the replay sees the very readings and errors the recorder saw.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.errors import DriverConfigurationError
from drivers.shoe.capture import CaptureHeader, CaptureRecord, CaptureWriter, paced, read_capture

SHOE = [sys.executable, "-m", "studio.cli", "shoe"]


def test_a_capture_reads_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "cap.jsonl"
    now = iter([10.0, 10.5, 11.25])
    header = CaptureHeader("/dev/ttyUSB0", "framed", 9600, datetime(2026, 12, 4, tzinfo=UTC))
    with CaptureWriter(path, header, clock=lambda: next(now)) as writer:
        writer("rx", b"\x02\x01\x03", 10.5)
        writer("tx", b"\x06", 10.6)
        writer("rx", b"", 10.7)  # nothing read: nothing written
        writer("rx", b"\xff", 11.0)
    writer.close()
    assert read_capture(path) == (
        header,
        [
            CaptureRecord(0.5, "rx", b"\x02\x01\x03"),
            CaptureRecord(0.6, "tx", b"\x06"),
            CaptureRecord(1.0, "rx", b"\xff"),
        ],
    )


@given(
    st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10**9),
            st.sampled_from(["rx", "tx"]),
            st.binary(min_size=1, max_size=64),
        ),
        max_size=30,
    )
)
def test_any_conversation_reads_back_exactly(chunks: list[tuple[int, str, bytes]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cap.jsonl"
        header = CaptureHeader(
            "socket://shoe:4001", "barcode", 9600, datetime(2026, 1, 1, tzinfo=UTC)
        )
        times = sorted(micros / 1e6 for micros, _, _ in chunks)
        with CaptureWriter(path, header, clock=lambda: 0.0) as writer:
            for at, (_, direction, data) in zip(times, chunks, strict=True):
                writer(direction, data, at)  # type: ignore[arg-type]
        read_header, records = read_capture(path)
    assert read_header == header
    assert [(r.direction, r.data) for r in records] == [(d, b) for _, d, b in chunks]
    assert [r.t for r in records] == pytest.approx(times, abs=1e-6)


def test_records_come_at_their_time_scaled_by_speed() -> None:
    clock = [100.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(round(seconds, 6))
        clock[0] += seconds

    records = [CaptureRecord(t, "rx", b"x") for t in (1.0, 1.0, 3.0, 7.0)]
    got = list(paced(records, speed=2.0, clock=lambda: clock[0], sleep=sleep))
    assert got == records
    assert waits == [1.0, 2.0]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("", "cap.jsonl:1"),
        ('{"format": "other"}\n', "cap.jsonl:1"),
        (
            '{"format": "studio-shoe-capture", "version": 1, "url": "u", "protocol": "framed",'
            ' "baudrate": 9600, "started": "2026-12-04T00:00:00+00:00"}\n'
            '{"t": 1.0, "dir": "rx", "hex": "02"}\n{"t": 0.5, "dir": "rx", "hex": "03"}\n',
            "cap.jsonl:3",
        ),
        (
            '{"format": "studio-shoe-capture", "version": 1, "url": "u", "protocol": "framed",'
            ' "baudrate": 9600, "started": "2026-12-04T00:00:00+00:00"}\n'
            '{"t": 1.0, "dir": "up", "hex": "zz"}\n',
            "cap.jsonl:2",
        ),
    ],
)
def test_a_bad_capture_is_one_error_naming_its_line(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "cap.jsonl"
    path.write_text(text)
    with pytest.raises(DriverConfigurationError, match=where):
        read_capture(path)


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def _start(procs: list[subprocess.Popen[str]], *args: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [*SHOE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    procs.append(proc)
    return proc


def _readings(out: str) -> list[tuple[str, str]]:
    """Cards and damaged frames, in order: what a fault replayed in a test must reproduce."""
    lines = [json.loads(line) for line in out.splitlines()]
    return [
        (line["kind"], line.get("card") or line.get("raw", ""))
        for line in lines
        if line["kind"] in ("card", "error")
    ]


def test_a_recorded_shoe_replays_onto_a_pty_byte_for_byte(
    tmp_path: Path, procs: list[subprocess.Popen[str]]
) -> None:
    capture = tmp_path / "floor.jsonl"
    shoe = _start(
        procs,
        *("simulate", "--protocol", "framed", "--pty", str(tmp_path / "floor"), "--cards", "20"),
        *("--interval-ms", "30", "--start-delay-ms", "2500", "--seed", "3"),
        *("--faults", "garbage=0.15,bitflip=0.15"),
    )
    recorder = _start(
        procs,
        *("record", str(tmp_path / "floor"), "--protocol", "framed", "--json"),
        *("--out", str(capture), "--count", "20", "--timeout", "60"),
    )
    recorded, err = recorder.communicate(timeout=90)
    assert recorder.returncode == 0, err
    shoe.communicate(timeout=30)
    floor = _readings(recorded)
    assert [k for k, _ in floor].count("card") == 20
    assert "error" in [k for k, _ in floor], "the seed must damage at least one frame"

    # A reader waits for the replay's pty (it retries an absent line), as a table would.
    reader = _start(
        procs,
        *("monitor", str(tmp_path / "bench"), "--protocol", "framed", "--json"),
        *("--count", "20", "--timeout", "60"),
    )
    replay = _start(
        procs, "replay", str(capture), "--pty", str(tmp_path / "bench"), "--start-delay-ms", "2000"
    )
    assert replay.stdout is not None
    assert replay.stdout.readline().strip() == f"ready pty={tmp_path / 'bench'}"
    replayed, err = reader.communicate(timeout=90)
    assert reader.returncode == 0, err
    assert replay.wait(timeout=30) == 0
    assert _readings(replayed) == floor
