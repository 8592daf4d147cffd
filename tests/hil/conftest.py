"""Hardware-in-the-loop rigs: a simulated shoe on a real pty, the same behind a real ser2net, or a
real shoe given with `pytest --shoe-url URL [--shoe-protocol framed|barcode]`.

Every rig cleans up what it started; the autouse `no_leaks` fixture fails a test that leaves a
reader thread or a child process behind.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from shoe_rig import Rig


def _children() -> set[int]:
    me = str(os.getpid())
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[1] == me and fields[0] != "Z":
            found.add(int(entry))
    return found


@pytest.fixture(autouse=True)
def no_leaks() -> Iterator[None]:
    """Fail the test if it leaves a shoe thread or a child process running."""
    before = _children()
    yield
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        threads = [t.name for t in threading.enumerate() if t.name.startswith("shoe-")]
        children = _children() - before
        if not threads and not children:
            return
        time.sleep(0.05)
    pytest.fail(f"leaked threads {threads} or child processes {sorted(children)}")


def _rig_params(config: pytest.Config) -> list[Any]:
    params: list[Any] = ["pty", "ser2net"]
    if config.getoption("--shoe-url"):
        params.append("real")
    return params


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "rig" in metafunc.fixturenames:
        metafunc.parametrize("rig", _rig_params(metafunc.config), indirect=True)


@pytest.fixture
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    kind = request.param
    if kind == "ser2net" and shutil.which("ser2net") is None:
        pytest.skip("ser2net is not installed (Debian package ser2net; .ci/run installs it)")
    url = request.config.getoption("--shoe-url")
    protocol = request.config.getoption("--shoe-protocol")
    made = Rig(kind, tmp_path, protocol=protocol, real_url=url)
    try:
        yield made
    finally:
        made.close()
