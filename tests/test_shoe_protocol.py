"""The framed protocol's sessions without I/O: host and shoe firmware on a lossy virtual wire."""

from __future__ import annotations

import random
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.errors import UnknownCodeError
from drivers.shoe.deck import DeckRegistration
from drivers.shoe.firmware import ShoeSession
from drivers.shoe.framed import Frame, FrameCodec, FrameType, encode_frame
from drivers.shoe.host import SILENCE_LIMIT, FramedHost, HostItem, host_protocol, receipt_of
from drivers.shoe.readings import (
    CardRead,
    CardUnreadable,
    FaultReason,
    Receipt,
    ShoeFault,
    ShoeRecovered,
    ShoeReset,
    ShoeStatus,
    StatusFlag,
)
from studio.cards import DECK, Card

TAG = bytes.fromhex("E0040000000110")


class Wire:
    """Shoe and host joined by a virtual line that can lose, duplicate and damage bytes."""

    def __init__(
        self,
        rng: random.Random,
        loss: float = 0.0,
        host: FramedHost | None = None,
        shoe: ShoeSession | None = None,
    ) -> None:
        self.rng = rng
        self.loss = loss
        self.host = host or FramedHost()
        self.shoe = shoe or ShoeSession(session=rng.randrange(1, 0x10000))
        self.now = 0.0
        self.items: list[HostItem] = []
        self.connected = True

    def _damage(self, data: bytes) -> bytes:
        if not data or self.rng.random() >= self.loss:
            return data
        choice = self.rng.randrange(4)
        if choice == 0:
            return b""
        if choice == 1:
            return data + data
        if choice == 2:
            flipped = bytearray(data)
            flipped[self.rng.randrange(len(data))] ^= 1 << self.rng.randrange(8)
            return bytes(flipped)
        return bytes(self.rng.randrange(256) for _ in range(5)) + data

    def to_host(self, data: bytes) -> None:
        if not self.connected:
            return
        items, reply = self.host.feed(self._damage(data), self.now)
        self.items.extend(items)
        if reply:
            self.to_shoe(reply)

    def to_shoe(self, data: bytes) -> None:
        if not self.connected:
            return
        out = self.shoe.receive(self._damage(data), self.now)
        if out:
            self.to_host(out)

    def step(self, dt: float = 0.01) -> None:
        self.now += dt
        more, reply = self.host.poll(self.now)
        self.items.extend(more)
        if reply:
            self.to_shoe(reply)
        out = self.shoe.poll(self.now)
        if out:
            self.to_host(out)

    def deal(self, card: Card) -> None:
        _, wire = self.shoe.card(TAG + bytes((card.index,)), card.index, self.now)
        self.to_host(wire)

    def cards(self) -> list[Card]:
        return [item.card for item in self.items if isinstance(item, CardRead)]


def _deck(rng: random.Random, n: int) -> list[Card]:
    return [rng.choice(DECK) for _ in range(n)]


def test_clean_line_delivers_every_card_once_in_order() -> None:
    rng = random.Random(1)
    wire = Wire(rng)
    wire.to_host(wire.shoe.reset(wire.now)[1])
    dealt = _deck(rng, 200)
    for card in dealt:
        wire.deal(card)
        wire.step()
    assert wire.cards() == dealt
    assert isinstance(wire.items[0], ShoeReset)
    assert wire.shoe.pending == 0
    assert wire.host.counters.duplicates == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.floats(0.0, 0.4))
def test_lossy_line_delivers_every_card_once_in_order(seed: int, loss: float) -> None:
    rng = random.Random(seed)
    wire = Wire(rng, loss)
    wire.to_host(wire.shoe.reset(wire.now)[1])
    dealt = _deck(rng, 60)
    for card in dealt:
        wire.deal(card)
        wire.step(0.02)
    for _ in range(3000):
        if not wire.shoe.pending:
            break
        wire.step(0.02)
    assert wire.shoe.given_up == []
    assert wire.cards() == dealt


def test_unplugged_line_loses_and_invents_nothing() -> None:
    rng = random.Random(2)
    wire = Wire(rng)
    dealt = _deck(rng, 40)
    for i, card in enumerate(dealt):
        wire.connected = not 10 <= i < 30
        if i == 30:
            wire.host.line_opened(wire.now)
        wire.deal(card)
        wire.step(0.05)
    for _ in range(200):
        wire.step(0.05)
    assert wire.cards() == dealt
    faults = [item for item in wire.items if isinstance(item, ShoeFault)]
    assert [f.reason for f in faults] == [FaultReason.SILENT]
    assert any(isinstance(item, ShoeRecovered) for item in wire.items)


def test_silence_is_a_fault_once_and_heals() -> None:
    host = FramedHost()
    host.line_opened(0.0)
    assert host.poll(SILENCE_LIMIT - 0.01) == ([], b"")
    items, _ = host.poll(SILENCE_LIMIT + 0.01)
    assert items == [ShoeFault(FaultReason.SILENT, "no frame for more than 0.6 s")]
    assert host.poll(5.0) == ([], b"")
    beat = encode_frame(Frame(9, 0, FrameType.HEARTBEAT, struct.pack(">BHH", 0, 1, 0)))
    items, _ = host.feed(beat, 5.1)
    assert items == [ShoeRecovered("frames arrive again")]


def test_host_joining_mid_stream_starts_at_the_oldest_unacknowledged_frame() -> None:
    rng = random.Random(3)
    shoe = ShoeSession(session=77)
    shoe.card(TAG + b"\x01", 1, 0.0)
    shoe.card(TAG + b"\x02", 2, 0.0)
    shoe.receive(encode_frame(Frame(77, 0, FrameType.ACK, struct.pack(">H", 1))), 0.0)
    wire = Wire(rng, shoe=shoe)
    seq, frame = shoe.card(TAG + b"\x03", 3, 0.0)
    wire.to_host(frame)  # not joined yet: ignored, not acknowledged
    assert wire.items == [] and shoe.is_pending(seq)
    for _ in range(100):
        wire.step(0.05)
    assert wire.cards() == [Card.from_index(2), Card.from_index(3)]


def test_shoe_restart_is_reported_and_numbering_starts_again() -> None:
    rng = random.Random(4)
    wire = Wire(rng)
    wire.deal(Card.parse("AS"))
    for _ in range(30):
        wire.step(0.05)
    wire.shoe = ShoeSession(session=wire.shoe.session ^ 0x5555)
    wire.to_host(wire.shoe.reset(wire.now)[1])
    wire.deal(Card.parse("KD"))
    for _ in range(30):
        wire.step(0.05)
    assert wire.cards() == [Card.parse("AS"), Card.parse("KD")]
    assert sum(isinstance(item, ShoeReset) for item in wire.items) == 1


def test_frames_the_shoe_gave_up_are_reported_lost() -> None:
    rng = random.Random(5)
    wire = Wire(rng)
    wire.deal(Card.parse("AS"))
    wire.step()
    wire.connected = False
    wire.deal(Card.parse("KD"))
    for _ in range(150):
        wire.step(0.1)  # past the shoe's give-up time
    wire.connected = True
    wire.host.line_opened(wire.now)
    wire.deal(Card.parse("QH"))
    for _ in range(20):
        wire.step(0.05)
    assert wire.shoe.given_up == [2]
    assert wire.cards() == [Card.parse("AS"), Card.parse("QH")]
    lost = [
        i for i in wire.items if isinstance(i, ShoeFault) and i.reason is FaultReason.FRAMES_LOST
    ]
    assert len(lost) == 1 and "2..2" in lost[0].detail


def test_status_unreadable_and_registration() -> None:
    reg = DeckRegistration(deck_id="d", tags={(TAG + b"\x05").hex(): Card.from_index(5)})
    wire = Wire(random.Random(6), host=FramedHost(reg))
    wire.step()  # the first heartbeat lets the host join the shoe's session
    wire.deal(Card.from_index(5))
    wire.to_host(wire.shoe.status(frozenset({StatusFlag.JAM}), wire.now)[1])
    wire.to_host(wire.shoe.unreadable(b"", wire.now)[1])
    wire.deal(Card.from_index(6))  # a tag the deck does not know
    _, mismatch = wire.shoe.card(TAG + b"\x05", 9, wire.now)  # registered 5, shoe says 9
    wire.to_host(mismatch)
    kinds = [type(item) for item in wire.items]
    assert kinds == [CardRead, ShoeStatus, CardUnreadable, UnknownCodeError, UnknownCodeError]
    assert wire.items[1] == ShoeStatus(frozenset({StatusFlag.JAM}), 2, wire.shoe.session)
    assert "registered as 3D but the shoe named 4D" in str(wire.items[4])


def test_barcode_host_has_no_replies_and_counts() -> None:
    host = host_protocol("barcode")
    items, reply = host.feed(b"AS\r\nXX\r\n", 0.0)
    assert reply == b"" and len(items) == 2
    assert host.counters.frames == 1 and host.counters.protocol_errors == 1
    assert host.poll(100.0) == ([], b"")


def test_decoder_of_the_shoe_ignores_other_sessions() -> None:
    shoe = ShoeSession(session=5)
    seq, _ = shoe.card(TAG + b"\x01", 1, 0.0)
    shoe.receive(encode_frame(Frame(6, 0, FrameType.ACK, struct.pack(">H", seq))), 0.0)
    assert shoe.is_pending(seq)
    assert FrameCodec().feed(b"") == []


class Table:
    """The runtime's side of held acknowledgements: journal a delivered card, then commit it.

    `crash_after_journal` / `crash_before_journal` name the delivered items (by count) at which
    the table dies, its unjournalled deliveries gone with it; a new host then resumes after the
    last card the journal holds, as `studio run` does on restart.
    """

    def __init__(self, wire: Wire, crashes: dict[int, str]) -> None:
        self.wire = wire
        self.crashes = crashes
        self.journal: list[tuple[Card, Receipt]] = []
        self.taken = 0
        self.restarts = 0

    def take(self) -> None:
        while self.wire.items:
            item = self.wire.items.pop(0)
            self.taken += 1
            crash = self.crashes.pop(self.taken, None)
            if crash == "before_journal":
                self.restart()
                return
            receipt = receipt_of(item)
            if isinstance(item, CardRead):
                assert receipt is not None
                self.journal.append((item.card, receipt))
            if crash == "after_journal":
                self.restart()
                return
            if receipt is not None:
                self.wire.to_shoe(self.wire.host.commit(receipt))

    def restart(self) -> None:
        self.restarts += 1
        self.wire.items.clear()
        resume = self.journal[-1][1] if self.journal else None
        self.wire.host = FramedHost(hold_acks=True, resume_after=resume)
        self.wire.host.line_opened(self.wire.now)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32),
    st.floats(0.0, 0.3),
    st.dictionaries(st.integers(1, 50), st.sampled_from(["before_journal", "after_journal"])),
)
def test_held_acknowledgements_lose_and_repeat_no_card_across_table_crashes(
    seed: int, loss: float, crashes: dict[int, str]
) -> None:
    rng = random.Random(seed)
    shoe = ShoeSession(session=rng.randrange(1, 0x10000), give_up_after=1e9)
    wire = Wire(rng, loss, host=FramedHost(hold_acks=True), shoe=shoe)
    table = Table(wire, dict(crashes))
    wire.to_host(shoe.reset(wire.now)[1])
    dealt = _deck(rng, 40)
    for card in dealt:
        wire.deal(card)
        wire.step(0.02)
        table.take()
    for _ in range(3000):
        if not shoe.pending and not wire.items:
            break
        wire.step(0.02)
        table.take()
    assert [card for card, _ in table.journal] == dealt
    assert shoe.pending == 0


def test_a_held_frame_is_resent_until_committed_and_never_acknowledged_before() -> None:
    rng = random.Random(8)
    wire = Wire(rng, host=FramedHost(hold_acks=True))
    wire.to_host(wire.shoe.reset(wire.now)[1])
    wire.deal(Card.parse("AS"))
    reset, card = wire.items
    assert receipt_of(reset) == Receipt(wire.shoe.session, 1)
    assert receipt_of(card) == Receipt(wire.shoe.session, 2)
    for _ in range(20):
        wire.step(0.05)  # retransmitted, and taken as a duplicate: no second delivery
    assert wire.shoe.is_pending(2) and wire.cards() == [Card.parse("AS")]
    assert wire.host.counters.duplicates > 0
    wire.to_shoe(wire.host.commit(Receipt(wire.shoe.session, 2)))
    assert wire.shoe.pending == 0
    # A stale or repeated receipt sends nothing.
    assert wire.host.commit(Receipt(wire.shoe.session, 2)) == b""
    assert wire.host.commit(Receipt(wire.shoe.session ^ 1, 3)) == b""


def test_a_receipt_for_a_frame_never_delivered_acknowledges_nothing() -> None:
    host = FramedHost(hold_acks=True, resume_after=Receipt(40, 9))
    assert host.commit(Receipt(40, 12)) == b""
    assert host.commit(Receipt(40, 8)) == b""


def test_an_unknown_tag_is_held_like_a_card() -> None:
    wire = Wire(
        random.Random(9), host=FramedHost(DeckRegistration(deck_id="d", tags={}), hold_acks=True)
    )
    wire.to_host(wire.shoe.reset(wire.now)[1])
    wire.deal(Card.parse("AS"))
    unknown = wire.items[-1]
    assert isinstance(unknown, UnknownCodeError)
    assert receipt_of(unknown) == Receipt(wire.shoe.session, 2)
