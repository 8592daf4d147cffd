"""Shared pytest configuration: command-line options that select real hardware."""

from __future__ import annotations

import pytest


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
