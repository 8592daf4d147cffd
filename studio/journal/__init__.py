"""The table's journal: an append-only, hash-chained SQLite record of every input and event.

`Journal` is the file (`studio.journal.store` appends, `studio.journal.reader` reads,
`studio.journal.database` opens it), `verify` checks its chain
(`studio.journal.verify`), `RecordedTable` journals every input before a controller applies it
and `recover` rebuilds a controller by replay (`studio.journal.recorder`), and
`studio.journal.recall` rebuilds whole rounds for game recall. The journal is an adapter: it
knows the message shapes but never decides anything about a round; the controller does.
"""

from studio.journal.chain import FORMAT, GENESIS, Record, canonical_json, genesis, record_hash
from studio.journal.recorder import RecordedTable, RecoveryReport, recover
from studio.journal.store import Journal
from studio.journal.verify import VerifyReport, verify

__all__ = [
    "FORMAT",
    "GENESIS",
    "Journal",
    "Record",
    "RecordedTable",
    "RecoveryReport",
    "VerifyReport",
    "canonical_json",
    "genesis",
    "record_hash",
    "recover",
    "verify",
]
