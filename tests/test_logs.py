"""Log lines: one per record, plain or JSON, with the table, game number and sequence on each."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_e2e_support import table_rig

from studio.cli import main
from studio.logs import set_log_context


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        handler.close()
    root.handlers[:] = handlers
    root.setLevel(level)
    set_log_context(None)


def _fail_with_a_traceback() -> None:
    try:
        raise ValueError("bad frame\nsecond line")
    except ValueError:
        logging.getLogger("studio.test").exception("decoding failed")


@pytest.mark.parametrize("where", ["before", "after"])
def test_json_lines_carry_the_context_and_the_traceback(tmp_path: Path, where: str) -> None:
    log = tmp_path / "log.jsonl"
    options = ["--log-format", "json", "--log-file", str(log)]
    argv = [*options, "schema", "--out", str(tmp_path / "s.json")]
    if where == "after":
        argv = ["schema", "--out", str(tmp_path / "s.json"), *options]
    assert main(argv) == 0
    set_log_context("T07", "T07-20260101-000000", 12)
    logging.getLogger("studio.test").warning("shoe %s", "silent")
    _fail_with_a_traceback()
    lines = log.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 2
    first, second = records
    assert (first["table"], first["game_number"], first["seq"]) == (
        "T07",
        "T07-20260101-000000",
        12,
    )
    assert (first["level"], first["logger"], first["message"]) == (
        "WARNING",
        "studio.test",
        "shoe silent",
    )
    assert "ValueError: bad frame" in second["exc_info"]


def test_plain_lines_fold_a_traceback_onto_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", "--out", str(tmp_path / "s.json")]) == 0
    set_log_context("T07", None, 3)
    _fail_with_a_traceback()
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert " ERROR studio.test [T07 #3]: decoding failed | Traceback" in err
    assert "ValueError: bad frame | second line" in err


def test_a_log_file_that_cannot_be_opened_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-dir" / "log"
    assert main(["--log-file", str(missing), "schema"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_running_table_logs_json_with_its_round_and_sequence(tmp_path: Path) -> None:
    log = tmp_path / "table.jsonl"
    with table_rig(tmp_path, extra='[camera]\nbackend = "none"\n') as rig:
        rig.start("-v", "--log-format", "json", "--log-file", str(log))
        deadline = time.monotonic() + 30
        in_round: list[dict[str, object]] = []
        while time.monotonic() < deadline and not in_round:
            records = [json.loads(line) for line in log.read_text().splitlines()]
            in_round = [r for r in records if r["game_number"] and "card_drawn" in str(r)]
            time.sleep(0.2)
        assert in_round, records[-5:]
        assert all(r["table"] == "T01" for r in records)
        assert all(isinstance(r["seq"], int) for r in in_round)
