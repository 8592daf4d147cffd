"""`studio rtp`: the report's table, its JSON contract and the progress bar."""

from __future__ import annotations

import io
import json
import time

import pytest

from studio import cli
from studio.commands import rtp_rows as rtp
from studio.ranker import Progress
from studio.returns.caribbean import caribbean_rows
from studio.returns.holdem import holdem_rows
from studio.returns.report import ReturnRow
from studio.returns.side_bets import side_bet_rows

JSON_KEYS = {"game", "variant", "bet", "basis", "computed", "published", "method", "ci95"}


def _fake_rows(progress: Progress | None) -> list[ReturnRow]:
    if progress is not None:
        for done in range(0, 101, 25):
            progress(done, 100)
    return [
        ReturnRow("ultimate-holdem", "live", "main", "ante", 0.9781, 0.9782, "simulation",
                  ci95=(0.9771, 0.9791)),
        ReturnRow("caribbean-stud", "live", "bonus", "bet", 0.91439, 0.9144, "exact", note="n"),
        ReturnRow("caribbean-stud", "classic", "main", "ante", 0.94776, None, "exact"),
    ]  # fmt: skip


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def fake_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rtp, "SOURCES", (("fake", _fake_rows),))


@pytest.mark.usefixtures("fake_sources")
def test_json_lists_rows_as_fractions_with_every_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rtp", "--json"]) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    order = [(r["game"], r["bet"]) for r in rows]
    assert order == [
        ("caribbean-stud", "main"), ("caribbean-stud", "bonus"), ("ultimate-holdem", "main")
    ]  # fmt: skip
    assert all(set(r) >= JSON_KEYS for r in rows)
    bonus = rows[1]
    assert bonus["computed"] == 0.91439
    assert bonus["difference"] == pytest.approx(0.91439 - 0.9144)
    assert rows[0]["published"] is None and rows[0]["difference"] is None
    assert rows[2]["ci95"] == [0.9771, 0.9791]
    assert err == ""  # captured stderr is no terminal: no progress bar


@pytest.mark.usefixtures("fake_sources")
def test_table_shows_percentages_and_differences(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rtp"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == list(rtp._COLUMNS)
    bonus = next(line for line in lines if "bonus" in line)
    assert "91.439%" in bonus and "91.44%" in bonus and "-0.001 pp" in bonus
    classic = next(line for line in lines if "classic" in line)
    assert classic.split()[5:7] == ["-", "-"]
    assert "95% CI 97.710% to 97.910%" in out


def test_progress_bar_is_drawn_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rtp, "SOURCES", (("fake rows", _fake_rows),))
    terminal = _Terminal()
    rtp.compute_rows(terminal)
    drawn = terminal.getvalue()
    assert "rtp: fake rows" in drawn and "\r" in drawn
    assert "100%" in drawn and drawn.endswith("\n")
    pipe = io.StringIO()
    rtp.compute_rows(pipe)
    assert pipe.getvalue() == ""  # quick work says nothing off a terminal


def _slow_rows(progress: Progress | None) -> list[ReturnRow]:
    for done in range(1, 6):
        time.sleep(0.05)
        if progress is not None:
            progress(done, 5)
    return []


def test_long_work_writes_a_line_every_few_seconds_off_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rtp, "SOURCES", (("slow rows", _slow_rows),))
    pipe = io.StringIO()
    rtp.compute_rows(pipe, every=0.04)
    lines = pipe.getvalue().splitlines()
    assert len(lines) >= 2, lines
    assert all(line.startswith("rtp: slow rows: ") and "\r" not in line for line in lines)
    assert lines[-1].startswith("rtp: slow rows: 5/5 steps (100%)")


def test_every_shipped_source_is_listed() -> None:
    sources = [source for _, source in rtp.SOURCES]
    assert caribbean_rows in sources and side_bet_rows in sources and holdem_rows in sources


@pytest.mark.slow
def test_real_report_reproduces_the_published_caribbean_figures(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        rtp, "SOURCES", tuple(s for s in rtp.SOURCES if s[1] in (caribbean_rows, side_bet_rows))
    )
    assert cli.main(["rtp", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert all(set(r) >= JSON_KEYS and r["method"] == "exact" for r in rows)
    published = [r for r in rows if r["published"] is not None and r["bet"] != "jackpot"]
    assert len(published) == 6  # main: live ante, live total, classic total; 2 bonus; trips
    assert all(abs(r["difference"]) < 1e-4 for r in published)
