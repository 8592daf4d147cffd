"""The shoe codecs without I/O: CRC, deck tables, barcode lines and framed frames, fuzzed."""

from __future__ import annotations

import json
import struct
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.errors import DriverConfigurationError, FrameError, LineError, UnknownCodeError
from drivers.shoe.barcode import MAX_LINE, BarcodeCodec
from drivers.shoe.crc import crc16_ccitt
from drivers.shoe.deck import BarcodeTable, DeckRegistration
from drivers.shoe.framed import Frame, FrameCodec, FrameType, encode_frame
from drivers.shoe.readings import CardRead, CardUnreadable
from studio.cards import DECK, Card

# --- CRC and deck tables ---------------------------------------------------------------------


def test_crc16_ccitt_false_check_value() -> None:
    assert crc16_ccitt(b"123456789") == 0x29B1
    assert crc16_ccitt(b"") == 0xFFFF


def _crc_by_definition(data: bytes, crc: int) -> int:
    # CRC-16/CCITT-FALSE bit by bit, as the protocol sheet defines it: the oracle for binascii.
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


@given(st.binary(max_size=300), st.integers(min_value=0, max_value=0xFFFF))
def test_crc16_ccitt_is_the_bitwise_definition(data: bytes, start: int) -> None:
    assert crc16_ccitt(data, start) == _crc_by_definition(data, start)
    half = len(data) // 2
    assert crc16_ccitt(data[half:], crc16_ccitt(data[:half])) == crc16_ccitt(data)


def test_numeric_table_names_every_card_with_four_digits() -> None:
    table = BarcodeTable.numeric()
    assert table.lookup("0414") == Card.parse("AS")
    assert table.lookup("0102") == Card.parse("2C")
    assert {table.code_for(card) for card in DECK} == {
        f"{s:02d}{r:02d}" for s in range(1, 5) for r in range(2, 15)
    }


def test_barcode_table_from_config_and_file(tmp_path: Path) -> None:
    assert BarcodeTable.from_config("cards").lookup("TD") == Card.parse("TD")
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"schema_version": 1, "codes": {"X1": "AS", "X2": "kd"}}))
    table = BarcodeTable.from_config(str(path))
    assert table.lookup("X2") == Card.parse("KD")
    with pytest.raises(DriverConfigurationError, match="unknown barcode table"):
        BarcodeTable.from_config("ean13")
    path.write_text(json.dumps({"schema_version": 1, "codes": {"X1": "AS", "X2": "AS"}}))
    with pytest.raises(DriverConfigurationError, match="both mean AS"):
        BarcodeTable.load(path)
    path.write_text(json.dumps({"schema_version": 1, "codes": {"X1": "ZZ"}}))
    with pytest.raises(DriverConfigurationError, match="unknown card code"):
        BarcodeTable.load(path)


def test_deck_registration_round_trip_and_refusals(tmp_path: Path) -> None:
    reg = DeckRegistration(deck_id="d1", tags={"e0a1": "AS", "E0A2": "KD"})  # type: ignore[dict-item]
    path = tmp_path / "deck.json"
    reg.save(path)
    again = DeckRegistration.load(path)
    assert again == reg
    assert again.lookup("E0A1") == Card.parse("AS")
    assert again.lookup("e0a2") == Card.parse("KD")
    path.write_text(
        json.dumps({"schema_version": 1, "deck_id": "d", "tags": {"A": "AS", "B": "AS"}})
    )
    with pytest.raises(DriverConfigurationError, match="two tags"):
        DeckRegistration.load(path)
    path.write_text(json.dumps({"schema_version": 1, "deck_id": "d", "tags": {}, "extra": 1}))
    with pytest.raises(DriverConfigurationError, match="extra"):
        DeckRegistration.load(path)


# --- barcode lines ---------------------------------------------------------------------------


def _barcode() -> BarcodeCodec:
    return BarcodeCodec(BarcodeTable.card_codes())


def test_barcode_decodes_cards_noread_and_errors() -> None:
    out = _barcode().feed(b"AS\r\nNOREAD\r\n\r\nZZ\nKD\r" + b"X" * (MAX_LINE + 5) + b"\r\n7h\n")
    assert out == [
        CardRead(Card.parse("AS"), None, b"AS", None),
        CardUnreadable(b"NOREAD"),
        UnknownCodeError("barcode 'ZZ' is not in table 'cards'", b"ZZ"),
        CardRead(Card.parse("KD"), None, b"KD", None),
        LineError(f"line longer than {MAX_LINE} bytes", b"X" * MAX_LINE),
        UnknownCodeError("barcode '7h' is not in table 'cards'", b"7h"),
    ]


def test_barcode_refuses_non_ascii_and_numeric_table_decodes() -> None:
    assert _barcode().feed(b"A\xd3\r\n") == [
        LineError("line holds bytes outside printable ASCII", b"A\xd3")
    ]
    codec = BarcodeCodec(BarcodeTable.numeric())
    assert codec.feed(codec.encode(Card.parse("QH"))) == [
        CardRead(Card.parse("QH"), None, b"0312", None)
    ]


def _splits(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in pairwise(edges)]


def _feed_all(codec: BarcodeCodec | FrameCodec, chunks: list[bytes]) -> list[object]:
    out: list[object] = []
    for chunk in chunks:
        out.extend(codec.feed(chunk))
    return out


cards = st.sampled_from(DECK)
barcode_pieces = st.one_of(
    cards.map(lambda c: c.code.encode() + b"\r\n"),
    st.just(b"NOREAD\r\n"),
    st.binary(max_size=50),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(barcode_pieces, max_size=20), st.lists(st.integers(0, 10_000), max_size=12))
def test_barcode_same_output_whole_split_and_byte_by_byte(
    pieces: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(pieces)
    whole = _barcode().feed(data)
    assert _feed_all(_barcode(), _splits(data, cuts)) == whole
    assert _feed_all(_barcode(), [bytes((b,)) for b in data]) == whole


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), cards, cards)
def test_barcode_resyncs_within_one_line_after_garbage(garbage: bytes, a: Card, b: Card) -> None:
    codec = _barcode()
    out = codec.feed(garbage + codec.encode(a) + codec.encode(b))
    assert out[-1] == CardRead(b, None, b.code.encode(), None)


@settings(max_examples=200, deadline=None)
@given(cards, st.data())
def test_barcode_high_bit_corruption_never_yields_a_card(card: Card, data: st.DataObject) -> None:
    line = bytearray(card.code.encode())
    where = data.draw(st.integers(0, len(line) - 1))
    line[where] |= 0x80
    out = _barcode().feed(bytes(line) + b"\r\n")
    assert not any(isinstance(item, CardRead) for item in out)


# --- framed frames ---------------------------------------------------------------------------


def _card_frame(card: Card, seq: int = 7, session: int = 0x1234) -> Frame:
    tag = bytes.fromhex("E004000000011000") + bytes((card.index,))
    return Frame(
        session, seq, FrameType.CARD_DRAWN, bytes((len(tag),)) + tag + bytes((card.index,))
    )


frames = st.one_of(
    st.builds(_card_frame, cards, st.integers(0, 0xFFFF), st.integers(0, 0xFFFF)),
    st.builds(
        lambda s, f: Frame(s, 0, FrameType.HEARTBEAT, struct.pack(">BHH", f & 0x0F, s, s)),
        st.integers(0, 0xFFFF),
        st.integers(0, 255),
    ),
    st.builds(lambda s: Frame(1, s, FrameType.ACK, struct.pack(">H", s)), st.integers(0, 0xFFFF)),
    st.builds(lambda s: Frame(1, s, FrameType.STATUS, bytes((s & 0x0F,))), st.integers(0, 0xFFFF)),
)


@settings(max_examples=300, deadline=None)
@given(frames)
def test_a_frame_is_stuffed_byte_by_byte_as_the_protocol_says(frame: Frame) -> None:
    # The wire form docs/shoe-protocols.md gives, byte by byte: a real shoe's decoder reads
    # what encode_frame writes, so it must be this exactly, not just something it decodes.
    head = struct.pack(">BHHB", len(frame.payload), frame.session, frame.seq, frame.type)
    body = head + frame.payload
    body += struct.pack(">H", crc16_ccitt(body))
    wire = bytearray([0x02])
    for byte in body:
        wire += bytes((0x10, byte ^ 0x20)) if byte in (0x02, 0x03, 0x10) else bytes((byte,))
    wire.append(0x03)
    assert encode_frame(frame) == bytes(wire)


def test_frame_round_trip_with_stuffing() -> None:
    frame = Frame(0x0203, 0x1002, FrameType.ACK, b"\x02\x03")
    wire = encode_frame(frame)
    assert wire[0] == 0x02 and wire[-1] == 0x03
    assert 0x02 not in wire[1:-1] and 0x03 not in wire[1:-1]
    assert FrameCodec().feed(wire) == [frame]


def test_frame_errors_are_reported_not_raised() -> None:
    good = encode_frame(_card_frame(Card.parse("AS")))
    bad_crc = good[:-2] + bytes((good[-2] ^ 0x01,)) + good[-1:]
    out = FrameCodec().feed(b"junk" + bad_crc + good[:5] + good)
    kinds = [type(item).__name__ if isinstance(item, FrameError) else "Frame" for item in out]
    assert kinds == ["FrameError", "FrameError", "FrameError", "Frame"]
    assert "CRC" in str(out[1])
    assert out[-1] == _card_frame(Card.parse("AS"))
    with pytest.raises(FrameError):
        encode_frame(Frame(1, 1, FrameType.STATUS, bytes(100)))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_frame_decoder_never_raises(data: bytes) -> None:
    out = FrameCodec().feed(data)
    assert all(isinstance(item, Frame | FrameError) for item in out)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(frames.map(encode_frame), st.binary(max_size=30)), max_size=15),
    st.lists(st.integers(0, 10_000), max_size=12),
)
def test_frames_same_output_whole_split_and_byte_by_byte(
    pieces: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(pieces)
    whole = FrameCodec().feed(data)
    assert _feed_all(FrameCodec(), _splits(data, cuts)) == whole
    assert _feed_all(FrameCodec(), [bytes((b,)) for b in data]) == whole


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), frames, frames)
def test_frames_resync_at_the_first_frame_after_garbage(garbage: bytes, a: Frame, b: Frame) -> None:
    out = FrameCodec().feed(garbage + encode_frame(a) + encode_frame(b))
    assert out[-2:] == [a, b]


@settings(max_examples=500, deadline=None)
@given(cards, st.integers(0, 0xFFFF), st.data())
def test_corrupted_card_frame_never_yields_a_different_frame(
    card: Card, seq: int, data: st.DataObject
) -> None:
    original = _card_frame(card, seq)
    wire = bytearray(encode_frame(original))
    # Up to three flipped bits: CRC-16/CCITT detects every such error in a frame this short
    # (odd counts by its (x+1) factor, pairs by its period), and the length byte catches the
    # flips that change stuffing.
    bits = data.draw(st.sets(st.integers(0, len(wire) * 8 - 1), min_size=1, max_size=3))
    for bit in bits:
        wire[bit // 8] ^= 1 << (bit % 8)
    decoded = [item for item in FrameCodec().feed(bytes(wire)) if isinstance(item, Frame)]
    assert decoded in ([], [original])
    assert decoded == [] or bytes(wire) == encode_frame(original)


@settings(max_examples=300, deadline=None)
@given(cards, st.binary(min_size=1, max_size=40), st.data())
def test_card_frame_with_bytes_replaced_or_inserted_never_yields_a_card(
    card: Card, noise: bytes, data: st.DataObject
) -> None:
    wire = encode_frame(_card_frame(card))
    at = data.draw(st.integers(1, len(wire) - 1))
    replace = data.draw(st.booleans())
    mangled = wire[:at] + noise + wire[at + (len(noise) if replace else 0) :]
    decoded = [item for item in FrameCodec().feed(mangled) if isinstance(item, Frame)]
    assert all(frame == _card_frame(card) for frame in decoded)
    if mangled != wire:
        assert decoded == [] or wire in mangled


@pytest.mark.parametrize(
    "text",
    [
        # One tag under two spellings: the last silently won, the other card was lost.
        '{"schema_version": 1, "deck_id": "d", "tags": {"e0a1": "AS", "E0A1": "KD"}}',
        # The same key twice in the JSON object: the same, one level down.
        '{"schema_version": 1, "deck_id": "d", "tags": {"E0A1": "AS", "E0A1": "KD"}}',
    ],
)
def test_a_registration_naming_one_tag_twice_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "deck.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DriverConfigurationError, match="E0A1"):
        DeckRegistration.load(path)


def test_a_barcode_table_naming_one_code_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"schema_version": 1, "codes": {"X1": "AS", "X1": "KD"}}', encoding="utf-8")
    with pytest.raises(DriverConfigurationError, match="X1"):
        BarcodeTable.load(path)
