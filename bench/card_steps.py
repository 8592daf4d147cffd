"""Where a card's time goes inside the table: each step of its way, timed in-process, per card.

Runs `studio run`'s `TableRuntime` in this process under `bench/card_latency.py`'s table (the
simulated dealer drawing a card about every 42 ms into a simulated shoe on a real pty, read by
the loop), with the journal on a memory file system: the disk's fsync is the floor's part, not
the table's, so it is left out here and the SQLite statements are shown apart. Each step of a
card's way, from the loop finding the line readable to the last book-keeping after the send, is
timed by wrapping the function that does it (exclusive time: a step's callees are their own
steps), on the loop thread's CPU clock and on the wall clock; only callbacks that applied a
`card_drawn` count. "Before the send" is everything up to the public stream's `card_dealt`
send, the Python that lies on a card's latency beside the floor.

    python bench/card_steps.py [--cards N] [--profile [TOP] | --calls | --lean]
                               [--alternate [halved|prepared]]

`--profile` runs cProfile over the same callbacks instead of the step clocks (a profiler slows
what it watches, so the two are never on together) and prints the functions taking the most
time of their own per card, and Python function calls per card (a deterministic figure: the
same code path makes the same calls, whatever the machine's load). `--lean` wraps only the
callback, the input's making (to tell a card) and the sends: the way to the send timed whole,
with three wrappers' cost in it instead of some thirty. `--alternate [halved|prepared]` (best
with `--lean`) has every other callback take an earlier form of part of the way
(`bench/main_path.py`: `halved`, main's framing, decision and append before their calls were
halved; `prepared`, the controller before the prepared next card) and prints the way to the send
of each form's cards: one process, so both forms meet the same load and the same cold caches.
`--calls` counts, for each card, the Python calls and the calls of C functions from the line's
callback to the public `card_dealt` send, and to the input's COMMIT (the last SQLite statement
before the send: what lies before it is on a card's latency beside the floor's commit), and
prints the median card's. The wrapped names must exist in the tree imported (PYTHONPATH); a
step whose function is missing is listed as absent.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import inspect
import io
import json
import math
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from card_latency import CARDS_PER_ROUND, TABLE, memory_dir

from studio.config import load_config
from studio.runtime import TableRuntime

STEPS: list[tuple[str, str, str]] = [
    # (module, attribute path, step): in the order a card meets them.
    ("drivers.shoe.watched_shoe", "WatchedSerialShoe._readable", "line read, frame decoded"),
    ("studio.runtime.table", "TableRuntime.on_delivery", "delivery taken (identity, gate)"),
    ("studio.runtime.table", "to_input", "input made (to_input)"),
    ("studio.runtime.safeguards", "Safeguards.before_input", "clock check"),
    ("studio.runtime.table", "TableRuntime.submit", "submit"),
    ("studio.runtime.table", "TableRuntime._submit", "submit"),
    ("studio.journal.recorder", "RecordedTable.step", "step"),
    ("studio.journal.recorder", "RecordedTable.decide", "step"),
    ("studio.journal.recorder", "RecordedTable.record", "step"),
    ("studio.journal.recorder", "input_json", "input's JSON form"),
    ("studio.journal.recorder", "input_text", "input's JSON form"),
    ("studio.runtime.metrics", "_TimedController.handle", "controller"),
    ("studio.controller.table", "TableController.handle", "controller"),
    ("studio.journal.recorder", "event_json", "events' JSON"),
    ("studio.journal.store", "Journal.append_input", "journal: chain and hashes"),
    ("studio.journal.store", "Journal._event_records", "journal: chain and hashes"),
    ("studio.journal.store", "Journal._chain", "journal: chain and hashes"),
    ("studio.journal.store", "Journal._write", "journal: chain and hashes"),
    ("studio.journal.store", "Journal._write_records", "SQLite (floor's part)"),
    ("studio.runtime.table", "TableRuntime._applied", "applied (routing)"),
    ("studio.runtime.table", "TableRuntime._publish", "applied (routing)"),
    ("studio.runtime.table", "TableRuntime._frame", "wire events"),
    ("studio.runtime.table", "encode_event", "wire events"),
    ("studio.bus.publisher", "EventPublisher.publish_all", "publisher checks"),
    ("studio.bus.publisher", "EventPublisher.frame", "publisher checks"),
    ("studio.bus.publisher", "EventPublisher._frame_here", "publisher checks"),
    ("studio.bus.publisher", "EventPublisher.send_framed", "publisher checks"),
    ("studio.bus.publisher", "EventPublisher._send", "publisher checks"),
    ("studio.bus.publisher", "EventPublisher._send_frames", "publisher checks"),
    ("studio.bus.publisher", "EventPublisher._send_on", "send"),
    ("studio.bus.publisher", "EventPublisher._take_subscriptions", "after: subscriptions"),
    ("studio.runtime.safeguards", "Safeguards.stored", "after: safeguards"),
    ("studio.runtime.safeguards", "Safeguards.on_event", "after: listeners"),
    ("studio.runtime.dealer", "SimulatedDealer.on_event", "after: listeners"),
    ("studio.runtime.metrics", "TableMetrics.on_event", "after: listeners"),
    ("studio.runtime.metrics", "TableMetrics.applied", "after: metrics"),
    ("studio.runtime.metrics", "TableMetrics.stage", "after: metrics"),
    ("studio.runtime.metrics", "TableMetrics.view", "after: metrics"),
    ("studio.runtime.metrics", "TableMetrics.subscribers", "after: metrics"),
    ("studio.controller.table", "TableController.view", "after: TableView"),
    ("studio.runtime.table", "set_log_context", "after: log context"),
    ("studio.runtime.table", "TableRuntime._arm_clock", "after: clock armed"),
    ("studio.runtime.devices", "ShoeDevice.commit", "after: shoe acknowledged"),
    ("studio.controller.table", "TableController.prepare", "after: next card prepared"),
]
WINDOW = "line read, frame decoded"
"""The step whose call is one callback of the loop: a card's whole way when it applies one."""
SEND = "send"


class StepClock:
    """Exclusive time per step, on the CPU clock of the thread and the wall clock, per callback."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.mark = (0, 0)
        self.current: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.card = False
        self.before_send: tuple[int, int] | None = None
        self.spent = (0, 0)
        self.cards: list[dict[str, list[int]]] = []
        self.before: list[tuple[int, int]] = []

    def _charge(self) -> None:
        now = (time.thread_time_ns(), time.perf_counter_ns())
        if self.stack:
            cell = self.current[self.stack[-1]]
            cell[0] += now[0] - self.mark[0]
            cell[1] += now[1] - self.mark[1]
            cpu, wall = self.spent
            self.spent = (cpu + now[0] - self.mark[0], wall + now[1] - self.mark[1])
        self.mark = (time.thread_time_ns(), time.perf_counter_ns())

    def enter(self, step: str) -> None:
        if not self.stack and step != WINDOW:
            return
        if not self.stack:
            self.current = defaultdict(lambda: [0, 0])
            self.card, self.before_send, self.spent = False, None, (0, 0)
        self._charge()
        self.stack.append(step)

    def leave(self, step: str, result: Any) -> None:
        if not self.stack:
            return
        self._charge()
        self.stack.pop()
        if step == "input made (to_input)" and type(result).__name__ == "CardDrawn":
            self.card = True
        if step == SEND and self.before_send is None and self.card:
            self.before_send = self.spent
        if not self.stack and self.card:
            self.cards.append(dict(self.current))
            self.before.append(self.before_send or self.spent)

    def wrap(self, owner: Any, attr: str, step: str) -> None:
        static = isinstance(inspect.getattr_static(owner, attr), staticmethod)
        original: Callable[..., Any] = getattr(owner, attr)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            self.enter(step)
            result = None
            try:
                result = original(*args, **kwargs)
                return result
            finally:
                self.leave(step, result)

        setattr(owner, attr, staticmethod(timed) if static else timed)


class CallbackProfile:
    """cProfile over the loop callbacks that applied a card (`--profile`)."""

    def __init__(self) -> None:
        self.profile = cProfile.Profile()
        self.cards = 0
        self.depth = 0
        self.card = False

    def wrap_window(self, owner: Any, attr: str) -> None:
        original: Callable[..., Any] = getattr(owner, attr)

        @functools.wraps(original)
        def profiled(*args: Any, **kwargs: Any) -> Any:
            # Every read of the line is profiled (a frame that is not a card is rare: the
            # shoe's status), and the calls are divided by the cards applied.
            self.card = False
            self.profile.enable()
            try:
                return original(*args, **kwargs)
            finally:
                self.profile.disable()
                self.cards += self.card

        setattr(owner, attr, profiled)

    def wrap_marker(self, owner: Any, attr: str) -> None:
        original: Callable[..., Any] = getattr(owner, attr)

        @functools.wraps(original)
        def marked(*args: Any, **kwargs: Any) -> Any:
            result = original(*args, **kwargs)
            if type(result).__name__ == "CardDrawn":
                self.card = True
            return result

        setattr(owner, attr, marked)


class CallCounter:
    """Python and C calls from the line's callback to the public `card_dealt` send (`--calls`).

    Counted with `sys.setprofile` on the loop's thread, for every card: the same code path makes
    the same calls, so the median card's count is a figure no machine's load moves.
    """

    def __init__(self) -> None:
        self.python = 0
        self.c = 0
        self.counting = False
        self.cards: list[tuple[int, int]] = []
        self.commit: tuple[int, int] | None = None
        self.commits: list[tuple[int, int]] = []

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            self.python += 1
        elif event == "c_call":
            self.c += 1
            if getattr(arg, "__qualname__", "") == "Connection.execute":
                # The last statement before the send is the input's COMMIT.
                self.commit = (self.python, self.c)

    def wrap(self, window: tuple[Any, str], send: tuple[Any, str]) -> None:
        read: Callable[..., Any] = getattr(*window)
        sent: Callable[..., Any] = getattr(*send)

        @functools.wraps(read)
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.python = self.c = 0
            self.commit = None
            self.counting = True
            sys.setprofile(self._profile)
            try:
                return read(*args, **kwargs)
            finally:
                sys.setprofile(None)
                self.counting = False

        @functools.wraps(sent)
        def sending(publisher: Any, stream: str, what: Any, *args: Any) -> Any:
            # `what` is the event's frames (its topic first), or in older trees its WireEvent.
            topic = what[0] if isinstance(what, list) else what.envelope.type.encode()
            if self.counting and stream == "public" and topic.endswith(b"card_dealt"):
                sys.setprofile(None)
                self.counting = False
                self.cards.append((self.python, self.c))
                self.commits.append(self.commit or (0, 0))
            return sent(publisher, stream, what, *args)

        setattr(*window, counted)
        setattr(*send, sending)


def resolve(module: str, path: str) -> tuple[Any, str] | None:
    """The object holding the last name of `path` in `module`, and that name (None if absent)."""
    owner: Any = __import__(module, fromlist=["_"])
    *parents, attr = path.split(".")
    for name in parents:
        owner = getattr(owner, name, None)
        if owner is None:
            return None
    return (owner, attr) if hasattr(owner, attr) else None


def run_table(cards: int) -> None:
    rounds = math.ceil(cards / CARDS_PER_ROUND)
    shm = memory_dir()
    with tempfile.TemporaryDirectory(prefix="card-steps-", dir=shm) as tmp:
        root = Path(tmp)
        (root / "logs").mkdir()
        (root / "t.toml").write_text(TABLE.format(root=root, durable="false"))
        os.environ["XDG_DATA_HOME"] = str(root / "data")
        os.environ["STUDIO_KEYS_DIR"] = str(root / "keys")
        config = load_config(root / "t.toml")
        asyncio.run(TableRuntime(config, rounds=rounds, announce=False).run())


def us(ns: float) -> float:
    return round(ns / 1000, 1)


def report_steps(clock: StepClock, absent: list[str], as_json: bool) -> None:
    cards = clock.cards[len(clock.cards) // 20 :]  # the first cards warm the imports up
    steps = list(dict.fromkeys(step for _, _, step in STEPS))
    rows = []
    for step in steps:
        cpu = [card.get(step, [0, 0])[0] for card in cards]
        wall = [card.get(step, [0, 0])[1] for card in cards]
        rows.append((step, statistics.fmean(cpu), statistics.median(wall), statistics.fmean(wall)))
    before = clock.before[len(clock.before) // 20 :]
    sqlite_cpu = [card.get("SQLite (floor's part)", [0, 0])[0] for card in cards]
    sqlite_wall = [card.get("SQLite (floor's part)", [0, 0])[1] for card in cards]
    before_cpu = [b[0] - s for b, s in zip(before, sqlite_cpu, strict=True)]
    before_wall = [b[1] - s for b, s in zip(before, sqlite_wall, strict=True)]
    print(f"{len(cards)} cards (the first {len(clock.cards) - len(cards)} left out), µs per card:")
    print(f"  {'step':36} {'CPU mean':>9} {'wall p50':>9} {'wall mean':>9}")
    for step, cpu_mean, wall_p50, wall_mean in rows:
        print(f"  {step:36} {us(cpu_mean):9} {us(wall_p50):9} {us(wall_mean):9}")
    left_out = any(sqlite_cpu)
    label = f"before the send, SQLite {'left out' if left_out else 'in it'}"
    print(
        f"  {label:36} {us(statistics.fmean(before_cpu)):9} "
        f"{us(statistics.median(before_wall)):9} {us(statistics.fmean(before_wall)):9}"
    )
    if absent:
        print(f"  absent in this tree: {', '.join(absent)}")
    if as_json:
        print(
            json.dumps(
                {
                    "cards": len(cards),
                    "steps_us": {s: {"cpu_mean": us(c), "wall_p50": us(w)} for s, c, w, _ in rows},
                    "before_send_cpu_mean_us": us(statistics.fmean(before_cpu)),
                    "before_send_wall_p50_us": us(statistics.median(before_wall)),
                }
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--profile", type=int, nargs="?", const=30, default=None)
    parser.add_argument("--profile-out", type=Path, help="with --profile: save the stats here")
    parser.add_argument("--calls", action="store_true", help="count the calls before the send")
    parser.add_argument(
        "--lean", action="store_true", help="time only the whole way to the send (3 wrappers)"
    )
    parser.add_argument(
        "--alternate",
        nargs="?",
        const="halved",
        choices=["halved", "prepared"],
        help="cards alternate an earlier form of part of the way (bench/main_path.py) and today's",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    absent = []
    if args.profile is not None:
        prof = CallbackProfile()
        window = resolve(*STEPS[0][:2])
        marker = resolve("studio.runtime.table", "to_input")
        assert window is not None and marker is not None
        prof.wrap_window(*window)
        prof.wrap_marker(*marker)
        run_table(args.cards)
        if args.profile_out is not None:
            prof.profile.dump_stats(args.profile_out)
        out = io.StringIO()
        stats = pstats.Stats(prof.profile, stream=out)
        calls = stats.total_calls  # type: ignore[attr-defined]
        print(f"{prof.cards} cards; every loop callback from the line made {calls} calls")
        stats.sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())
        return
    if args.calls:
        counter = CallCounter()
        window = resolve(*STEPS[0][:2])
        send = resolve("studio.bus.publisher", "EventPublisher._send_on")
        assert window is not None and send is not None
        counter.wrap(window, send)
        run_table(args.cards)
        python = statistics.median(p for p, _ in counter.cards)
        c = statistics.median(c for _, c in counter.cards)
        python_commit = statistics.median(p for p, _ in counter.commits)
        c_commit = statistics.median(c for _, c in counter.commits)
        print(
            f"{len(counter.cards)} cards; from the line's callback to the public send, the "
            f"median card made {python:g} Python calls and {c:g} calls of C functions "
            f"({python_commit:g} and {c_commit:g} of them up to its COMMIT)"
        )
        if args.json:
            figures = {"cards": len(counter.cards), "python_calls": python, "c_calls": c}
            commit = {"python_calls_to_commit": python_commit, "c_calls_to_commit": c_commit}
            print(json.dumps(figures | commit))
        return
    clock = StepClock()
    lean = {WINDOW, "input made (to_input)", SEND}
    for module, path, step in STEPS:
        if args.lean and step not in lean:
            continue
        found = resolve(module, path)
        if found is None:
            absent.append(path)
            continue
        clock.wrap(*found, step)
    if args.alternate is not None:
        alternate(clock, args.cards, args.json, args.alternate)
        return
    run_table(args.cards)
    report_steps(clock, absent, args.json)


def alternate(clock: StepClock, cards: int, as_json: bool, parts: str) -> None:
    """Run the table with every other line callback taking the earlier form of `parts`.

    The swap is made outside the step clock (the window's wrapper is inside this one); the way
    to the send of each card is filed under the form it took.
    """
    from main_path import swap

    window = resolve(*STEPS[0][:2])
    assert window is not None
    timed: Callable[..., Any] = getattr(*window)
    forms: list[bool] = []
    state = {"old": False}

    @functools.wraps(timed)
    def swapping(*args: Any, **kwargs: Any) -> Any:
        state["old"] = not state["old"]
        swap(old=state["old"], parts=parts)  # type: ignore[arg-type]
        before = len(clock.before)
        try:
            return timed(*args, **kwargs)
        finally:
            if len(clock.before) > before:
                forms.append(state["old"])

    setattr(*window, swapping)
    run_table(cards)
    skip = len(clock.before) // 20  # the first cards warm the imports up
    figures = {}
    for name, old in (("main", True), ("current", False)):
        spent = [b for b, o in zip(clock.before[skip:], forms[skip:], strict=True) if o is old]
        cpu = statistics.fmean(s[0] for s in spent)
        wall = statistics.median(s[1] for s in spent)
        figures[name] = {"cards": len(spent), "cpu_mean_us": us(cpu), "wall_p50_us": us(wall)}
        print(
            f"{name:8} {len(spent)} cards to the send: CPU mean {us(cpu)}, wall p50 {us(wall)} us"
        )
    if as_json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
