"""Public names of `drivers.shoe`, for the type checker and for the lazy loader.

`__init__.py` hands this file to `lazy_loader.attach_stub`: each name below is imported from
its module on first use, and this one list is what both the type checker and the runtime read.
"""

from .deck import BarcodeTable as BarcodeTable
from .deck import DeckRegistration as DeckRegistration
from .host import PROTOCOLS as PROTOCOLS
from .host import ProtocolOptions as ProtocolOptions
from .host import host_protocol as host_protocol
from .readers import open_reader as open_reader
from .readings import CardRead as CardRead
from .readings import CardUnreadable as CardUnreadable
from .readings import Delivery as Delivery
from .readings import FaultReason as FaultReason
from .readings import ShoeFault as ShoeFault
from .readings import ShoeHealth as ShoeHealth
from .readings import ShoeReading as ShoeReading
from .readings import ShoeRecovered as ShoeRecovered
from .readings import ShoeReset as ShoeReset
from .readings import ShoeStatus as ShoeStatus
from .readings import StatusFlag as StatusFlag
from .serial_shoe import SerialShoe as SerialShoe
from .simulator import FaultRates as FaultRates
from .simulator import SimulatedShoe as SimulatedShoe
from .watched_shoe import WatchedSerialShoe as WatchedSerialShoe
