"""The barcode line protocol, sans-I/O: one code per line, terminated by CR, LF or CR LF.

A line is printable ASCII (0x20..0x7E), at most `MAX_LINE` characters, surrounding spaces ignored.
`NOREAD` is an unreadable card; any other text is looked up in a `BarcodeTable`. An overlong line,
a byte outside printable ASCII or an unknown code is a `ProtocolError`, never a card. Empty lines
(the LF of a CR LF pair) are skipped. The decoder's output depends only on the byte stream, not on
how it is split, because every decision is taken at a terminator or at the byte that makes a line
overlong.
"""

from __future__ import annotations

from drivers.errors import LineError, ProtocolError, UnknownCodeError
from drivers.shoe.deck import BarcodeTable
from drivers.shoe.readings import CardRead, CardUnreadable
from studio.cards import Card

MAX_LINE = 32
"""Longest accepted line, in characters; real readers send at most a few dozen."""

NOREAD = "NOREAD"
"""The line a barcode reader sends when it saw a card but could not read it."""

_TERMINATORS = b"\r\n"

BarcodeItem = CardRead | CardUnreadable | ProtocolError
"""What the barcode decoder yields."""


class BarcodeCodec:
    """Incremental decoder and encoder of barcode lines against one `BarcodeTable`."""

    def __init__(self, table: BarcodeTable) -> None:
        """Decode against `table`."""
        self.table = table
        self._line = bytearray()
        self._overlong = False

    def feed(self, data: bytes) -> list[BarcodeItem]:
        """Consume `data` (any split) and return the readings and errors it completes, in order."""
        out: list[BarcodeItem] = []
        for byte in data:
            if byte in _TERMINATORS:
                if self._overlong:
                    self._overlong = False
                elif self._line:
                    out.append(self._decode(bytes(self._line)))
                self._line.clear()
            elif self._overlong:
                continue
            elif len(self._line) >= MAX_LINE:
                out.append(LineError(f"line longer than {MAX_LINE} bytes", bytes(self._line)))
                self._overlong = True
                self._line.clear()
            else:
                self._line.append(byte)
        return out

    def _decode(self, raw: bytes) -> BarcodeItem:
        if any(b < 0x20 or b > 0x7E for b in raw):
            return LineError("line holds bytes outside printable ASCII", raw)
        code = raw.decode("ascii").strip(" ")
        if code == NOREAD:
            return CardUnreadable(raw)
        card = self.table.lookup(code)
        if card is None:
            return UnknownCodeError(f"barcode {code!r} is not in table {self.table.name!r}", raw)
        return CardRead(card, None, raw, None)

    def encode(self, item: Card | None) -> bytes:
        """Return the line a reader sends for `item`: its code, or `NOREAD` for None."""
        code = NOREAD if item is None else self.table.code_for(item)
        return code.encode("ascii") + b"\r\n"
