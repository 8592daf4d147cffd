"""pyserial's RFC 2217 reader thread dying with the line is logged, not printed as a traceback."""

from __future__ import annotations

import logging
import threading

import pytest

from drivers.shoe.pyserial_threads import quiet_rfc2217_reader_threads


def _die(name: str) -> None:
    def boom() -> None:
        raise BrokenPipeError("device server dropped the line")

    thread = threading.Thread(target=boom, name=name)
    thread.start()
    thread.join()


def test_only_the_rfc2217_reader_threads_death_is_quieted(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    reached: list[str] = []

    def previous(args: threading.ExceptHookArgs) -> None:
        reached.append(args.thread.name if args.thread is not None else "")

    monkeypatch.setattr(threading, "excepthook", previous)
    quiet_rfc2217_reader_threads()
    quiet_rfc2217_reader_threads()  # a second shoe on rfc2217:// installs nothing more
    with caplog.at_level(logging.INFO, logger="drivers.shoe.pyserial_threads"):
        _die("pySerial RFC 2217 reader thread for rfc2217://127.0.0.1:7000")
        _die("shoe-reader")
    assert reached == ["shoe-reader"]
    assert "RFC 2217 thread ended" in caplog.text and "BrokenPipeError" in caplog.text
