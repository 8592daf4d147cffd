"""The table's devices, built from the configuration: the shoe (real or simulated) and its bridge.

The shoe is always read through the real serial driver (`drivers.shoe.SerialShoe`) at a pyserial
URL. With `shoe.backend = "simulated"` a `DealerShoe` (the drivers' `SimulatedShoe` on a real
pseudo-terminal) sits at the far end of that line and deals the cards the simulated dealer hands
it, so the simulated table exercises the same bytes, protocol and reader as a real one.

The reader is chosen once by the line's URL (`drivers.shoe.readers.open_reader`): the loop
watches a device path, a pty or a `socket://` line itself and applies each delivery as it reads
it, with no thread hand-over; any other line (`rfc2217://`) is read by a thread whose deliveries
wake the loop. Either way the loop alone journals and applies inputs, so no lock guards the
controller.

The reader holds a framed shoe's acknowledgements (`hold_acks`) until the loop has journalled
the delivery (`ShoeDevice.commit`): a shoe frame is forgotten by the shoe only once its card is
on record. On restart the reader resumes after the last card frame in the journal
(`resume_point`), so the frame the table died before acknowledging is taken as a duplicate.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from drivers.errors import DriverError
from drivers.shoe import SimulatedShoe
from drivers.shoe.firmware import ShoeSession
from drivers.shoe.host import ProtocolOptions, frame_receipt
from drivers.shoe.identity import usb_verifier
from drivers.shoe.line_reader import ShoeLineReader
from drivers.shoe.readers import open_reader
from drivers.shoe.readings import Delivery, Receipt
from studio.cards import Card
from studio.closing import Closing
from studio.config import RuntimeConfig
from studio.errors import ConfigurationError
from studio.journal import Journal
from studio.messages import CardDrawn, parse_input

log = logging.getLogger(__name__)


class DealerShoe(Closing):
    """A simulated shoe that deals exactly the cards a dealer hands it, when it hands them.

    The drivers' simulator deals its own shuffled deck at a fixed pace; a table's dealer must
    instead draw one card when the table can take it, from a deck shuffled for each round. This
    is the drivers' `SimulatedShoe` fed through its public `draw` hook from `deal()`; it keeps
    serving the line while it waits. Start it with `start()`; `close()` is idempotent.
    """

    def __init__(
        self, pty: Path, protocol: str, *, seed: int = 0, log_to: TextIO | None = None
    ) -> None:
        """Create the pty (its slave linked at `pty`); raises DriverError if it cannot."""
        self._orders: queue.Queue[Card] = queue.Queue()
        self.shoe = SimulatedShoe(
            f"pty:{pty}",
            protocol,
            cards=sys.maxsize,
            interval=0.0,
            seed=seed,
            log_to=log_to,
            draw=self._take,
        )

    def _take(self, timeout: float) -> Card | None:
        try:
            return self._orders.get(timeout=timeout)
        except queue.Empty:
            return None

    def start(self) -> DealerShoe:
        """Serve the line and deal on the simulator's thread."""
        self.shoe.start()
        return self

    def deal(self, card: Card) -> None:
        """Draw `card` now: its frame (or barcode line) goes onto the line at once."""
        self._orders.put(card)

    @property
    def session(self) -> ShoeSession | None:
        """The framed protocol's shoe-side session (None on a barcode line)."""
        return self.shoe.session

    def failure(self) -> BaseException | None:
        """What ended the simulator's thread, other than being closed."""
        return self.shoe.error

    def close(self) -> None:
        """Stop the simulator and remove its pty; idempotent."""
        self.shoe.close()


def resume_point(journal: Journal) -> Receipt | None:
    """The shoe frame of the last card in `journal` (None: no card, or not a framed shoe's)."""
    record = journal.last_input_of("card_drawn")
    if record is None:
        return None
    card = parse_input(record.body)
    if not isinstance(card, CardDrawn):
        return None
    try:
        raw = bytes.fromhex(card.raw)
    except ValueError:
        return None
    return frame_receipt(raw)  # None for a barcode line or a card entered by hand.


class ShoeDevice(Closing):
    """The table's shoe: the serial reader, and for a simulated shoe the simulator behind it.

    The reader's deliveries are on `reader.deliveries`; with a `loop`, `wake()` runs in its
    thread after deliveries (see `open_reader`), without one its owner reads the queue.
    Context manager; `close()` is idempotent: it stops the reader first (so closing the
    simulator's pty is not reported as an unplugged shoe), then the simulator. Raises
    `ConfigurationError` for a bad URL or protocol, or a pty that cannot be made.
    """

    def __init__(
        self,
        config: RuntimeConfig,
        resume_after: Receipt | None = None,
        *,
        loop: asyncio.AbstractEventLoop | None = None,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        shoe = config.shoe
        self.simulator: DealerShoe | None = None
        self._log: TextIO | None = None
        self._closed = False
        try:
            if shoe.backend == "simulated":
                pty = config.expand(shoe.pty)
                pty.parent.mkdir(parents=True, exist_ok=True)
                if shoe.log:
                    self._log = config.expand(shoe.log).open("a", encoding="utf-8")
                self.simulator = DealerShoe(
                    pty, shoe.protocol, seed=config.dealer.seed, log_to=self._log
                )
                self.simulator.start()
                url = str(pty)
            else:
                assert shoe.url is not None
                url = shoe.url
            self.url = url
            self.reader: ShoeLineReader = open_reader(
                url,
                shoe.protocol,
                loop=loop,
                wake=wake,
                options=ProtocolOptions(hold_acks=True, resume_after=resume_after),
                baudrate=shoe.baudrate,
                verify=None if (pin := shoe.usb_pin()) is None else usb_verifier(pin),
            )
        except (DriverError, OSError) as err:
            self._close_simulator()
            raise ConfigurationError(f"shoe: {err}") from err

    def describe(self) -> str:
        """One line: which shoe, on which line, with which protocol."""
        kind = "simulated shoe on a pty" if self.simulator is not None else "shoe"
        return f"{kind} at {self.url} ({self.reader.protocol.name} protocol, serial driver)"

    def commit(self, delivery: Delivery) -> None:
        """`delivery` is on record (journalled, or not an input): the shoe may forget its frame."""
        self.reader.commit(delivery)

    def rewind(self) -> None:
        """The deliveries not committed are not on record: a framed shoe's resends count again."""
        self.reader.rewind()

    def deal(self, card: Card) -> None:
        """Have the simulated shoe draw `card`; raises ConfigurationError for a real shoe."""
        if self.simulator is None:
            raise ConfigurationError("only a simulated shoe deals on command")
        self.simulator.deal(card)

    def close(self) -> None:
        """Stop reading, then stop the simulator and remove its pty; idempotent."""
        if self._closed:
            return
        self._closed = True
        self.reader.close()
        self._close_simulator()

    def _close_simulator(self) -> None:
        if self.simulator is not None:
            self.simulator.close()
            failure = self.simulator.failure()
            if failure is not None:
                log.error("the simulated shoe failed: %r", failure)
        if self._log is not None:
            self._log.close()
            self._log = None
