"""CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR).

The smart-shoe frame carries this CRC over its unstuffed body. The check value of the ASCII
bytes `123456789` is 0x29B1, which the tests pin.
"""

from __future__ import annotations


def _table() -> tuple[int, ...]:
    rows = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        rows.append(crc & 0xFFFF)
    return tuple(rows)


_TABLE = _table()


def crc16_ccitt(data: bytes, crc: int = 0xFFFF) -> int:
    """Return the CRC-16/CCITT-FALSE of `data`, continuing from `crc` (0xFFFF to start)."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _TABLE[((crc >> 8) ^ byte) & 0xFF]
    return crc
