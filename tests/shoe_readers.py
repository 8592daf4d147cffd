"""The shoe's two readers for tests: a loop running in a thread (a table's loop) and a maker of
either reader, so a test of a line runs on both (`make_reader`, a fixture of `conftest.py`)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from drivers.shoe.line_reader import ShoeLineReader
from drivers.shoe.serial_shoe import SerialShoe
from drivers.shoe.watched_shoe import WatchedSerialShoe

Reader = Callable[..., ShoeLineReader]
"""Makes a reader: (url, protocol, **the readers' keyword arguments)."""


@contextmanager
def running_loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An asyncio loop running in a thread of its own, stopped and closed on exit."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="test-loop")
    thread.start()
    try:
        yield loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


def reader_maker(kind: str, loop: asyncio.AbstractEventLoop) -> Reader:
    """`SerialShoe` ("thread"), or `WatchedSerialShoe` on `loop` ("watched")."""
    if kind == "thread":
        return SerialShoe

    def watched(url: str, protocol: str = "framed", **settings: object) -> ShoeLineReader:
        return WatchedSerialShoe(
            url,
            protocol,
            loop=loop,
            wake=lambda: None,
            **settings,  # type: ignore[arg-type]
        )

    return watched
