"""`SimulatedShoe`: a shoe device on the far side of a real line, not a mock.

It holds a seeded, shuffled deck (a fresh shuffle after every 52 cards), deals one card per
interval in either protocol, and injects faults by rate: garbage bytes, bit flips, dropped frames,
duplicated frames, unreadable cards, stopped heartbeats, a disconnect and reconnect, a jam and a
slow line. Its log (one JSON object per card, in dealing order) says what each card was, which
faults were injected with it, and what a correct reader must make of it (`expect`: `card`,
`unreadable`, `twice`, `unreadable-twice` or `lost`), so tests compare a reader's output with the
truth rather than with the simulator's internals. `t`, `unplugged_at` and `muted_at` are
`time.monotonic()` seconds (one clock for every process on the machine), so fault timing is
measured from event timestamps.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TextIO

from drivers.errors import DriverConfigurationError
from drivers.shoe.barcode import BarcodeCodec
from drivers.shoe.deck import BarcodeTable, DeckRegistration
from drivers.shoe.firmware import ShoeSession
from drivers.shoe.host import PROTOCOLS
from drivers.shoe.readings import StatusFlag
from drivers.shoe.sim_line import SimLine, line_for_config
from studio.cards import DECK, Card

log = logging.getLogger(__name__)

JAM_HOLD = 0.3
"""Seconds a simulated jam stops dealing."""
SILENCE_HOLD = 1.0
"""Seconds a simulated shoe stays mute after its heartbeats stop: longer than the host's limit."""
OUTAGE = 0.5
"""Seconds a simulated disconnect keeps the line away."""
BARCODE_REPLUG_HOLD = 1.5
"""After a replug a barcode reader has no retransmission, so the dealer waits for the host to
reopen the line (its backoff reaches ~0.8 s) before the next card."""
DRAIN_SETTLE = 0.1
"""Seconds for bytes already written to reach the host through the kernel or a device server."""
SLOW_BYTE = 0.001
"""Seconds between bytes on a slow line."""
DRAW_WAIT = 0.01
"""Seconds a shoe fed by `draw` waits for the dealer's next card before it serves its line again
(acknowledgements, heartbeats every 200 ms): short enough that its session never goes silent."""
DRAW_SERVICE = 0.001
"""Seconds a shoe fed by `draw` serves its line between two asks for a card."""


@dataclass(frozen=True, slots=True)
class FaultRates:
    """Probability (0..1) per card of each injected fault."""

    garbage: float = 0.0
    bitflip: float = 0.0
    drop: float = 0.0
    duplicate: float = 0.0
    unreadable: float = 0.0
    heartbeat_stop: float = 0.0
    disconnect: float = 0.0
    jam: float = 0.0
    slow: float = 0.0

    @classmethod
    def parse(cls, spec: str) -> FaultRates:
        """Parse `garbage=0.01,drop=0.02,...` (names with `-` or `_`); raise on a bad entry."""
        known = {f.name for f in fields(cls)}
        rates: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in spec.split(","))):
            name, _, value = part.partition("=")
            key = name.strip().replace("-", "_")
            try:
                rate = float(value)
            except ValueError:
                rate = -1.0
            if key not in known or not 0.0 <= rate <= 1.0:
                raise DriverConfigurationError(
                    f"bad fault {part!r} (expected NAME=RATE with RATE in 0..1, NAME one of "
                    f"{', '.join(sorted(k.replace('_', '-') for k in known))})"
                )
            rates[key] = rate
        return cls(**rates)

    def drawn(self, rng: random.Random) -> list[str]:
        """Draw this card's faults (every rate is drawn, so the sequence depends only on seed)."""
        return [f.name for f in fields(self) if rng.random() < getattr(self, f.name)]


def deck_tag(deck_id: int, card: Card) -> bytes:
    """The RFID tag id of `card` in simulated deck `deck_id` (8 bytes, ISO 15693 style)."""
    return bytes((0xE0, 0x04)) + deck_id.to_bytes(4, "big") + bytes((0x10, card.index))


def simulated_registration(deck_id: int) -> DeckRegistration:
    """The registration `studio shoe enroll` would write for simulated deck `deck_id`."""
    tags = {deck_tag(deck_id, card).hex().upper(): card for card in DECK}
    return DeckRegistration(deck_id=f"sim-{deck_id}", tags=tags)


SIMULATED_IDENTITY = "studio simulated shoe"
"""The identity a simulated framed shoe reports unless told another."""


class SimulatedShoe:
    """A simulated shoe speaking `protocol` ("barcode" or "framed") on a `SimLine`.

    `run()` deals in the calling thread and returns the number of cards given up (framed frames
    never acknowledged); `start()` runs it on a thread. Use as a context manager or call `close()`
    (idempotent). `on_write(n, seq, t)` is called as each card's bytes are written.

    `draw(timeout)`, if given, is where the cards come from instead of the shoe's own deck: the
    dealer draws this card. The shoe calls it when it is ready to deal; it returns the card, or
    None when the dealer has drawn nothing within `timeout` seconds, and the shoe then serves its
    line (acknowledgements, heartbeats) for a moment and asks again. `interval` still spaces the
    cards (0: as fast as they are drawn).
    """

    def __init__(
        self,
        line: SimLine | str,
        protocol: str = "framed",
        *,
        cards: int = 52,
        interval: float = 0.05,
        start_delay: float = 0.0,
        seed: int = 1,
        faults: FaultRates | None = None,
        log_to: TextIO | None = None,
        table: BarcodeTable | None = None,
        deck_id: int = 1,
        on_write: Callable[[int, int | None, float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        identity: str = SIMULATED_IDENTITY,
        draw: Callable[[float], Card | None] | None = None,
    ) -> None:
        """Open the line (a `SimLine` or its configuration string) and prepare the deck.

        `identity` is what a framed shoe reports in its RESET frame ("" for none).
        """
        if protocol not in PROTOCOLS:
            known = ", ".join(sorted(PROTOCOLS))
            raise DriverConfigurationError(
                f"unknown shoe protocol {protocol!r} (expected one of {known})"
            )
        self.line = line_for_config(line) if isinstance(line, str) else line
        self.protocol = protocol
        self.cards = cards
        self.interval = interval
        self.start_delay = start_delay
        self.faults = faults or FaultRates()
        self.table = table or BarcodeTable.card_codes()
        self.deck_id = deck_id
        boot = random.Random(f"boot-{seed}-{time.time_ns()}").randrange(1, 0x10000)
        self.session = (
            ShoeSession(session=boot, identity=identity) if protocol == "framed" else None
        )
        self._barcode = BarcodeCodec(self.table)
        self.dealt = 0
        self._rng = random.Random(seed)
        # Which faults strike is drawn apart from what the noise looks like, so a seed strikes
        # the same cards with the same faults in either protocol.
        self._fault_rng = random.Random(seed ^ 0x5EED)
        self._noise_rng = random.Random(seed ^ 0x0015E)
        self._deck: list[Card] = []
        self._log = log_to
        self._on_write = on_write
        self._clock = clock
        self._draw = draw
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.given_up = 0
        self.error: BaseException | None = None

    def __enter__(self) -> SimulatedShoe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> SimulatedShoe:
        """Run the shoe on its own thread; errors are kept in `error`."""

        def target() -> None:
            try:
                self.run()
            except BaseException as err:  # kept for the owner: a thread must not eat errors
                self.error = err

        self._thread = threading.Thread(target=target, name="shoe-sim", daemon=True)
        self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a started shoe to finish dealing; return whether it did."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return True

    def close(self) -> None:
        """Stop dealing, join the thread and release the line; idempotent."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        if not self._closed:
            self._closed = True
            self.line.close()

    def _next_card(self) -> Card | None:
        if self._draw is not None:
            return self._draw(DRAW_WAIT)
        if not self._deck:
            self._deck = list(DECK)
            self._rng.shuffle(self._deck)
        return self._deck.pop()

    def _now(self) -> float:
        return self._clock()

    def _send(self, data: bytes, slow: bool = False) -> None:
        if not slow:
            self.line.write(data)
            return
        for byte in data:
            self.line.write(bytes((byte,)))
            self._stop.wait(SLOW_BYTE)

    def _service(self, until: float) -> None:
        """Answer the host and keep time (heartbeats, retransmissions) until `until`."""
        while not self._stop.is_set():
            now = self._now()
            if now >= until:
                return
            data = self.line.read(min(until - now, 0.01))
            if self.session is not None:
                now = self._now()
                out = self.session.receive(data, now) if data else b""
                out += self.session.poll(now)
                if out:
                    self._send(out)

    def run(self) -> int:
        """Deal every card, then wait for acknowledgements; return how many were given up."""
        if self.session is not None:
            self._send(self.session.reset(self._now())[1])
        # A shoe behind a device server deals once a host is attached (a pty is always there):
        # barcode lines sent to nobody would be lost.
        while not self.line.connected() and not self._stop.is_set():
            self._service(self._now() + 0.01)
        self._service(self._now() + self.start_delay)
        next_at = self._now()
        while self.dealt < self.cards and not self._stop.is_set():
            self._service(next_at)
            if self._stop.is_set():
                break
            card = self._next_card()
            if card is None:
                # The dealer has drawn nothing yet: the line must not go silent meanwhile.
                self._service(self._now() + DRAW_SERVICE)
                continue
            self._deal(card)
            next_at = max(next_at + self.interval, self._now())
        self._finish()
        return self.given_up

    def _finish(self) -> None:
        if self.session is not None:
            while self.session.pending and not self._stop.is_set():
                self._service(self._now() + 0.01)
            self.given_up = len(self.session.given_up)
            if self.given_up:
                log.warning("gave up %d unacknowledged frames", self.given_up)
            return
        # A barcode line has no acknowledgement: wait until the host has read every byte.
        self._drain()

    def _deal(self, card: Card) -> None:
        self.dealt += 1
        faults = self.faults.drawn(self._fault_rng)
        tag = deck_tag(self.deck_id, card)
        now = self._now()
        seq: int | None = None
        if self.session is not None:
            if "unreadable" in faults:
                seq, wire = self.session.unreadable(b"", now)
            else:
                seq, wire = self.session.card(tag, card.index, now)
            garbage = bytes(
                self._noise_rng.randrange(256) for _ in range(1 + self._noise_rng.randrange(24))
            )
        else:
            wire = self._barcode.encode(None if "unreadable" in faults else card)
            garbage = bytes(
                0x80 + self._noise_rng.randrange(128)
                for _ in range(1 + self._noise_rng.randrange(12))
            )
            garbage += b"\r\n"
        if "bitflip" in faults:
            wire = self._flip(wire)
        entry: dict[str, object] = {
            "card": card.code,
            "n": self.dealt,
            "seq": seq,
            "tag": tag.hex().upper() if self.session is not None else None,
            "faults": [name.replace("_", "-") for name in faults],
            "expect": self._expect(faults),
        }
        if "garbage" in faults:
            self._send(garbage)
        entry["t"] = written = self._now()
        if "drop" not in faults:
            if self._on_write is not None:
                self._on_write(self.dealt, seq, written)
            self._send(wire, slow="slow" in faults)
            if "duplicate" in faults:
                self._send(wire)
        self._after(faults, entry)
        if self._log is not None:
            # Written after the card's faults have played out, so the entry can say when the
            # line went away or mute (monotonic seconds, comparable across processes).
            self._log.write(json.dumps(entry) + "\n")
            self._log.flush()

    def _drain(self) -> None:
        """Wait until the host has taken every byte, as a dealer unplugs an idle barcode line."""
        # A barcode line cannot recover bytes lost in an unplug, so the simulator unplugs only
        # between lines. The kernel moves pty bytes to the slave side asynchronously, and a
        # device server forwards them a moment later, hence the settling waits around the check.
        self._stop.wait(DRAIN_SETTLE)
        deadline = self._now() + 1.0
        while self.line.backlog() and self._now() < deadline and not self._stop.is_set():
            self._stop.wait(0.005)
        self._stop.wait(DRAIN_SETTLE)

    def _flip(self, wire: bytes) -> bytes:
        data = bytearray(wire)
        if self.session is not None:
            data[self._noise_rng.randrange(len(data))] ^= 1 << self._noise_rng.randrange(8)
        else:
            # A barcode line has no check: a flip inside printable ASCII can make another valid
            # code. A serial line with parity shows a flip as a framing error, modelled by
            # setting the high bit, which the decoder refuses.
            data[self._noise_rng.randrange(len(data) - 2)] |= 0x80
        return bytes(data)

    def _expect(self, faults: list[str]) -> str:
        if self.session is not None:
            return "unreadable" if "unreadable" in faults else "card"
        if "drop" in faults or "bitflip" in faults:
            return "lost"
        if "duplicate" in faults:
            return "unreadable-twice" if "unreadable" in faults else "twice"
        return "unreadable" if "unreadable" in faults else "card"

    def _after(self, faults: list[str], entry: dict[str, object]) -> None:
        session = self.session
        if "jam" in faults:
            if session is not None:
                self._send(session.status(frozenset({StatusFlag.JAM}), self._now())[1])
            self._service(self._now() + JAM_HOLD)
            if session is not None:
                self._send(session.status(frozenset(), self._now())[1])
        if "heartbeat_stop" in faults and session is not None:
            session.heartbeats = False
            entry["muted_at"] = self._now()
            # Mute means mute: no retransmission either, or the host would hear the shoe.
            self._stop.wait(SILENCE_HOLD)
            session.heartbeats = True
        if "disconnect" in faults:
            if session is None:
                self._drain()
            entry["unplugged_at"] = self._now()
            self.line.reconnect(OUTAGE)
            if session is None:
                self._stop.wait(BARCODE_REPLUG_HOLD)
