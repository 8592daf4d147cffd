"""Shared pytest configuration: command-line options that select real hardware, and Hypothesis.

Hypothesis's per-example deadline is a wall-clock assertion: on shared, noisy machines a first
call that warms a lookup table can take longer than 200 ms. Tests never assert wall-clock times,
so every property test runs without one (speed is measured in `bench/`).

Every test session gets its own user cache directory (`XDG_CACHE_HOME`, inherited by the
`studio` processes tests start), one for all of a run's pytest-xdist workers: a deck learned
once, in a test or in a `studio calibrate` it starts, is cached there and serves the whole run,
and the user's own cache is never touched. JAX keeps its compiled programs there too, so the
training step every learned deck compiles is compiled once per run.

Decks that tests calibrate train their learned index reader with the quick setting
(`STUDIO_QUICK_TRAINING=1`, inherited by `studio` processes too); the built-in designs load
the full models shipped in the package, and the bench trains with the full setting.

Tests stop the `studio` processes they start as a person would, with SIGINT (Ctrl-C). A suite
started as a background job of a non-interactive shell (`(.ci/run &)` in a script) inherits
SIGINT ignored, and so would every process it starts: an interrupted `studio watch` would
never stop, and its test would fail after waiting a minute. So each test process handles SIGINT
again, and the processes it starts get the default disposition back at exec.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest
from hypothesis import settings
from postgres_support import Cluster, remove_cluster, start_cluster
from shoe_readers import Reader, reader_maker, running_loop

os.environ.setdefault("STUDIO_QUICK_TRAINING", "1")
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
settings.register_profile("studio", deadline=None)
settings.load_profile("studio")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--shoe-url",
        default=None,
        help="pyserial URL or device path of a real shoe: runs tests/hil against it too",
    )
    parser.addoption(
        "--shoe-protocol",
        default="framed",
        choices=("framed", "barcode"),
        help="protocol of the real shoe given with --shoe-url",
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: one worker more than the cores this process may run on.

    Many tests spend most of their time waiting (on `studio` processes, sockets, timers,
    Chromium) while others compute (learning decks, simulating rounds): a third worker on two
    cores keeps both busy through the waits. On 2 cores the whole suite took 870 s with two
    workers and 726 s with three.
    """
    return len(os.sched_getaffinity(0)) + 1


@pytest.fixture(scope="session", autouse=True)
def _session_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # Under pytest-xdist every worker has a base directory of its own inside the run's one:
    # the cache lives in the run's, so a deck one worker trained serves the other worker too.
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    home = base / "cache-home"
    home.mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(home))
        # JAX's own cache of compiled programs, for every compile however short: each deck a
        # test trains compiles the same training step, which costs seconds, once per run.
        patch.setenv("JAX_COMPILATION_CACHE_DIR", str(home / "jax"))
        patch.setenv("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
        patch.setenv("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")
        yield


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A PostgreSQL cluster for one test module (skips with the reason when none can start)."""
    running = start_cluster()
    yield running
    remove_cluster(running)


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An asyncio loop running in a thread of its own (a table's loop), closed after the test."""
    with running_loop() as running:
        yield running


@pytest.fixture(params=["thread", "watched"])
def make_reader(request: pytest.FixtureRequest, loop: asyncio.AbstractEventLoop) -> Reader:
    """Each shoe reader in turn: `SerialShoe`, and `WatchedSerialShoe` on the test's loop."""
    return reader_maker(request.param, loop)
