"""The rows `studio rtp` prints: computed in report order with progress, as JSON or a table.

`SOURCES` names what is computed (a label for the progress bar and the rows' source, from
`studio.returns`); `compute_rows` runs them, `rows_json` and `format_table` present them.
Apart from `studio.commands.rtp`, so that `studio rtp --help` loads none of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from studio.commands.progress import ProgressReport
from studio.games import GAMES
from studio.ranker import Progress
from studio.returns.caribbean import caribbean_rows
from studio.returns.holdem import holdem_rows
from studio.returns.report import ReturnRow
from studio.returns.side_bets import side_bet_rows

RowSource = Callable[[Progress | None], list[ReturnRow]]

SOURCES: tuple[tuple[str, RowSource], ...] = (
    ("Caribbean Stud main game", caribbean_rows),
    ("side bets", side_bet_rows),
    ("Ultimate Hold'em main game", holdem_rows),
)
"""What `studio rtp` computes, in order: a label for the progress bar and the rows' source."""

_BETS = ("main", "bonus", "jackpot", "trips")
_COLUMNS = ("game", "variant", "bet", "basis", "computed", "published", "difference", "method")


def compute_rows(stream: TextIO, *, every: float | None = None) -> list[ReturnRow]:
    """Every source's rows in report order, with progress on `stream` (see `ProgressReport`)."""
    rows: list[ReturnRow] = []
    for label, source in SOURCES:
        with ProgressReport(f"rtp: {label}", unit="steps", stream=stream, every=every) as report:
            rows.extend(source(report))
    return sorted(rows, key=_report_order)


def _report_order(row: ReturnRow) -> tuple[int, int]:
    """Rows sort by game (registry order), then main game before side bets."""
    game = GAMES.index(row.game) if row.game in GAMES else len(GAMES)
    bet = _BETS.index(row.bet) if row.bet in _BETS else len(_BETS)
    return game, bet


def rows_json(rows: list[ReturnRow]) -> list[dict[str, Any]]:
    """The JSON objects of `--json`: each row's fields plus its `difference`."""
    return [row.to_json() | {"difference": row.difference} for row in rows]


def format_table(rows: list[ReturnRow]) -> str:
    """The plain report: one aligned line per row, its note indented beneath it."""
    cells = [_COLUMNS] + [_cells(row) for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(_COLUMNS))]
    lines = []
    for line, row in zip(cells, [None, *rows], strict=True):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)))
        if row is not None and row.note:
            lines.append(f"    {row.note}")
    return "\n".join(line.rstrip() for line in lines)


def _cells(row: ReturnRow) -> tuple[str, ...]:
    """One row's cells: percentages to three places, the difference in percentage points."""
    published = "-" if row.published is None else f"{row.published:.2%}"
    difference = "-" if row.difference is None else f"{100 * row.difference:+.3f} pp"
    method = row.method
    if row.ci95 is not None:
        method += f" (95% CI {row.ci95[0]:.3%} to {row.ci95[1]:.3%})"
    return (
        row.game,
        row.variant,
        row.bet,
        row.basis,
        f"{row.computed:.3%}",
        published,
        difference,
        method,
    )
