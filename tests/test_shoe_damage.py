"""What a damaged line leaves behind: counted frames by kind, a debug line, an incident's words."""

from __future__ import annotations

import logging
import struct
from datetime import UTC, datetime

import pytest
from test_controller_kit import CONFIGS, bench

from drivers.errors import LineError, UnknownCodeError
from drivers.shoe.adapter import to_input
from drivers.shoe.deck import BarcodeTable
from drivers.shoe.framed import Frame, FrameType, encode_frame
from drivers.shoe.host import BarcodeHost, FramedHost
from drivers.shoe.readings import Delivery
from studio.messages import CardDrawn


def _beat(session: int = 9) -> bytes:
    return encode_frame(Frame(session, 0, FrameType.HEARTBEAT, struct.pack(">BHH", 0, 1, 0)))


def test_damaged_frames_are_counted_by_kind_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    host = FramedHost()
    good = _beat()
    bad_crc = good[:-3] + bytes([good[-3] ^ 0x01]) + good[-2:]
    caplog.set_level(logging.DEBUG, logger="drivers.shoe.host")
    host.feed(bad_crc + bad_crc + b"noise" + good + good[:4] + good, 0.0)
    assert host.counters.damaged == {"crc": 2, "outside_frame": 1, "cut_short": 1}
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert sum("damaged frame (crc" in line for line in lines) == 2
    assert any("outside_frame" in line for line in lines)


def test_an_unreadable_barcode_carries_the_drivers_words_into_the_incident() -> None:
    host = BarcodeHost(BarcodeTable.card_codes())
    items, _ = host.feed(b"ZZ\r\n", 0.0)
    assert len(items) == 1 and isinstance(items[0], LineError | UnknownCodeError)
    inp = to_input(Delivery(items[0], 0.0, datetime.now(UTC)))
    assert isinstance(inp, CardDrawn) and inp.card is None
    assert "ZZ" in inp.detail
    b = bench(CONFIGS[0])
    b.start()
    b.wait(10.0)
    out = b.feed(inp.model_copy(update={"ts": b.now}))
    incident = next(e for e in out if e.type == "incident_reported")
    assert incident.body["kind"] == "unreadable_card"
    assert incident.body["detail"] == inp.detail != ""
