"""Card shoes: byte protocols (barcode lines, smart-shoe frames), the serial reader, the simulator.

The public surface: `SerialShoe` (read any pyserial URL in a thread), `WatchedSerialShoe` (read a
line that is a file descriptor in an asyncio loop), `open_reader` (the one a table uses, chosen
by the URL), `SimulatedShoe` (a shoe on a real pty or TCP socket), the typed readings in
`drivers.shoe.readings`, the deck tables in `drivers.shoe.deck`, and `host_protocol(name)` to
choose a protocol by configuration string.

The names above are loaded on first use (PEP 562,
by `lazy_loader` from the names in `__init__.pyi`): importing one module of the package (the
protocols' names of `drivers.shoe.protocol_names`, say) does not import pydantic, pyserial and
every codec with it, so `studio shoe --help` starts at once.
"""

import lazy_loader

# The stub beside this file is the one list of public names: the type checker reads it as the
# package's interface, and `attach_stub` imports each name from its module on first use.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
