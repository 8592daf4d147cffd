"""Every event type in words, for `studio watch`: one registry, one renderer per type.

`describe(envelope)` is one line: `#SEQ GAME TYPE[ [restricted]]: what happened`. A renderer
reads the envelope's body as JSON types and says what a floor person needs: cards by position
(a face-down card says so, never a blank), lights, windows, results with both hands, incidents
with their detail, commands with who gave them. `RENDERERS` holds one entry per event type; a
test holds it to `studio.messages.EVENT_TYPES`, so a new event cannot reach the log as raw JSON.

`describe_notice(notice)` is the line for a restricted stream's notice (a journal alarm, a signed
checkpoint, an integrity report: `studio.messages.notices`), which has no sequence number:
`notice KIND [restricted[, not journalled]] at HH:MM:SS: what it says`. It matches on the typed
notice, so mypy refuses a notice kind without words.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, assert_never

from studio.messages.notices import AnyNotice, Checkpoint, IntegrityReport, JournalAlarm

Body = dict[str, Any]


def describe(envelope: dict[str, Any]) -> str:
    """One readable line for an event envelope (as JSON types)."""
    body: Body = envelope.get("body", {})
    kind = str(envelope.get("type", "?"))
    game = envelope.get("game_number") or "-"
    render = RENDERERS.get(kind)
    # An event type newer than this program still shows, as its JSON: nothing is hidden.
    text = render(body) if render is not None else json.dumps(body, separators=(",", ":"))
    mark = " [restricted]" if envelope.get("audience") == "restricted" else ""
    return f"#{envelope.get('seq')} {game} {kind}{mark}{': ' + text if text else ''}"


def _card(code: Any, face: Any) -> str:
    if code:
        return f"{code} (face {face})"
    return "face down" if face == "down" else "unreadable"


def _hand(side: str, hand: Any) -> str | None:
    if isinstance(hand, dict) and hand.get("description"):
        return f"{side} {hand['description']}"
    return None


def _result(body: Body) -> str:
    cards = " ".join(f"{p}={c}" for p, c in body.get("positions", {}).items())
    judgement = body.get("judgement") or {}
    dealer = _hand("dealer", judgement.get("dealer"))
    if dealer is not None and "dealer_qualifies" in judgement:
        dealer += " (qualifies)" if judgement["dealer_qualifies"] else " (does not qualify)"
    hands = [h for h in (dealer, _hand("player", judgement.get("player"))) if h]
    return " | ".join(part for part in (cards, ", ".join(hands)) if part)


def _corrected(body: Body) -> str:
    previous = body.get("previous") or ("face down" if body.get("face") == "down" else "none")
    return f"{body.get('position')} corrected to {_card(body.get('card'), body.get('face'))}" + (
        f", was {previous}"
    )


def _discarded(body: Body) -> str:
    where = body.get("position") or "a stray card"
    return f"{where}: {body.get('card') or 'card'} taken back"


def _rescanned(body: Body) -> str:
    verdict = "matches" if body.get("matched") else "DOES NOT MATCH"
    return (
        f"{body.get('position')} read {body.get('read') or 'nothing'}, "
        f"recorded {body.get('recorded') or 'nothing'}: {verdict}"
    )


def _voided(body: Body) -> str:
    refunded = ", ".join(body.get("refunded", [])) or body.get("refund", "initial bets")
    flag = ", jackpot hand: compensation to decide" if body.get("jackpot_compensation") else ""
    return f"VOIDED: {body.get('reason')} (refund {refunded}){flag}"


def _command(body: Body, *, refused: bool) -> str:
    why = f": REFUSED, {body.get('reason')}" if refused else ""
    target = " ".join(str(body[k]) for k in ("position", "card") if body.get(k))
    note = f" ({body['note']})" if body.get("note") else ""
    return (
        f"{body.get('command')}{' ' + target if target else ''} by {body.get('actor')} "
        f"({body.get('role')}){note}{why}"
    )


RENDERERS: dict[str, Callable[[Body], str]] = {
    "round_opened": lambda b: f"{b.get('game')} {b.get('variant')}, betting open, light green",
    "betting_light_changed": lambda b: f"light {b.get('light')}",
    "betting_closed": lambda b: "betting closed, light red",
    "card_dealt": lambda b: f"{b.get('position')} {_card(b.get('card'), b.get('face'))}",
    "decision_window_opened": lambda b: (
        f"{b.get('window')} window: {'/'.join(b.get('options', []))}, else {b.get('automatic')}"
        + (f" (player holds {b['player_hand']})" if b.get("player_hand") else "")
    ),
    "decision_window_closed": lambda b: (
        f"{b.get('window')} window closed, automatic {b.get('automatic')}"
    ),
    "card_revealed": lambda b: f"{b.get('position')} turns {b.get('card')}",
    "round_result": _result,
    "round_paused": lambda b: f"PAUSED: {b.get('kind')} (incident {b.get('incident')})",
    "incident_reported": lambda b: (
        f"incident {b.get('incident')} {b.get('kind')}"
        + (
            f" at {b.get('position') or b.get('device')}"
            if b.get("position") or b.get("device")
            else ""
        )
        + (f": {b.get('detail')}" if b.get("detail") else "")
    ),
    "round_resumed": lambda b: "resumed",
    "round_voided": _voided,
    "command_accepted": lambda b: _command(b, refused=False),
    "command_rejected": lambda b: _command(b, refused=True),
    "device_health_changed": lambda b: (
        f"{b.get('device')} {b.get('status')} {b.get('detail', '')}".strip()
    ),
    "card_corrected": _corrected,
    "card_discarded": _discarded,
    "rescan_started": lambda b: f"re-scan of {', '.join(b.get('positions', [])) or 'the round'}",
    "card_rescanned": _rescanned,
    "rescan_finished": lambda b: (
        f"re-scan {'matched' if b.get('matched') else 'FOUND A MISMATCH'}"
        + (f": {b.get('detail')}" if b.get("detail") else "")
    ),
    "deck_changed": lambda b: "new deck in the shoe",
}
"""Event type -> its words (one entry per `studio.messages.EVENT_TYPES` name)."""


def describe_notice(notice: AnyNotice) -> str:
    """One readable line for a notice of the restricted stream (see the module docstring)."""
    match notice:
        case JournalAlarm():
            text = _journal_alarm(notice)
            mark = "restricted, not journalled"
        case Checkpoint():
            text = (
                f"{notice.records} records up to event #{notice.last_seq} ({notice.reason}), "
                f"chain head {notice.head[:16]}, signed by table key {notice.key[:16]}"
            )
            mark = "restricted"
        case IntegrityReport():
            text = _integrity(notice)
            mark = "restricted"
        case _:
            assert_never(notice)
    return f"notice {notice.kind} [{mark}] at {notice.ts:%H:%M:%S}: {text}"


def _journal_alarm(alarm: JournalAlarm) -> str:
    if alarm.state == "unwritable":
        return (
            f"JOURNAL NOT WRITABLE since {alarm.since:%H:%M:%S} ({alarm.detail}): nothing is "
            "acted on until it is; free space, then a shift manager resumes"
        )
    seconds = (alarm.ts - alarm.since).total_seconds()
    return (
        f"journal writable again after {seconds:.1f} s, {alarm.refused} input(s) refused "
        "meanwhile: the fault is journalled and the table waits for a shift manager's resume"
    )


def _integrity(report: IntegrityReport) -> str:
    checked = f"{report.why} check of {report.files} files against manifest {report.manifest[:16]}"
    if not report.differences:
        return f"{checked}: all match"
    shown = ", ".join(report.differences[:3])
    more = f" and {len(report.differences) - 3} more" if len(report.differences) > 3 else ""
    return f"{checked}: {len(report.differences)} DIFFER ({shown}{more})"
