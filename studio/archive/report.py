"""The regulators' analysis by table and by dealer: rounds, voids and incidents by kind.

`rounds_between` reads, for every round opened in [start, end), its table, its dealer, whether it
was voided and its incidents' kinds; `summarise` (pure) counts them per table and per dealer. A
round's dealer is the actor of the last command the table accepted from the dealer role in that
round ("-" when no dealer command was given, as on the public stream alone). An incident is
counted once by its number whichever of `round_paused` (public) and `incident_reported`
(restricted) carried it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from studio.archive.store import Conn

NO_DEALER = "-"

_ROUNDS = """
WITH opened AS (
    SELECT table_id, game_number FROM archive_event
    WHERE type = 'round_opened' AND ts >= %s AND ts < %s
)
SELECT o.table_id, o.game_number,
    (SELECT e.payload::jsonb -> 'body' ->> 'actor' FROM archive_event e
     WHERE e.table_id = o.table_id AND e.game_number = o.game_number
       AND e.type = 'command_accepted' AND e.payload::jsonb -> 'body' ->> 'role' = 'dealer'
     ORDER BY e.seq DESC LIMIT 1),
    EXISTS (SELECT 1 FROM archive_event e
     WHERE e.table_id = o.table_id AND e.game_number = o.game_number
       AND e.type = 'round_voided'),
    ARRAY (SELECT DISTINCT ON (e.payload::jsonb -> 'body' ->> 'incident')
                e.payload::jsonb -> 'body' ->> 'kind'
     FROM archive_event e
     WHERE e.table_id = o.table_id AND e.game_number = o.game_number
       AND e.type IN ('round_paused', 'incident_reported'))
FROM opened o ORDER BY o.table_id, o.game_number
"""


@dataclass(frozen=True)
class RoundFacts:
    """What the report needs of one round."""

    table: str
    game_number: str
    dealer: str
    voided: bool
    incidents: tuple[str, ...]


@dataclass
class Line:
    """One table's or one dealer's figures."""

    key: str
    rounds: int = 0
    voids: int = 0
    incidents: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Report:
    """The figures per table and per dealer, sorted by key; `kinds` is every incident kind seen."""

    start: datetime
    end: datetime
    tables: list[Line]
    dealers: list[Line]
    kinds: list[str]


def rounds_between(conn: Conn, start: datetime, end: datetime) -> list[RoundFacts]:
    """Every round opened at or after `start` and before `end`, by table and game number."""
    rows = conn.execute(_ROUNDS, (start, end)).fetchall()
    return [
        RoundFacts(str(t), str(g), str(d) if d is not None else NO_DEALER, bool(v), tuple(k))
        for t, g, d, v, k in rows
    ]


def summarise(start: datetime, end: datetime, rounds: Iterable[RoundFacts]) -> Report:
    """Count `rounds` per table and per dealer."""
    tables: dict[str, Line] = {}
    dealers: dict[str, Line] = {}
    kinds: set[str] = set()
    for facts in rounds:
        kinds.update(facts.incidents)
        for lines, key in ((tables, facts.table), (dealers, facts.dealer)):
            line = lines.setdefault(key, Line(key))
            line.rounds += 1
            line.voids += facts.voided
            line.incidents.update(facts.incidents)
    return Report(
        start,
        end,
        [tables[k] for k in sorted(tables)],
        [dealers[k] for k in sorted(dealers)],
        sorted(kinds),
    )
