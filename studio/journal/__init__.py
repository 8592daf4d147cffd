"""The table's journal: an append-only, hash-chained SQLite record of every input and event.

`Journal` is the file (`studio.journal.store`), `verify` checks its chain
(`studio.journal.verify`). The journal is an adapter: it knows the message shapes but never
decides anything about a round; the controller does.
"""

from studio.journal.chain import GENESIS, Record, canonical_json, record_hash
from studio.journal.store import FORMAT, Journal
from studio.journal.verify import VerifyReport, verify

__all__ = [
    "FORMAT",
    "GENESIS",
    "Journal",
    "Record",
    "VerifyReport",
    "canonical_json",
    "record_hash",
    "verify",
]
