"""What each screen is sent, built from a table's views: pure, typed, and safe by construction.

`DealerDisplay` is built from the *public* view only (`TableView.public()` is applied again
here, so even a restricted view passed by mistake loses every face-down card's value): the dealer
display never receives a value the public stream does not show. `TableSummary` is one line of
the shift manager's overview; `TableDetail` a table's page, restricted for a role that may read
restricted events and public otherwise (only a restricted page points at the camera's crop of an
incident's zone). Incidents are put into plain words here, and the actions
that clear a pause are read from the view's typed resume blockers (each lists the commands that
clear it).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from studio.console.history import RoundRecord, ShiftCounts
from studio.console.link import TableState
from studio.messages.view import IncidentView, TableView

INCIDENT_WORDS: dict[str, str] = {
    "duplicate_card": "the same card was drawn twice",
    "card_out_of_turn": "a card was drawn when none was expected",
    "unreadable_card": "the shoe could not read a card",
    "camera_mismatch": "the camera saw a different card from the one the shoe read",
    "device_fault": "a device reported a fault",
    "device_silent": "a device stopped answering",
    "manager_called": "the shift manager was called to the table",
    "deal_timeout": "no card came in time",
    "controller_restarted": "the controller restarted in the middle of the round",
    "deck_reused": "the round has no freshly shuffled deck",
    "journal_unwritable": "the table's journal cannot be written",
}
"""Each incident kind in words, as the dealer and the manager read it."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CardSlot(_Model):
    """One position on the dealer display: its card (None: face down or not yet known)."""

    position: str
    code: str | None
    face_up: bool
    confirmed: bool
    pending: bool


class Countdown(_Model):
    """A timer on screen: what it is and how many seconds were left when this was sent."""

    label: str
    seconds: float


class DealerDisplay(_Model):
    """The dealer display of one table (public view only)."""

    table: str
    reachable: bool
    phase: str
    game_number: str | None
    light: str | None
    light_countdown: Countdown | None
    window: str | None
    window_options: tuple[str, ...]
    window_automatic: str | None
    window_countdown: Countdown | None
    deal_next: str | None
    cards: tuple[CardSlot, ...]
    paused: bool
    stop_reason: str


class TableSummary(_Model):
    """One table on the shift manager's overview."""

    table: str
    reachable: bool
    paused: bool
    state: str
    phase: str
    game_number: str | None
    incident: str
    faults: tuple[str, ...]
    last_event_age: float | None
    acknowledged: bool


class IncidentDetail(_Model):
    """An incident as the manager's table page shows it."""

    incident: int
    words: str
    kind: str
    expected: str | None
    arrived: tuple[str, ...]
    device: str | None
    raw: str
    raw_text: str
    detail: str
    crop: str | None = None
    """Where the camera's crop of the zone is (restricted pages only; None: no camera image)."""


class TableDetail(_Model):
    """A table's page: the round so far, the incidents, and what clears the pause."""

    table: str
    reachable: bool
    restricted: bool
    paused: bool
    phase: str
    game_number: str | None
    light: str | None
    expecting: str | None
    cards: tuple[CardSlot, ...]
    incidents: tuple[IncidentDetail, ...]
    blockers: tuple[str, ...]
    actions: tuple[str, ...]
    devices: dict[str, str]
    acknowledged: bool


class RecallPage(_Model):
    """The last rounds of a table, oldest first, and the shift's counts by dealer.

    `restricted`: whether the reader may see face-down cards, commands' notes and incidents'
    particulars (else only what the public stream showed).
    """

    table: str
    restricted: bool
    rounds: tuple[RoundRecord, ...]
    counts: dict[str, ShiftCounts]


def incident_words(incident: IncidentView) -> str:
    """The incident in one plain sentence (from public fields only: safe for the dealer)."""
    words = INCIDENT_WORDS.get(incident.kind, incident.kind.replace("_", " "))
    where = f" at {incident.position}" if incident.position else ""
    device = f" ({incident.device})" if incident.device else ""
    return f"{words[0].upper()}{words[1:]}{where}{device}."


def raw_text(raw: str) -> str:
    """A device's raw frame (hex, as incidents carry it) as ASCII, `.` for other bytes."""
    try:
        data = bytes.fromhex(raw)
    except ValueError:
        return ""
    return "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in data)


def _seconds(deadline: datetime | None, remaining: float | None, now: datetime) -> float | None:
    if deadline is not None:
        return max(0.0, (deadline - now).total_seconds())
    return remaining


def _countdown(
    view: TableView, kinds: tuple[str, ...], label: str, now: datetime
) -> Countdown | None:
    for timer in view.timers:
        if timer.kind in kinds:
            seconds = _seconds(timer.deadline, timer.remaining_seconds, now)
            if seconds is not None:
                return Countdown(label=label, seconds=round(seconds, 2))
    return None


def _slots(view: TableView) -> tuple[CardSlot, ...]:
    return tuple(
        CardSlot(
            position=c.position,
            code=c.code,
            face_up=c.face_up,
            confirmed=c.confirmed,
            pending=c.pending,
        )
        for c in view.cards
    )


def dealer_display(
    table: str, view: TableView | None, reachable: bool, now: datetime
) -> DealerDisplay:
    """The dealer display for `view`; face-down values are removed here whatever was passed."""
    if view is None:
        return DealerDisplay(
            table=table,
            reachable=False,
            phase="unknown",
            game_number=None,
            light=None,
            light_countdown=None,
            window=None,
            window_options=(),
            window_automatic=None,
            window_countdown=None,
            deal_next=None,
            cards=(),
            paused=False,
            stop_reason="",
        )
    public = view.public()
    window = public.window
    stop = " ".join(incident_words(i) for i in public.incidents) if public.paused else ""
    return DealerDisplay(
        table=table,
        reachable=reachable,
        phase=public.phase,
        game_number=public.game_number,
        light=public.light,
        light_countdown=_countdown(public, ("yellow", "close"), "betting closes", now),
        window=window.name if window else None,
        window_options=window.options if window else (),
        window_automatic=window.automatic if window else None,
        window_countdown=_countdown(public, ("window",), "decision closes", now),
        deal_next=public.expecting,
        cards=_slots(public),
        paused=public.paused,
        stop_reason=stop or ("The table is paused." if public.paused else ""),
    )


def table_summary(state: TableState, now: datetime, acknowledged: bool) -> TableSummary:
    """The overview line of one table."""
    view = state.restricted or state.public
    if view is None:
        return TableSummary(
            table=state.table,
            reachable=False,
            paused=False,
            state="unreachable",
            phase="unknown",
            game_number=None,
            incident="",
            faults=(),
            last_event_age=None,
            acknowledged=acknowledged,
        )
    faults = tuple(f"{d} {s}" for d, s in sorted(view.devices.items()) if s != "ok")
    if not state.reachable:
        label = "unreachable"
    elif view.paused:
        label = "paused"
    elif faults:
        label = "device fault"
    else:
        label = "running"
    age = (now - state.last_event).total_seconds() if state.last_event else None
    return TableSummary(
        table=state.table,
        reachable=state.reachable,
        paused=view.paused,
        state=label,
        phase=view.phase,
        game_number=view.game_number,
        incident=" ".join(incident_words(i) for i in view.incidents),
        faults=faults,
        last_event_age=None if age is None else round(max(0.0, age), 1),
        acknowledged=acknowledged,
    )


def clearing_actions(view: TableView) -> tuple[str, ...]:
    """The actions that clear the pause, in the order a manager tries them (void clears all)."""
    if not view.paused:
        return ()
    found: list[str] = []
    for blocker in view.blockers:
        found.extend(action for action in blocker.actions if action not in found)
    if not view.resume_blockers:
        found.append("resume")
    found.append("void")
    return tuple(found)


def _crop_url(state: TableState, incident: int) -> str | None:
    crop = state.crops.get(incident)
    if crop is None:
        return None
    # The frame number makes each new picture a new address, so a browser may cache each one.
    return f"/table/{state.table}/crop/{incident}?frame={crop.frame}"


def table_detail(state: TableState, restricted: bool, acknowledged: bool) -> TableDetail:
    """A table's page: restricted (the incident's particulars) or public, as the role allows."""
    view = state.restricted if restricted else state.public
    if view is not None and not restricted:
        view = view.public()
    if view is None:
        return TableDetail(
            table=state.table,
            reachable=False,
            restricted=restricted,
            paused=False,
            phase="unknown",
            game_number=None,
            light=None,
            expecting=None,
            cards=(),
            incidents=(),
            blockers=(),
            actions=(),
            devices={},
            acknowledged=acknowledged,
        )
    return TableDetail(
        table=state.table,
        reachable=state.reachable,
        restricted=restricted,
        paused=view.paused,
        phase=view.phase,
        game_number=view.game_number,
        light=view.light,
        expecting=view.expecting,
        cards=_slots(view),
        incidents=tuple(
            IncidentDetail(
                incident=i.incident,
                words=incident_words(i),
                kind=i.kind,
                expected=i.position,
                arrived=i.cards,
                device=i.device,
                raw=i.raw,
                raw_text=raw_text(i.raw),
                detail=i.detail,
                crop=_crop_url(state, i.incident) if restricted else None,
            )
            for i in view.incidents
        ),
        blockers=view.resume_blockers,
        actions=clearing_actions(view),
        devices=dict(view.devices),
        acknowledged=acknowledged,
    )
