"""End to end: `studio run` processes, real ptys, the real serial driver, SQLite and ZeroMQ.

A simulated shoe on a pty is read through `SerialShoe`; the simulated dealer deals; subscribers,
command clients and `studio watch` talk to the table over ipc sockets, with CURVE keys.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from test_e2e_support import (  # noqa: F401  (the fixture is used by name)
    TableRig,
    body,
    collect,
    rig_fixture,
    table_rig,
)

from studio.bus import CommandClient, KeyPair, ReplayTarget, Subscriber
from studio.bus.wire import WireEvent
from studio.errors import BusTimeoutError
from studio.journal import Journal, verify
from studio.messages import TableSettings

CARDS = {"caribbean-stud": 10, "ultimate-holdem": 9}


def _is(event_type: str, **fields: object) -> Callable[[WireEvent], bool]:
    def match(event: WireEvent) -> bool:
        return event.type == event_type and all(body(event).get(k) == v for k, v in fields.items())

    return match


@pytest.mark.parametrize(
    ("game", "extra"),
    [
        # The embedded default camera is the synthetic one: every card is confirmed from frames.
        ("caribbean-stud", ""),
        ("caribbean-stud", '[shoe]\nprotocol = "barcode"\n'),
        ("ultimate-holdem", '[camera]\nbackend = "none"\n'),
        # The simulated camera confirms every card, so each stage waits for its sightings.
        ("ultimate-holdem", '[camera]\nbackend = "simulated"\n'),
    ],
)
def test_rounds_of_each_game_reach_a_subscriber(tmp_path: Path, game: str, extra: str) -> None:
    with table_rig(tmp_path, game, extra) as rig:
        _two_rounds(rig, game)


def _two_rounds(rig: TableRig, game: str) -> None:
    proc = rig.start("--rounds", "2")
    with rig.subscriber() as sub:
        results = 0

        def two_results(event: WireEvent) -> bool:
            nonlocal results
            results += event.type == "round_result"
            return results == 2

        events = collect(sub, two_results)
    assert proc.wait(timeout=20) == 0
    dealt = [body(e) for e in events if e.type == "card_dealt"]
    assert len(dealt) == 2 * CARDS[game]
    # Face-down cards travel without their value; revealed ones come with it later.
    assert all((d["card"] is None) == (d["face"] == "down") for d in dealt)
    assert {e.audience for e in events} == {"public"}
    assert [e.seq for e in events] == sorted({e.seq for e in events})
    with Journal(rig.journal, readonly=True) as journal:
        report = verify(journal)
        assert report.ok and report.rounds == 2
        assert TableSettings.model_validate_json(journal.meta("settings") or "").game == game
    assert not list((rig.root / "data" / "studio" / "run").glob("*.json"))


def test_commands_keys_and_a_late_subscriber(rig: TableRig) -> None:
    rig.start()
    dealer = rig.add_key("dealer-1", "dealer")
    server = rig.server_key()
    with rig.subscriber("shift-manager", restricted=True) as sub:
        collect(sub, _is("card_dealt"))
        with CommandClient(rig.endpoint("cmd"), dealer, server) as client:
            assert client.send("call_manager").status == "accepted"
            collect(sub, _is("round_paused", kind="manager_called"))
            refused = client.send("void", {"note": "dealer tries"})
        assert (refused.status, refused.reason) == ("refused", "role dealer may not void")
        # The refused command is on record with its actor, not just answered.
        collect(sub, _is("command_rejected", actor="dealer-1", command="void"))
        with CommandClient(rig.endpoint("cmd"), rig.key("shift-manager"), server) as client:
            assert client.send("void", {"note": "misdeal"}).status == "accepted"
        seen = collect(sub, _is("round_voided"))
        # The note is on record for the restricted stream only; the public reason is generic.
        assert any(_is("command_accepted", command="void", note="misdeal")(e) for e in seen)
        assert body(seen[-1])["reason"] == "voided by the shift manager"
        collect(sub, _is("round_result"))
        last = sub.positions["T01"]

    stranger = KeyPair.generate()
    with (
        CommandClient(rig.endpoint("cmd"), stranger, server, timeout=1.0) as client,
        pytest.raises(BusTimeoutError),
    ):
        client.send("start_round")
    with pytest.raises(BusTimeoutError):
        Subscriber(
            rig.endpoint("res"),
            {"T01": ReplayTarget(rig.endpoint("rep"), server)},
            audience="restricted",
            client_keys=stranger,
            stream_server_key=server,
            replay_timeout=1.0,
        )

    with rig.subscriber("shift-manager", restricted=True) as late:
        caught = collect(late, lambda e: e.seq >= last)
        assert [e.seq for e in caught] == list(range(1, last + 1))
        assert late.replayed >= last - 5


def test_sigkill_mid_round_then_restart_resumes_the_sequence(rig: TableRig) -> None:
    first = rig.start()
    seen: list[WireEvent] = []
    with rig.subscriber("shift-manager", restricted=True) as sub:
        collect(sub, _is("round_result"), into=seen)
        collect(sub, _is("card_dealt", position="player-3"), into=seen)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        rig.start()
        paused = collect(sub, _is("round_paused", kind="controller_restarted"), into=seen)[-1]
        restarted_round = paused.envelope.game_number
        assert f"PAUSED      round {restarted_round} (controller_restarted)" in rig.banner
        with CommandClient(rig.endpoint("cmd"), rig.key("shift-manager"), rig.server_key()) as c:
            assert c.send("void", {"note": "restart"}).status == "accepted"
        collect(sub, _is("round_voided"), into=seen)
        collect(sub, _is("round_result"), into=seen)
    seqs = [e.seq for e in seen]
    assert seqs == list(range(1, len(seqs) + 1)), "a gap or a duplicate across the restart"
    assert (
        restarted_round
        == next(e for e in reversed(seen) if e.type == "round_voided").envelope.game_number
    )
    with Journal(rig.journal, readonly=True) as journal:
        assert verify(journal).ok


def test_sigterm_drains_everything_to_the_streams_and_watch_follows(rig: TableRig) -> None:
    proc = rig.start()
    watch = subprocess.Popen(
        [sys.executable, "-m", "studio.cli", "watch", "--json", "--count", "15", "--timeout", "10"],
        env=rig.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = watch.communicate(timeout=30)
    finally:
        if watch.poll() is None:
            watch.kill()
            watch.communicate()
    assert watch.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 15 and {line["audience"] for line in lines} == {"public"}
    assert {"type", "game_number", "audience", "body", "seq"} <= set(lines[0])
    with rig.subscriber("shift-manager", restricted=True) as sub:
        # The start-up catch-up may hand over a card_dealt before the stream's subscription is
        # live; only a message heard on the stream proves it is, and SIGTERM must come after.
        started = sub.last_heard
        is_card = _is("card_dealt")
        collect(sub, lambda event: is_card(event) and sub.last_heard > started)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
        time.sleep(0.2)
        with Journal(rig.journal, readonly=True) as journal:
            last = journal.last_event_seq
            assert verify(journal).ok
        # Everything on record reached the stream before the table went: no replay is needed.
        replayed = sub.replayed
        while sub.positions["T01"] < last:
            assert sub.receive(timeout=2.0) is not None
        assert sub.replayed == replayed


def test_a_second_table_on_the_same_journal_is_refused_and_the_first_runs_on(
    rig: TableRig,
) -> None:
    first = rig.start()
    second = subprocess.run(
        [sys.executable, "-m", "studio.cli", "run", "--config", str(rig.config)],
        env=rig.env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert second.returncode == 2
    assert "in use by another running table" in second.stderr
    assert len(second.stderr.strip().splitlines()) == 1
    with rig.subscriber() as sub:
        collect(sub, _is("round_result"))
    assert first.poll() is None
    first.send_signal(signal.SIGTERM)
    assert first.wait(timeout=15) == 0
    with Journal(rig.journal, readonly=True) as journal:
        assert verify(journal).ok
