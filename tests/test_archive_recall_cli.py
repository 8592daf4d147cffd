"""`studio recall --archive`: the same rounds, printed the same way, as `--journal` prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import psycopg
import pytest
from postgres_support import Cluster
from test_recall import GAME, ROUND, _event

from studio.archive.migrate import migrate
from studio.archive.store import store
from studio.bus.wire import encode_event
from studio.cli import main
from studio.journal import Journal
from studio.journal.chain import canonical_json
from studio.messages import Envelope


@pytest.fixture
def both(cluster: Cluster, tmp_path: Path) -> tuple[Path, str]:
    events = [_event(i + 1, t, cast(dict[str, Any], b), a) for i, (t, b, a) in enumerate(ROUND)]
    path = tmp_path / "table.journal"
    with Journal(path) as journal:
        journal.append_events(events)
    with psycopg.connect(cluster.dsn, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        migrate(conn)
        # The stream carries the journal's canonical bytes (the runtime's encode_event).
        store(conn, [encode_event(Envelope.model_validate(e), canonical_json(e)) for e in events])
    return path, cluster.dsn


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_archive_recall_prints_what_the_journal_recall_prints(
    both: tuple[Path, str], capsys: pytest.CaptureFixture[str], json_flag: list[str]
) -> None:
    path, dsn = both
    assert main(["recall", "--journal", str(path), GAME, *json_flag]) == 0
    from_journal = capsys.readouterr().out
    assert main(["recall", "--archive", dsn, GAME, *json_flag]) == 0
    assert capsys.readouterr().out == from_journal
    assert main(["recall", "--archive", dsn, "--table", "T01", "--last", "1", *json_flag]) == 0
    assert capsys.readouterr().out == from_journal


def test_archive_recall_errors_are_one_line(
    both: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, dsn = both
    assert main(["recall", "--archive", dsn, "T01-nope"]) == 2
    assert "no round 'T01-nope' in the archive" in capsys.readouterr().err
    assert main(["recall", "--archive", dsn, "--last", "2"]) == 2
    assert "needs --table" in capsys.readouterr().err
