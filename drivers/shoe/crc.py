"""CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR).

The smart-shoe frame carries this CRC over its unstuffed body. The check value of the ASCII
bytes `123456789` is 0x29B1, which the tests pin. The standard library computes it in C:
`binascii.crc_hqx` is this very CRC (the XMODEM/HQX polynomial, unreflected) when started at
0xFFFF; the tests hold it to the bitwise definition on random data.
"""

from __future__ import annotations

import binascii


def crc16_ccitt(data: bytes, crc: int = 0xFFFF) -> int:
    """Return the CRC-16/CCITT-FALSE of `data`, continuing from `crc` (0xFFFF to start)."""
    return binascii.crc_hqx(data, crc)
