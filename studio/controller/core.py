"""The controller's mechanics: time and timers, the dealing script, cards, camera, devices, faults.

`TableCore` changes a `TableState` and emits envelopes; `studio.controller.table` adds the
commands on top. Time only moves forward, and only with the inputs: before an input applies,
every timer whose deadline it has passed fires in deadline order (a timer fires at its own
deadline, so what it starts is timed from then, not from when the input came).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from studio.cards import Card
from studio.controller.state import Incident, Micros, Round, TableState, micros, open_window
from studio.games import judge
from studio.games.model import DealCard, DecisionWindow, Reveal
from studio.games.windows import OfferedWindow, offer, void_refunds
from studio.hands import evaluate
from studio.messages import (
    Audience,
    BettingClosed,
    BettingLightChanged,
    CardRevealed,
    DecisionWindowClosed,
    DecisionWindowOpened,
    Envelope,
    EventBody,
    IncidentKind,
    IncidentReported,
    RoundOpened,
    RoundPaused,
    RoundResult,
    RoundResumed,
    RoundVoided,
    TableSettings,
    body_json,
    from_micros,
)


class TableCore:
    """The state machine's moving parts; see `TableController` for the public contract."""

    def __init__(self, settings: TableSettings) -> None:
        self._state = TableState(settings=settings, rules=settings.rules())
        self._out: list[Envelope] = []
        self._ts = datetime.min
        self._monitored: tuple[str, ...] = ("shoe",)
        if settings.camera:
            # A camera-only table has no shoe to watch: the camera is its card source.
            self._monitored = (
                ("camera",) if settings.card_source == "camera" else ("shoe", "camera")
            )
        self._state.devices = dict.fromkeys(self._monitored, "ok")
        self._fires: dict[str, Callable[[str], None]] = {
            "yellow": self._turn_yellow,
            "close": self._close_betting,
            "deal": self._deal_timed_out,
            "window": self._close_window,
            "autostart": self._auto_start,
        }

    # -- publishing ---------------------------------------------------------------------------

    def _emit(self, body: EventBody, audience: Audience = "public") -> None:
        st = self._state
        st.seq += 1
        rnd = st.active
        self._out.append(
            Envelope(
                table=st.settings.table,
                seq=st.seq,
                game_number=rnd.game_number if rnd is not None else None,
                ts=self._ts,
                audience=audience,
                type=body.TYPE,
                body=body_json(body, audience),
            )
        )

    def _emit_card(
        self, make: Callable[[str | None, bool], EventBody], card: Card | None, public: bool
    ) -> None:
        """Emit a card event twice: public (the value only if `public`) and restricted (always).

        `make(code, restricted)` builds the body. The split is made here, once, so no other code
        can put a face-down card's value on the public stream (the rules: secret until revealed).
        """
        code = card.code if card is not None else None
        shown = code if public and not self._secret(card) else None
        self._emit(make(shown, False), "public")
        self._emit(make(code, True), "restricted")

    def _secret(self, card: Card | None) -> bool:
        """Whether `card` is the value of a face-down card not yet revealed this round.

        A misread or duplicate can put the same code at a face-up position too; its value must
        then stay off the public stream as well, or it would name the hidden card.
        """
        rnd = self._state.active
        if rnd is None or card is None:
            return False
        return any(s.card == card and not s.public for s in rnd.seats.values())

    # -- time -----------------------------------------------------------------------------------

    @property
    def _now(self) -> Micros:
        return self._state.now or 0

    def _set_timer(self, name: str, duration: Micros) -> None:
        st = self._state
        if st.paused:
            st.frozen[name] = duration
        else:
            st.timers[name] = self._now + duration

    def _cancel(self, name: str) -> None:
        self._state.timers.pop(name, None)
        self._state.frozen.pop(name, None)

    def _advance(self, until: Micros) -> None:
        st = self._state
        while not st.paused and st.timers:
            name, deadline = min(st.timers.items(), key=lambda item: (item[1], item[0]))
            if deadline > until:
                break
            del st.timers[name]
            st.now = max(self._now, deadline)
            kind, _, arg = name.partition(":")
            self._fires[kind](arg)
        st.now = max(self._now, until)

    def _freeze(self) -> None:
        st = self._state
        st.frozen = {name: max(0, t - self._now) for name, t in st.timers.items()}
        st.timers = {}

    def _thaw(self) -> None:
        st = self._state
        st.timers = {name: self._now + left for name, left in st.frozen.items()}
        st.frozen = {}

    @property
    def _confirm_time(self) -> Micros:
        return micros(self._state.settings.camera_confirm_seconds)

    # -- faults ---------------------------------------------------------------------------------

    def _fault(
        self,
        kind: IncidentKind,
        *,
        position: str | None = None,
        cards: tuple[str, ...] = (),
        device: str | None = None,
        raw: str = "",
        detail: str = "",
    ) -> None:
        """Pause (freezing every timer) and report an incident: public notice, restricted detail."""
        st = self._state
        st.incident_count += 1
        incident = Incident(st.incident_count, kind, position, cards, device, raw, detail)
        st.incidents.append(incident)
        if not st.paused:
            self._freeze()
            st.paused = True
        self._emit(RoundPaused(incident=incident.number, kind=kind))
        self._emit(IncidentReported.model_validate(incident.to_json()), "restricted")

    def _resume(self) -> None:
        st = self._state
        numbers = [i.number for i in st.incidents]
        st.paused = False
        st.incidents = []
        self._thaw()
        self._recheck_camera()
        self._emit(RoundResumed(incidents=numbers))
        self._announce_kept()
        self._proceed()

    def _recheck_camera(self) -> None:
        """Hook: on resume, settle the camera's confirmations (see `TableHardware`)."""

    def _announce_kept(self) -> None:
        """Hook: on resume, announce every card kept unannounced (see `TableHardware`)."""

    # -- the round ------------------------------------------------------------------------------

    def _open_round(self) -> None:
        st, cfg = self._state, self._state.settings
        base = f"{cfg.table}-{from_micros(self._now):%Y%m%d-%H%M%S}"
        if base == st.last_second:
            st.same_second += 1
            number = f"{base}-{st.same_second}"
        else:
            st.last_second, st.same_second, number = base, 1, base
        st.round = Round(game_number=number, started=self._now)
        self._cancel("autostart")
        yellow = micros(cfg.betting_seconds - cfg.yellow_seconds)
        close = micros(cfg.betting_seconds)
        self._emit(
            RoundOpened(
                game_number=number,
                game=st.rules.game,
                variant=st.rules.variant,
                procedure=st.rules.options.get("procedure"),
                yellow_at=from_micros(self._now + yellow),
                closes_at=from_micros(self._now + close),
            )
        )
        self._emit(BettingLightChanged(light="green", closes_at=from_micros(self._now + close)))
        if cfg.yellow_seconds > 0:
            self._set_timer("yellow", yellow)
        self._set_timer("close", close)

    def _turn_yellow(self, _: str) -> None:
        rnd = self._state.active
        if rnd is not None and "close" in self._state.timers:
            rnd.light = "yellow"
            closes = from_micros(self._state.timers["close"])
            self._emit(BettingLightChanged(light="yellow", closes_at=closes))

    def _close_betting(self, _: str) -> None:
        rnd = self._state.active
        if rnd is None:
            return
        rnd.light, rnd.phase = "red", "dealing"
        at = from_micros(self._now)
        self._emit(BettingLightChanged(light="red", closes_at=at))
        self._emit(BettingClosed(at=at))
        self._proceed()

    def _proceed(self) -> None:
        """Walk the script until it waits for a card, a window or the camera (or ends the round)."""
        st, rnd = self._state, self._state.active
        if rnd is None or st.paused or rnd.rescan is not None or rnd.phase in ("betting", "window"):
            return
        script = st.rules.script
        while rnd.step < len(script):
            step = script[rnd.step]
            if isinstance(step, DealCard):
                rnd.phase = "dealing"
                if "deal" not in st.timers:
                    self._set_timer("deal", micros(st.settings.deal_timeout_seconds))
                return
            if any(not seat.confirmed for seat in rnd.seats.values()):
                # A decision or a reveal must never rest on a card the camera has not confirmed.
                rnd.phase = "confirming"
                return
            if isinstance(step, DecisionWindow):
                self._open_window(rnd, step)
                return
            if not self._turn_cards(rnd, step):
                return
            rnd.step += 1
        if any(not seat.confirmed for seat in rnd.seats.values()):
            rnd.phase = "confirming"
            return
        self._finish(rnd)

    def _turn_cards(self, rnd: Round, step: Reveal) -> bool:
        """Turn the face-down cards of a reveal step; False while it must wait (camera-only)."""
        for position in step.positions:
            seat = rnd.seats[position]
            seat.revealed = True
            if seat.card is not None:
                self._emit(CardRevealed(position=position, card=seat.card.code))
        return True

    def _open_window(self, rnd: Round, window: DecisionWindow) -> None:
        rnd.phase, rnd.last_window_step = "window", rnd.step
        length = micros(self._state.settings.decision_seconds)
        self._set_timer("window", length)
        offered = self._offered(rnd, window)
        self._emit(
            DecisionWindowOpened(
                window=window.name,
                options=list(offered.options),
                automatic=offered.automatic,
                player_hand=offered.player_hand,
                eligible_after=sorted(window.eligible_after),
                closes_at=from_micros(self._now + length),
            )
        )

    def _offered(self, rnd: Round, window: DecisionWindow) -> OfferedWindow:
        """The window as the rules offer it to the round's hand (a classic royal never folds)."""
        cards = {p: seat.card for p, seat in rnd.seats.items() if seat.card is not None}
        return offer(self._state.rules, window, cards)

    def _close_window(self, _: str) -> None:
        rnd = self._state.active
        if rnd is None:
            return
        window = self._state.rules.script[rnd.step]
        assert isinstance(window, DecisionWindow)
        automatic = self._offered(rnd, window).automatic
        self._emit(
            DecisionWindowClosed(window=window.name, automatic=automatic, at=from_micros(self._now))
        )
        rnd.step += 1
        rnd.phase = "dealing"
        self._proceed()

    def _finish(self, rnd: Round) -> None:
        rules = self._state.rules
        cards = {p: seat.card for p, seat in rnd.seats.items() if seat.card is not None}
        judgement = judge(rules, cards)
        positions = {p: cards[p].code for p in rules.positions}
        self._emit(RoundResult(positions=positions, judgement=judgement.to_json()))
        self._end(rnd)

    def _void(self, rnd: Round, reason: str) -> None:
        numbers = [i.number for i in self._state.incidents]
        flag = self._jackpot_compensation(rnd)
        refunded = list(void_refunds(self._state.rules, rnd.last_window_step >= 0))
        self._emit(
            RoundVoided(
                jackpot_compensation=flag, incidents=numbers, reason=reason, refunded=refunded
            )
        )
        st = self._state
        st.paused, st.incidents = False, []
        # Only the device watchdogs outlive the round; its own timers die with it.
        st.frozen = {k: v for k, v in st.frozen.items() if k.startswith("silent:")}
        self._thaw()
        self._end(rnd)

    def _end(self, rnd: Round) -> None:
        rnd.phase = "done"
        st = self._state
        for name in [n for n in st.timers if not n.startswith("silent:")]:
            del st.timers[name]
        if st.settings.auto_start:
            self._set_timer("autostart", micros(st.settings.round_gap_seconds))

    def _auto_start(self, _: str) -> None:
        st = self._state
        if st.active is not None:
            return
        if any(status != "ok" for status in st.devices.values()):
            # Never open a round on a broken table; try again after another gap.
            self._set_timer("autostart", micros(st.settings.round_gap_seconds))
            return
        self._open_round()

    def _jackpot_compensation(self, rnd: Round) -> bool:
        """Whether the void round's player five cards would have won a Jackpot prize."""
        table = self._state.rules.paytables.get("jackpot")
        if table is None:
            return False
        mine = [s.card for p, s in rnd.seats.items() if p.startswith("player-")]
        hand = [c for c in mine if c is not None]
        if len(hand) != 5 or len(set(hand)) != 5:
            return False
        category = evaluate(hand).category
        return category in table.progressive or table.pay(category) is not None

    def _deal_timed_out(self, _: str) -> None:
        rnd = self._state.active
        step = self._state.rules.script[rnd.step] if rnd is not None else None
        position = step.position if isinstance(step, DealCard) else None
        seconds = self._state.settings.deal_timeout_seconds
        self._fault("deal_timeout", position=position, detail=f"no card within {seconds:g} s")

    def _why_no_card(self, rnd: Round | None) -> str:
        """Why no card may come now, as the end of an incident's detail."""
        if rnd is None:
            return "with no round in progress"
        if self._state.paused:
            return "while the table is paused"
        window = open_window(self._state.rules, rnd)
        if window is not None:
            return f"during the {window.name} decision window"
        if rnd.phase == "betting":
            return "during betting"
        if rnd.phase == "revealing":
            return "while the dealer turns the face-down cards"
        if rnd.step >= len(self._state.rules.script):
            return "after the last card"
        return "while the camera had not confirmed the cards dealt"
