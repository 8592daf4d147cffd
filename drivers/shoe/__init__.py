"""Card shoes: byte protocols (barcode lines, smart-shoe frames), the serial reader, the simulator.

The public surface: `SerialShoe` (read any pyserial URL), `SimulatedShoe` (a shoe on a real pty
or TCP socket), the typed readings in `drivers.shoe.readings`, the deck tables in
`drivers.shoe.deck`, and `host_protocol(name)` to choose a protocol by configuration string.
"""

from drivers.shoe.deck import BarcodeTable, DeckRegistration
from drivers.shoe.host import PROTOCOLS, ProtocolOptions, host_protocol
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
    "host_protocol",
]
