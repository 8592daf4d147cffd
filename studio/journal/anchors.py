"""Signed checkpoints: anchors of the journal's end held outside it.

The hash chain shows any record edited, inserted or deleted before the head, but a forger who
deletes whole trailing rounds and moves the head leaves a shorter, sound chain. So the table
publishes a `Checkpoint` (record count, chain head, last event, time) signed with its Ed25519
key every `checkpoint_events` events and at every round's end; a consumer that keeps them
(`studio journal anchors`, the archive) can later show the journal lost records it once held
(`check_anchors`, `studio journal verify --anchors FILE`).

The signing key lives beside the table's CURVE key in its key directory: `table.sign_secret`
(PKCS#8 PEM, 0600) and `table.sign` (the public key, hex). Ed25519 comes from `cryptography`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)

from studio.errors import InputError, JournalError
from studio.journal.chain import EVENTS_GENESIS, event_link
from studio.journal.store import Journal
from studio.messages.notices import Checkpoint, parse_notice

SIGN_SECRET = "table.sign_secret"
"""The table's Ed25519 private key file, in its key directory."""
SIGN_PUBLIC = "table.sign"
"""The table's Ed25519 public key file (hex), in its key directory."""


class EventChain:
    """The events-only chain's value (`event_link`) at the last event it has read.

    `advance(journal)` reads the events stored since, so the cost at a checkpoint is the events
    since the last one (all of them, once, after a start).
    """

    def __init__(self) -> None:
        self.seq = 0
        self.head = EVENTS_GENESIS

    def advance(self, journal: Journal) -> str:
        """Read `journal`'s events after the last one read; return the chain's value."""
        for record in journal.events_from(self.seq + 1):
            self.head = event_link(self.head, record.body.encode())
            self.seq = record.seq
        return self.head


class CheckpointSigner:
    """Signs checkpoints with a table's Ed25519 key (`load_or_create` reads or makes the files)."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.events = EventChain()
        self.public_hex = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()

    @classmethod
    def load_or_create(cls, directory: Path) -> CheckpointSigner:
        """The signer of the key in `directory`, made (0600) when missing; never overwritten.

        Raises `JournalError` when the file cannot be read or written, or is not such a key.
        """
        secret = directory / SIGN_SECRET
        try:
            if not secret.exists():
                key = Ed25519PrivateKey.generate()
                pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
                fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as out:
                    out.write(pem)
            loaded = load_pem_private_key(secret.read_bytes(), password=None)
        except (OSError, ValueError) as err:
            raise JournalError(f"{secret}: cannot use the checkpoint signing key: {err}") from err
        if not isinstance(loaded, Ed25519PrivateKey):
            raise JournalError(f"{secret}: not an Ed25519 key")
        signer = cls(loaded)
        public = directory / SIGN_PUBLIC
        if not public.exists():
            public.write_text(signer.public_hex + "\n")
        return signer

    def checkpoint(
        self,
        table: str,
        journal: Journal,
        ts: datetime,
        reason: Literal["round_end", "interval"],
    ) -> Checkpoint:
        """A signed checkpoint of `journal`'s end now (its events read since the last one)."""
        events_head = self.events.advance(journal)
        unsigned = Checkpoint(
            table=table,
            ts=ts,
            records=journal.head_id,
            head=journal.head_hash,
            last_seq=journal.last_event_seq,
            events_head=events_head,
            reason=reason,
            key=self.public_hex,
            signature="0" * 128,
        )
        return self.sign(unsigned)

    def sign(self, checkpoint: Checkpoint) -> Checkpoint:
        """`checkpoint` with this key as its `key` and its signature made."""
        keyed = checkpoint.model_copy(update={"key": self.public_hex})
        return keyed.model_copy(update={"signature": self._key.sign(keyed.signed_text()).hex()})


def signature_ok(checkpoint: Checkpoint, trusted: str | None = None) -> bool:
    """Whether `checkpoint` is signed by its own `key` (and that key is `trusted`, if given)."""
    if trusted is not None and checkpoint.key != trusted:
        return False
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(checkpoint.key))
        public.verify(bytes.fromhex(checkpoint.signature), checkpoint.signed_text())
    except (InvalidSignature, ValueError):
        return False
    return True


def read_anchors(path: Path) -> list[Checkpoint]:
    """The checkpoints in `path`, one JSON object a line (what `studio journal anchors` keeps).

    Raises `InputError` naming the line for one that is not a checkpoint, `JournalError` when
    the file cannot be read.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise JournalError(f"{path}: cannot read anchors: {err.strerror}") from err
    found = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            notice = parse_notice(line)
        except InputError as err:
            raise InputError(f"{path}:{number}: {err}") from err
        if not isinstance(notice, Checkpoint):
            raise InputError(f"{path}:{number}: a {notice.kind}, not a checkpoint")
        found.append(notice)
    return found


@dataclass(frozen=True, slots=True)
class AnchorReport:
    """What `check_anchors` found: how many checkpoints held, and the first problem (or None)."""

    checked: int
    problem: str | None


def check_anchors(
    journal: Journal, anchors: Sequence[Checkpoint], table: str | None, trusted: str | None = None
) -> AnchorReport:
    """Hold `journal` to the checkpoints of `table` kept elsewhere (others are skipped).

    Each checkpoint must carry a good signature (by `trusted`, if given, else by the first
    checkpoint's key: a table's key does not change under one journal), and the journal must
    still hold its record `records` with the hash `head`. A journal shorter than a checkpoint
    lost its trailing records; a different hash means the journal was rewritten.
    """
    checked = 0
    for cp in _of_table(anchors, table):
        trusted = trusted or cp.key
        when = cp.ts.isoformat()
        if not signature_ok(cp, trusted):
            return AnchorReport(checked, f"the checkpoint of {when} has a bad signature")
        if cp.records > journal.head_id:
            return AnchorReport(
                checked,
                f"records {journal.head_id + 1}..{cp.records} are missing: the checkpoint of "
                f"{when} saw {cp.records} records (events up to seq {cp.last_seq}), the journal "
                f"ends at record {journal.head_id} (trailing records deleted)",
            )
        if cp.records > 0:
            record = next(iter(journal.records(after=cp.records - 1)), None)
            if record is None or record.hash != cp.head:
                return AnchorReport(
                    checked,
                    f"record {cp.records} does not match the checkpoint of {when}: the journal "
                    "was rewritten from there",
                )
        checked += 1
    return AnchorReport(checked, None)


def _of_table(anchors: Iterable[Checkpoint], table: str | None) -> list[Checkpoint]:
    return sorted(
        (cp for cp in anchors if table is None or cp.table == table), key=lambda c: c.records
    )
