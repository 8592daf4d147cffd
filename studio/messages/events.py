"""Event bodies: what the table publishes, one pydantic model per event type.

Each body model names its `TYPE` (the envelope's `type`) and the `AUDIENCES` it may be published
to. A restricted-only body can never go out publicly (`body_json` refuses it), and the bodies that
exist in both audiences (a dealt or corrected card) are built in pairs by the controller so that the
public one of a face-down card has no card value at all. What the audience implies for a body's
fields (a public face-down `card_dealt` has `card` None) is `EventBody.audience_problem` in Python
and `EventBody.AUDIENCE_SCHEMA` in the JSON Schema.

Positions, card codes, games and decisions are the types of `studio.messages.names`; a round
result's judgement is `studio.messages.judgement.JudgementJson`.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from studio.messages.envelope import Audience
from studio.messages.judgement import JudgementJson
from studio.messages.names import (
    BetName,
    CardCode,
    Decision,
    GameName,
    Position,
    VariantName,
    WindowName,
)
from studio.messages.settings import BetLimits
from studio.terms import CommandName, Device, Role

Count = Annotated[int, Field(ge=1)]
"""A number counted from 1: a card's place in its round, an incident's number."""

IncidentKind = Literal[
    "duplicate_card",
    "card_out_of_turn",
    "unreadable_card",
    "camera_mismatch",
    "device_fault",
    "device_silent",
    "manager_called",
    "deal_timeout",
    "controller_restarted",
    "deck_reused",
    "journal_unwritable",
    "integrity_mismatch",
    "clock_step",
    "clock_unsynchronised",
]
"""Why a round was paused."""

PUBLIC_NOTICE = "round under investigation"
"""What every player is told when a round pauses (docs/games.md: Malfunction)."""


class EventBody(BaseModel):
    """Base of every event body: unknown fields refused, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    TYPE: ClassVar[str] = ""
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("public",)
    AUDIENCE_SCHEMA: ClassVar[dict[str, dict[str, Any]]] = {}
    """Per audience, JSON Schema the body also meets there: `audience_problem` as the schema."""

    def audience_problem(self, audience: Audience) -> str | None:
        """Why this body may not go to `audience`, in one line; None when it may."""
        if audience not in self.AUDIENCES:
            return f"{self.TYPE} events may not be {audience}"
        return None


class RoundOpened(EventBody):
    """A round began: its game number, the game, and when betting turns yellow and closes.

    `limits` are the table's stake limits per bet in force for the round (every bet of the
    game; null: no limit), which the platform applies to the bets it accepts and `studio
    settle` takes back. `deck` is the id of the deck (shuffle) the round is dealt from, as its
    `deck_changed` announced it (null: no deck announced since the table started).
    """

    TYPE: ClassVar[str] = "round_opened"
    game_number: str
    game: GameName
    variant: VariantName
    procedure: str | None
    yellow_at: AwareDatetime
    closes_at: AwareDatetime
    limits: dict[BetName, BetLimits] = Field(default_factory=dict)
    deck: str | None = None


class BettingLightChanged(EventBody):
    """The betting light changed: green (bets accepted), yellow (nearly over), red (closed)."""

    TYPE: ClassVar[str] = "betting_light_changed"
    light: Literal["green", "yellow", "red"]
    closes_at: AwareDatetime


class BettingClosed(EventBody):
    """No more bets: the platform must refuse every bet for this round from `at` on."""

    TYPE: ClassVar[str] = "betting_closed"
    at: AwareDatetime


class CardDealt(EventBody):
    """A card went to `position`, lying `face` up or down; `number` counts the round's cards.

    The public event of a face-down card has `card` None; the restricted one always has it.
    """

    TYPE: ClassVar[str] = "card_dealt"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("public", "restricted")
    AUDIENCE_SCHEMA: ClassVar[dict[str, dict[str, Any]]] = {
        "public": {
            "if": {"properties": {"face": {"const": "down"}}, "required": ["face"]},
            "then": {"properties": {"card": {"type": "null"}}},
        },
        "restricted": {"properties": {"card": {"type": "string"}}},
    }
    position: Position
    face: Literal["up", "down"]
    number: Count
    card: CardCode | None

    def audience_problem(self, audience: Audience) -> str | None:
        """As `EventBody`'s, and: public face down means no card; restricted always a card."""
        return self.problem_of(audience, self.face, self.card)

    @classmethod
    def problem_of(cls, audience: Audience, face: str, card: str | None) -> str | None:
        """`audience_problem` of a body with this `face` and `card` (the controller's pairs)."""
        if audience not in cls.AUDIENCES:
            return f"{cls.TYPE} events may not be {audience}"
        if audience == "public" and face == "down" and card is not None:
            return "a public card_dealt of a face-down card carries no card"
        if audience == "restricted" and card is None:
            return "a restricted card_dealt always carries its card"
        return None


class DecisionWindowOpened(EventBody):
    """A decision window opened; players with no decision at `closes_at` get `automatic`.

    `options` leave out what the rules refuse for the player's hand, and `automatic` is never a
    refused action (a classic royal flush is offered `call` only, automatic `call`).
    `player_hand` describes the player's hand as the decision screen shows it ("One pair,
    kings"), null when no player card is known.
    """

    TYPE: ClassVar[str] = "decision_window_opened"
    window: WindowName
    options: list[Decision]
    automatic: Decision
    eligible_after: list[Decision]
    closes_at: AwareDatetime
    player_hand: str | None = None


class DecisionWindowClosed(EventBody):
    """A decision window closed; every player without a decision gets `automatic`."""

    TYPE: ClassVar[str] = "decision_window_closed"
    window: WindowName
    automatic: Decision
    at: AwareDatetime


class CardRevealed(EventBody):
    """The dealer turned the face-down card at `position`: its value is public from now on."""

    TYPE: ClassVar[str] = "card_revealed"
    position: Position
    card: CardCode


class RoundResult(EventBody):
    """The round's cards by position and its judgement (`studio.games.Judgement.to_json()`)."""

    TYPE: ClassVar[str] = "round_result"
    positions: dict[Position, CardCode]
    judgement: JudgementJson


class RoundPaused(EventBody):
    """A fault paused the round (or the idle table): the public notice, without any detail."""

    TYPE: ClassVar[str] = "round_paused"
    incident: Count
    kind: IncidentKind
    notice: str = PUBLIC_NOTICE


class IncidentReported(EventBody):
    """The detail of a fault for the shift manager: position, cards involved, raw device data."""

    TYPE: ClassVar[str] = "incident_reported"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("restricted",)
    incident: Count
    kind: IncidentKind
    position: Position | None
    cards: list[CardCode]
    device: Device | None
    raw: str
    detail: str


class RoundResumed(EventBody):
    """A shift manager resumed: the round continues where it stopped, timers where they froze."""

    TYPE: ClassVar[str] = "round_resumed"
    incidents: list[Count]


class RoundVoided(EventBody):
    """The round is void: every initial bet is refunded; nothing of it pays or plays.

    `jackpot_compensation` flags a round whose player hand would have won a Jackpot prize, for a
    manual compensation decision (docs/games.md). `reason` is public and generic ("voided by the
    shift manager"): the manager's free-text note may name a face-down card, so it stays in the
    restricted `command_accepted` of the `void` command. `refunded` names exactly the bets
    refunded to every player who placed them: the initial bets, and the decision bet once a
    decision window had opened (as `settle_void` refunds).
    """

    TYPE: ClassVar[str] = "round_voided"
    refund: Literal["initial_bets"] = "initial_bets"
    jackpot_compensation: bool
    incidents: list[Count]
    reason: str
    refunded: list[BetName] = []


class CommandAccepted(EventBody):
    """A command passed its checks and applied: who gave it, in which role, with what arguments."""

    TYPE: ClassVar[str] = "command_accepted"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("restricted",)
    command: CommandName
    actor: str
    role: Role
    position: Position | None
    card: CardCode | None
    note: str


class CommandRejected(EventBody):
    """A command failed a check and changed nothing; `reason` says which check, in one line."""

    TYPE: ClassVar[str] = "command_rejected"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("restricted",)
    command: CommandName
    actor: str
    role: Role
    reason: str


class DeviceHealthChanged(EventBody):
    """A device's health changed: ok, fault (it said so) or silent (it stopped answering)."""

    TYPE: ClassVar[str] = "device_health_changed"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("restricted",)
    device: Device
    status: Literal["ok", "fault", "silent"]
    detail: str


class CardCorrected(EventBody):
    """A shift manager corrected the card record of `position`.

    Public: `card` and `previous` only when the position's card is already public (and
    `previous` names no card still hidden); restricted: `card` always, `previous` when known.
    """

    TYPE: ClassVar[str] = "card_corrected"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("public", "restricted")
    AUDIENCE_SCHEMA: ClassVar[dict[str, dict[str, Any]]] = {
        "restricted": {"properties": {"card": {"type": "string"}}},
    }
    position: Position
    face: Literal["up", "down"]
    card: CardCode | None
    previous: CardCode | None

    def audience_problem(self, audience: Audience) -> str | None:
        """As `EventBody`'s, and: the restricted event always names the corrected card."""
        problem = super().audience_problem(audience)
        if problem is not None:
            return problem
        if audience == "restricted" and self.card is None:
            return "a restricted card_corrected always carries its card"
        return None


class CardDiscarded(EventBody):
    """The last card drawn was taken away: `position` is free again (None: a stray card).

    Public: `card` only when it was public.
    """

    TYPE: ClassVar[str] = "card_discarded"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("public", "restricted")
    position: Position | None
    card: CardCode | None


class RescanStarted(EventBody):
    """A re-scan began: the next `cards` drawn re-read the round's cards in dealing order."""

    TYPE: ClassVar[str] = "rescan_started"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("restricted",)
    positions: list[Position]


class CardRescanned(EventBody):
    """A card re-read during a re-scan, against the record of its position."""

    TYPE: ClassVar[str] = "card_rescanned"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("restricted",)
    position: Position
    recorded: CardCode | None
    read: CardCode | None
    matched: bool


class RescanFinished(EventBody):
    """A re-scan ended: `matched` when every card agreed with (or filled) its record."""

    TYPE: ClassVar[str] = "rescan_finished"
    AUDIENCES: ClassVar[tuple[Audience, ...]] = ("restricted",)
    matched: bool
    detail: str


class DeckChanged(EventBody):
    """The dealer loaded a new (shuffled) deck: `deck` is its id, which rounds then record.

    The id is the table and the time the deck was announced (`T01-deck-20261129-143207`, with
    a suffix when two decks would share a second), so it is unique per table.
    """

    TYPE: ClassVar[str] = "deck_changed"
    deck: str | None = None


EVENT_BODIES: tuple[type[EventBody], ...] = (
    RoundOpened,
    BettingLightChanged,
    BettingClosed,
    CardDealt,
    DecisionWindowOpened,
    DecisionWindowClosed,
    CardRevealed,
    RoundResult,
    RoundPaused,
    IncidentReported,
    RoundResumed,
    RoundVoided,
    CommandAccepted,
    CommandRejected,
    DeviceHealthChanged,
    CardCorrected,
    CardDiscarded,
    RescanStarted,
    CardRescanned,
    RescanFinished,
    DeckChanged,
)
"""Every event body model, in schema order."""

EVENT_TYPES: dict[str, type[EventBody]] = {body.TYPE: body for body in EVENT_BODIES}
"""Event type name -> its body model."""


def body_json(body: EventBody, audience: Audience) -> dict[str, Any]:
    """The body as JSON types for an envelope to `audience`.

    Raises `ValueError` when the body may not go to that audience (a restricted-only type made
    public, a face-down card's value in a public `card_dealt`): a programming error that must
    never publish.
    """
    problem = body.audience_problem(audience)
    if problem is not None:
        raise ValueError(problem)
    # A body of plain fields (a card's) is its JSON form as it stands: a model dump costs a
    # card's path several times its warm figure. Anything else is dumped by the model.
    fields = {name: getattr(body, name) for name in type(body).model_fields}
    if all(value is None or type(value) in _PLAIN for value in fields.values()):
        return fields
    return body.model_dump(mode="json")


_PLAIN = (str, int, bool)
"""Types whose JSON form is the value itself (exactly these: an enum or a subclass is dumped)."""
