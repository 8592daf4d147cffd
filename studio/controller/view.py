"""What the table is doing now, read from its state: the typed `TableView` and the old dict.

Pure reads: nothing here changes the state.
"""

from __future__ import annotations

from typing import Any

from studio.controller.camera_source import turning
from studio.controller.state import TableState, next_deal, open_window, resume_blockers
from studio.games.model import Face
from studio.messages import from_micros
from studio.messages.view import CardView, IncidentView, TableView, TimerView, WindowView


def table_view(st: TableState) -> TableView:
    """The table now as a frozen `TableView` (restricted: it shows face-down cards)."""
    rnd = st.active
    window = open_window(st.rules, rnd) if rnd is not None else None
    deal = next_deal(st.rules, rnd) if rnd is not None and not st.paused else None
    shown = rnd or st.round
    blockers = tuple(resume_blockers(st)) if st.paused else ()
    timers = [
        TimerView(
            kind=name.kind,
            position=name.subject if name.kind == "confirm" else None,
            device=name.subject if name.kind == "silent" else None,
            deadline=None if st.paused else from_micros(value),
            remaining_seconds=value / 1e6 if st.paused else None,
        )
        for name, value in sorted((st.frozen if st.paused else st.timers).items())
    ]
    return TableView(
        table=st.settings.table,
        game=st.rules.game,
        variant=st.rules.variant,
        procedure=st.rules.options.get("procedure"),
        seq=st.seq,
        now=from_micros(st.now) if st.now is not None else None,
        phase=rnd.phase if rnd is not None else "idle",
        game_number=shown.game_number if shown is not None else None,
        deck=rnd.deck if rnd is not None else st.deck,
        deck_dealt=st.deck_dealt,
        light=rnd.light if rnd is not None else None,
        cards=tuple(
            CardView(
                position=p,
                code=s.card.code if s.card else None,
                face_up=s.face is Face.UP or s.revealed,
                confirmed=s.confirmed,
                pending=s.pending,
            )
            for p, s in (shown.seats if shown else {}).items()
        ),
        expecting=deal.position if deal is not None and rnd and rnd.rescan is None else None,
        rescan_next=rnd.rescan[0] if rnd is not None and rnd.rescan else None,
        window=None
        if window is None
        else WindowView(
            name=window.name, options=tuple(window.options), automatic=window.automatic
        ),
        turning=turning(st, rnd) if rnd is not None and rnd.phase == "revealing" else (),
        paused=st.paused,
        incidents=tuple(IncidentView(**i.to_json()) for i in st.incidents),
        resume_blockers=tuple(b.words for b in blockers),
        timers=tuple(timers),
        devices=dict(st.devices),
        blockers=blockers,
    )


def snapshot(st: TableState) -> dict[str, Any]:
    """The table now as JSON types, in the shape `TableController.snapshot` documents."""
    view = table_view(st)
    timers: dict[str, Any] = (
        {str(k): v / 1e6 for k, v in sorted(st.frozen.items())}
        if st.paused
        else {str(k): from_micros(v).isoformat() for k, v in sorted(st.timers.items())}
    )
    window = view.window
    return {
        "table": view.table,
        "game": view.game,
        "variant": view.variant,
        "procedure": view.procedure,
        "seq": view.seq,
        "now": view.now.isoformat() if view.now is not None else None,
        "phase": view.phase,
        "game_number": view.game_number,
        "light": view.light,
        "positions": {c.position: c.code for c in view.cards},
        "expecting": view.expecting,
        "rescan_next": view.rescan_next,
        "window": None
        if window is None
        else {"name": window.name, "options": list(window.options), "automatic": window.automatic},
        "turning": list(view.turning),
        "paused": view.paused,
        "incidents": [i.to_json() for i in st.incidents],
        "resume_blockers": list(view.resume_blockers),
        "timers": timers,
        "devices": dict(st.devices),
    }
