"""Alarms: a new fault goes to the webhook once, a repeat while paused only after the escalation
time, nothing after an acknowledgement, and a fault after a resume is new again. The webhook is
a real HTTP server on loopback; the policy (and the sign-in limiter, the other clock-driven rule)
is fed views and times, also by hypothesis."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from aiohttp import test_utils, web
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.console.alarms import AlarmNotice, AlarmPolicy, WebhookSender
from studio.console.auth import SignInLimiter
from studio.messages.view import IncidentView, TableView

T0 = datetime(2026, 12, 4, 23, 0, tzinfo=UTC)


def _view(paused: bool, *incidents: tuple[int, str, str | None]) -> TableView:
    return TableView(
        table="T01",
        game="caribbean-stud",
        variant=None,
        procedure=None,
        seq=10,
        now=T0,
        phase="dealing",
        game_number="G1",
        light="red",
        cards=(),
        expecting=None,
        rescan_next=None,
        window=None,
        turning=(),
        paused=paused,
        incidents=tuple(
            IncidentView(
                incident=n, kind=kind, position=pos, cards=(), device="shoe", raw="", detail="x"
            )
            for n, kind, pos in incidents
        ),
        resume_blockers=(),
        timers=(),
        devices={"shoe": "ok"},
    )


def _kinds(notices: list[AlarmNotice]) -> list[tuple[int, str]]:
    return [(n.incident, n.notice) for n in notices]


def test_a_fault_is_sent_once_then_escalated_after_the_configured_time() -> None:
    policy = AlarmPolicy(escalate_seconds=60)
    fault = _view(True, (1, "unreadable_card", "player-1"))
    assert _kinds(policy.observe(fault, T0)) == [(1, "new")]
    assert policy.observe(fault, T0 + timedelta(seconds=1)) == []
    # The same fault again (a new incident at the same place) while still paused: not yet.
    again = _view(True, (1, "unreadable_card", "player-1"), (2, "unreadable_card", "player-1"))
    assert policy.observe(again, T0 + timedelta(seconds=30)) == []
    escalated = policy.observe(again, T0 + timedelta(seconds=61))
    assert [n.notice for n in escalated] == ["escalation"]
    assert policy.observe(again, T0 + timedelta(seconds=62)) == []
    # Another kind of fault is new at once.
    other = _view(True, (1, "unreadable_card", "player-1"), (3, "device_fault", None))
    assert _kinds(policy.observe(other, T0 + timedelta(seconds=63))) == [(3, "new")]
    # Acknowledged: no more escalation while the table stays paused.
    policy.acknowledge("T01")
    assert policy.observe(other, T0 + timedelta(seconds=600)) == []
    # Resumed, then the same fault: new again.
    assert policy.observe(_view(False), T0 + timedelta(seconds=601)) == []
    assert _kinds(policy.observe(fault, T0 + timedelta(seconds=602))) == [(1, "new")]


def test_the_webhook_receives_the_notice_as_json_and_a_dead_one_is_reported() -> None:
    received: list[dict[str, Any]] = []

    async def hook(request: web.Request) -> web.Response:
        received.append(await request.json())
        return web.Response(status=204)

    async def scenario() -> None:
        app = web.Application()
        app.router.add_post("/hook", hook)
        server = test_utils.TestServer(app, host="127.0.0.1")
        await server.start_server()
        notice = AlarmPolicy().observe(_view(True, (4, "duplicate_card", "player-2")), T0)[0]
        url = str(server.make_url("/hook"))
        sender = WebhookSender(url, timeout=2)
        try:
            assert await sender.send(notice)
        finally:
            await sender.close()
            await server.close()
        dead = WebhookSender(url, timeout=0.5)  # nothing listens there any more
        try:
            assert not await dead.send(notice)
            assert dead.last_error is not None and "unreachable" in dead.last_error
        finally:
            await dead.close()

    asyncio.run(scenario())
    assert len(received) == 1
    assert received[0]["table"] == "T01"
    assert received[0]["kind"] == "duplicate_card"
    assert received[0]["position"] == "player-2"
    assert received[0]["notice"] == "new"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0, max_value=400),  # seconds since the last step
            st.booleans(),  # paused
            st.sampled_from([(1, "unreadable_card", "player-1"), (2, "device_fault", None)]),
            st.booleans(),  # acknowledged at this step
        ),
        max_size=40,
    )
)
def test_no_fault_is_sent_twice_within_the_escalation_time_of_one_pause(steps: Any) -> None:
    policy = AlarmPolicy(escalate_seconds=60)
    now = T0
    last: dict[tuple[str, str | None], datetime] = {}
    for gap, paused, incident, acknowledge in steps:
        now += timedelta(seconds=gap)
        if not paused:
            last.clear()  # a resume ends the pause: the next fault is new
        if acknowledge:
            policy.acknowledge("T01")
        view = _view(paused, incident) if paused else _view(False)
        for notice in policy.observe(view, now):
            key = (notice.kind, notice.position)
            if notice.notice == "escalation":
                assert key in last and (now - last[key]).total_seconds() >= 60
            else:
                assert key not in last
            last[key] = now


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=120), max_size=60))
def test_sign_in_never_allows_more_than_five_failures_in_five_minutes(gaps: list[float]) -> None:
    limiter = SignInLimiter(attempts=5, window=300)
    now, tried = 0.0, []
    for gap in gaps:
        now += gap
        if limiter.wait(("ip:x",), now) == 0:
            tried.append(now)
            limiter.failed(("ip:x",), now)
    for i, at in enumerate(tried):
        assert sum(1 for t in tried[: i + 1] if at - t < 300) <= 5
