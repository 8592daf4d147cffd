"""`ProgressReport`: how long work shows it is moving, on a terminal or in a log.

On a terminal it is a tqdm bar (rate and time left included). Anywhere else (a CI log, a
systemd journal, a pipe) a bar is noise made of carriage returns, and silence for minutes looks
like a hang: there it writes one plain line every `every` seconds, and one when the work ends.
It is a `studio.ranker.Progress` callback: `report(done, total)`.
"""

from __future__ import annotations

import sys
import time
from typing import Never, TextIO

from studio.closing import Closing

LINE_EVERY = 5.0
"""Seconds between two progress lines when the stream is not a terminal."""


class ProgressReport(Closing):
    """Progress of one piece of work called `label`, counted in `unit`, on `stream`.

    `stream` defaults to stderr and `every` to `LINE_EVERY` seconds.

    Use it as a context manager (or call `close()`, idempotent) so the last state is shown.
    """

    def __init__(
        self,
        label: str,
        *,
        unit: str = "it",
        stream: TextIO | None = None,
        every: float | None = None,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._label = label
        self._unit = unit
        self._every = LINE_EVERY if every is None else every
        self._done = 0
        self._total = 0
        self._last_line: float | None = None
        self._closed = False
        self._started = time.monotonic()
        if self._stream.isatty():
            # tqdm costs a tenth of a second to import: only a terminal pays it.
            from tqdm import tqdm

            self._bar: tqdm[Never] | None = tqdm(
                desc=label, unit=unit, file=self._stream, dynamic_ncols=True, leave=True
            )
        else:
            self._bar = None

    def __call__(self, done: int, total: int) -> None:
        """Show that `done` of `total` units are finished."""
        self._done, self._total = done, total
        if self._bar is not None:
            if self._bar.total != total:
                self._bar.total = total
            self._bar.update(done - self._bar.n)
            return
        now = time.monotonic()
        if self._last_line is None:
            self._last_line = now  # the first line comes `every` seconds in: quick work is quiet
        elif now - self._last_line >= self._every:
            self._last_line = now
            self._line()

    def _line(self) -> None:
        percent = f" ({100 * self._done // self._total}%)" if self._total > 0 else ""
        elapsed = time.monotonic() - self._started
        self._stream.write(
            f"{self._label}: {self._done}/{self._total} {self._unit}{percent}, {elapsed:.0f} s\n"
        )
        self._stream.flush()

    def close(self) -> None:
        """Show the final state (a line, off a terminal, if any line was written); idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif self._last_line is not None and time.monotonic() - self._started >= self._every:
            self._line()


class StageReport(Closing):
    """Progress of work done in named stages, each shown as its own `ProgressReport`.

    `report(stage, done, total)`: a new stage closes the previous stage's report (its last state
    stays on screen) and opens "`label`: `stage`", counted in `units[stage]` ("it" if absent).
    `stream` and `every` are as for `ProgressReport`. Use it as a context manager (or call
    `close()`, idempotent).
    """

    def __init__(
        self,
        label: str,
        *,
        units: dict[str, str] | None = None,
        stream: TextIO | None = None,
        every: float | None = None,
    ) -> None:
        self._label = label
        self._units = dict(units or {})
        self._stream = stream
        self._every = every
        self._stage: str | None = None
        self._report: ProgressReport | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        """Show that `done` of `total` units of `stage` are finished."""
        if stage != self._stage or self._report is None:
            self.close()
            self._stage = stage
            self._report = ProgressReport(
                f"{self._label}: {stage}",
                unit=self._units.get(stage, "it"),
                stream=self._stream,
                every=self._every,
            )
        self._report(done, total)

    def close(self) -> None:
        """Close the current stage's report, if any; idempotent."""
        if self._report is not None:
            self._report.close()
            self._report = None
