"""Card shoes: byte protocols (barcode lines, smart-shoe frames), the serial reader, the simulator.

The public surface: `SerialShoe` (read any pyserial URL in a thread), `WatchedSerialShoe` (read a
line that is a file descriptor in an asyncio loop), `open_reader` (the one a table uses, chosen
by the URL), `SimulatedShoe` (a shoe on a real pty or TCP socket), the typed readings in
`drivers.shoe.readings`, the deck tables in `drivers.shoe.deck`, and `host_protocol(name)` to
choose a protocol by configuration string.

The names above are loaded on first use (PEP 562): importing one module of the package (the
protocols' names of `drivers.shoe.protocol_names`, say) does not import pydantic, pyserial and
every codec with it, so `studio shoe --help` starts at once.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from drivers.shoe.deck import BarcodeTable, DeckRegistration
    from drivers.shoe.host import PROTOCOLS, ProtocolOptions, host_protocol
    from drivers.shoe.readers import open_reader
    from drivers.shoe.readings import (
        CardRead,
        CardUnreadable,
        Delivery,
        FaultReason,
        ShoeFault,
        ShoeHealth,
        ShoeReading,
        ShoeRecovered,
        ShoeReset,
        ShoeStatus,
        StatusFlag,
    )
    from drivers.shoe.serial_shoe import SerialShoe
    from drivers.shoe.simulator import FaultRates, SimulatedShoe
    from drivers.shoe.watched_shoe import WatchedSerialShoe

_HOMES: dict[str, str] = {
    "BarcodeTable": "deck",
    "DeckRegistration": "deck",
    "PROTOCOLS": "host",
    "ProtocolOptions": "host",
    "host_protocol": "host",
    "CardRead": "readings",
    "CardUnreadable": "readings",
    "Delivery": "readings",
    "FaultReason": "readings",
    "ShoeFault": "readings",
    "ShoeHealth": "readings",
    "ShoeReading": "readings",
    "ShoeRecovered": "readings",
    "ShoeReset": "readings",
    "ShoeStatus": "readings",
    "StatusFlag": "readings",
    "SerialShoe": "serial_shoe",
    "WatchedSerialShoe": "watched_shoe",
    "open_reader": "readers",
    "FaultRates": "simulator",
    "SimulatedShoe": "simulator",
}
"""Each public name -> the module of the package that defines it (the imports above are the same
names for the type checker; a test holds the three lists equal)."""

__all__ = [
    "PROTOCOLS",
    "BarcodeTable",
    "CardRead",
    "CardUnreadable",
    "DeckRegistration",
    "Delivery",
    "FaultRates",
    "FaultReason",
    "ProtocolOptions",
    "SerialShoe",
    "ShoeFault",
    "ShoeHealth",
    "ShoeReading",
    "ShoeRecovered",
    "ShoeReset",
    "ShoeStatus",
    "SimulatedShoe",
    "StatusFlag",
    "WatchedSerialShoe",
    "host_protocol",
    "open_reader",
]


def __getattr__(name: str) -> Any:
    """Import the module that defines `name` on first use; raises AttributeError otherwise."""
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    """The module's names, the lazily loaded ones included."""
    return sorted({*globals(), *_HOMES})
