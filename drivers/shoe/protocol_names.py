"""The names of the shoe protocols, apart from their code.

`drivers.shoe.host.PROTOCOLS` is the registry (each name's host protocol) and checks at import
that it names exactly these; the command line lists them in its help from here, without loading
the codecs and the serial driver.
"""

from __future__ import annotations

PROTOCOL_NAMES: tuple[str, ...] = ("barcode", "framed")
"""Every shoe protocol's configuration name, sorted."""
