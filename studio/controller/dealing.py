"""Dealing: the round's life from opening to result or void, walking the game's script.

`open_round` starts betting; the betting timers close it; `proceed` walks the script until it
waits for a card, a decision window or the camera, or ends the round with its result.
`seat_card` puts a drawn (or, camera-only, seen) card at the position the script expects.
"""

from __future__ import annotations

from studio.cards import Card
from studio.controller.events import announce, emit
from studio.controller.incidents import fault
from studio.controller.state import (
    SECOND,
    Round,
    Seat,
    TableState,
    TimerName,
    micros,
    open_window,
)
from studio.controller.timers import cancel, end_round_timers, set_timer, thaw
from studio.games import jackpot_review, judge
from studio.games.model import DealCard, DecisionWindow
from studio.games.windows import OfferedWindow, offer, void_refunds
from studio.messages import (
    BetLimits,
    BettingClosed,
    BettingLightChanged,
    DecisionWindowClosed,
    DecisionWindowOpened,
    DeckChanged,
    Device,
    RoundOpened,
    RoundResult,
    RoundVoided,
    from_micros,
)

YELLOW = TimerName("yellow")
CLOSE = TimerName("close")
DEAL = TimerName("deal")
WINDOW = TimerName("window")
AUTOSTART = TimerName("autostart")


def open_round(st: TableState) -> None:
    """Open a new round: its game number, `round_opened`, the green light and betting timers."""
    cfg = st.settings
    number = st.game_numbers.next(f"{cfg.table}-{from_micros(st.clock):%Y%m%d-%H%M%S}")
    st.round = Round(game_number=number, started=st.clock, deck=st.deck)
    if cfg.new_deck_every_round:
        st.round.deck_reused = _not_fresh(st)
    st.deck_dealt = number
    cancel(st, AUTOSTART)
    yellow = micros(cfg.betting_seconds - cfg.yellow_seconds)
    close = micros(cfg.betting_seconds)
    emit(
        st,
        RoundOpened(
            game_number=number,
            game=st.rules.game,
            variant=st.rules.variant,
            procedure=st.rules.options.get("procedure"),
            yellow_at=from_micros(st.clock + yellow),
            closes_at=from_micros(st.clock + close),
            limits=BetLimits.of_rules(st.rules),
            deck=st.deck,
        ),
    )
    emit(st, BettingLightChanged(light="green", closes_at=from_micros(st.clock + close)))
    if cfg.yellow_seconds > 0:
        set_timer(st, YELLOW, yellow)
    set_timer(st, CLOSE, close)
    if st.round.deck_reused is not None:
        # The game shuffles after every round: a round on a deck already dealt (or on no
        # announced deck) could repeat cards players have seen. Betting stops until it has one.
        fault(st, "deck_reused", detail=f"{st.round.deck_reused}: shuffle, then new_deck")


def _not_fresh(st: TableState) -> str | None:
    """Why the round opening now has no fresh deck, or None when it has one."""
    if st.deck is None:
        return "no deck was announced before this round"
    if st.deck_dealt is not None:
        return f"deck {st.deck} was already dealt in round {st.deck_dealt}"
    return None


def change_deck(st: TableState) -> None:
    """The dealer announced a new shuffled deck: give it an id and announce it.

    A round paused because it opened without a fresh deck takes the new one (nothing has been
    dealt from it yet, see `studio.controller.commands`).
    """
    deck = st.deck_ids.next(f"{st.settings.table}-deck-{from_micros(st.clock):%Y%m%d-%H%M%S}")
    st.deck, st.deck_dealt = deck, None
    rnd = st.active
    if rnd is not None:
        rnd.deck, rnd.deck_reused = deck, None
        st.deck_dealt = rnd.game_number
    emit(st, DeckChanged(deck=deck))


def turn_yellow(st: TableState) -> None:
    """The yellow timer fired: the light warns that betting closes soon."""
    rnd = st.active
    if rnd is not None and CLOSE in st.timers:
        rnd.light = "yellow"
        emit(st, BettingLightChanged(light="yellow", closes_at=from_micros(st.timers[CLOSE])))


def close_betting(st: TableState) -> None:
    """The close timer fired: red light, betting closed, dealing starts."""
    rnd = st.active
    if rnd is None:
        return
    rnd.light, rnd.phase = "red", "dealing"
    at = from_micros(st.clock)
    emit(st, BettingLightChanged(light="red", closes_at=at))
    emit(st, BettingClosed(at=at))
    proceed(st)


def proceed(st: TableState) -> None:
    """Walk the script until it waits for a card, a window or the camera (or ends the round)."""
    rnd = st.active
    if rnd is None or st.paused or rnd.rescan is not None or rnd.phase in ("betting", "window"):
        return
    script = st.rules.script
    while rnd.step < len(script):
        step = script[rnd.step]
        if isinstance(step, DealCard):
            rnd.phase = "dealing"
            if DEAL not in st.timers:
                length = round(st.settings.deal_timeout_seconds * SECOND)  # `micros`, inline
                if st.paused:
                    set_timer(st, DEAL, length)
                else:  # `set_timer`'s running case, inline: after every card
                    st.timers[DEAL] = (st.now or 0) + length
            return
        if any(not seat.confirmed for seat in rnd.seats.values()):
            # A decision or a reveal must never rest on a card the camera has not confirmed.
            rnd.phase = "confirming"
            return
        if isinstance(step, DecisionWindow):
            _open_window(st, rnd, step)
            return
        if not st.source.turn_cards(st, rnd, step):
            return
        rnd.step += 1
    if any(not seat.confirmed for seat in rnd.seats.values()):
        rnd.phase = "confirming"
        return
    _finish(st, rnd)


def _open_window(st: TableState, rnd: Round, window: DecisionWindow) -> None:
    rnd.phase, rnd.last_window_step = "window", rnd.step
    length = micros(st.settings.decision_seconds)
    set_timer(st, WINDOW, length)
    offered = _offered(st, rnd, window)
    emit(
        st,
        DecisionWindowOpened(
            window=window.name,
            options=list(offered.options),
            automatic=offered.automatic,
            player_hand=offered.player_hand,
            eligible_after=sorted(window.eligible_after),
            closes_at=from_micros(st.clock + length),
        ),
    )


def _offered(st: TableState, rnd: Round, window: DecisionWindow) -> OfferedWindow:
    """The window as the rules offer it to the round's hand (a classic royal never folds)."""
    return offer(st.rules, window, _cards(rnd))


def _cards(rnd: Round) -> dict[str, Card]:
    return {p: seat.card for p, seat in rnd.seats.items() if seat.card is not None}


def close_window(st: TableState) -> None:
    """The window timer fired: close the window with its automatic action and deal on."""
    rnd = st.active
    if rnd is None:
        return
    window = st.rules.script[rnd.step]
    assert isinstance(window, DecisionWindow)
    automatic = _offered(st, rnd, window).automatic
    emit(
        st, DecisionWindowClosed(window=window.name, automatic=automatic, at=from_micros(st.clock))
    )
    rnd.step += 1
    rnd.phase = "dealing"
    proceed(st)


def _finish(st: TableState, rnd: Round) -> None:
    cards = _cards(rnd)
    judgement = judge(st.rules, cards)
    positions = {p: cards[p].code for p in st.rules.positions}
    emit(st, RoundResult(positions=positions, judgement=judgement.to_json()))
    _end(st, rnd)


def void(st: TableState, rnd: Round, reason: str) -> None:
    """Void `rnd`: say which stakes are refunded and whether a Jackpot review is due."""
    numbers = [i.number for i in st.incidents]
    flag = jackpot_review(st.rules, _cards(rnd))
    refunded = list(void_refunds(st.rules, rnd.last_window_step >= 0))
    emit(
        st,
        RoundVoided(jackpot_compensation=flag, incidents=numbers, reason=reason, refunded=refunded),
    )
    st.paused, st.incidents = False, []
    # Only the device watchdogs outlive the round; its own timers die with it.
    st.frozen = {k: v for k, v in st.frozen.items() if k.kind == "silent"}
    thaw(st)
    _end(st, rnd)


def _end(st: TableState, rnd: Round) -> None:
    rnd.phase = "done"
    end_round_timers(st)
    if st.settings.auto_start:
        set_timer(st, AUTOSTART, micros(st.settings.round_gap_seconds))


def auto_start(st: TableState) -> None:
    """The autostart timer fired: open the next round unless a device is broken."""
    if st.active is not None:
        return
    if any(status != "ok" for status in st.devices.values()):
        # Never open a round on a broken table; try again after another gap.
        set_timer(st, AUTOSTART, micros(st.settings.round_gap_seconds))
        return
    open_round(st)


def deal_timeout(st: TableState) -> None:
    """No card came within the deal timeout: pause with a `deal_timeout` incident."""
    rnd = st.active
    step = st.rules.script[rnd.step] if rnd is not None else None
    position = step.position if isinstance(step, DealCard) else None
    seconds = st.settings.deal_timeout_seconds
    fault(st, "deal_timeout", position=position, detail=f"no card within {seconds:g} s")


def why_no_card(st: TableState, rnd: Round | None) -> str:
    """Why no card may come now, as the end of an incident's detail."""
    if rnd is None:
        return "with no round in progress"
    if st.paused:
        return "while the table is paused"
    window = open_window(st.rules, rnd)
    if window is not None:
        return f"during the {window.name} decision window"
    if rnd.phase == "betting":
        return "during betting"
    if rnd.phase == "revealing":
        return "while the dealer turns the face-down cards"
    if rnd.step >= len(st.rules.script):
        return "after the last card"
    return "while the camera had not confirmed the cards dealt"


def seat_card(
    st: TableState,
    rnd: Round,
    deal: DealCard,
    card: Card | None,
    raw: str,
    *,
    confirmed: bool,
    device: Device = "shoe",
    pending: bool = False,
    detail: str = "",
) -> bool:
    """Seat and announce a card at the deal step's position; False when it paused the table.

    `pending`: a face-down card whose value nobody knows yet (camera-only). `confirmed`: the
    camera has seen it (or no camera confirms this table's cards). The caller starts what
    confirms it and then lets the script `proceed`.
    """
    cancel(st, DEAL)
    holder = rnd.holder(card) if card is not None else None
    seat = Seat(deal.position, deal.face, card, len(rnd.seats) + 1, rnd.step, confirmed)
    seat.pending = pending
    rnd.seats[deal.position] = seat
    rnd.drawn.append(deal.position)
    rnd.step += 1
    if card is None and not pending:
        fault(st, "unreadable_card", position=deal.position, device=device, raw=raw, detail=detail)
        return False
    if card is not None and holder is not None:
        where = holder if holder in ("out of turn", "discarded") else f"at {holder}"
        detail = f"{card.code} is already {where} this round"
        fault(
            st, "duplicate_card", position=deal.position, cards=(card.code,), raw=raw, detail=detail
        )
        return False
    announce(st, seat)
    return True
