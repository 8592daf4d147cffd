"""The table's one vocabulary: inputs, event bodies, the envelope, table settings, schema version.

Inputs (`Input`, parsed by `parse_input`) are what happens to a table; events are what it
publishes, each body model in `EVENT_BODIES` wrapped in an `Envelope`; `check_event` holds an
envelope to its type's rules (`EVENT_ENVELOPES`), and a `Heartbeat` is what an idle stream
sends. Positions, card codes and the games' other names are the types of
`studio.messages.names`. Unknown fields are refused everywhere; `SCHEMA_VERSION` versions all of
them; `json_schema()` documents all of them.
"""

from __future__ import annotations

from studio.messages.envelope import (
    SCHEMA_VERSION,
    Audience,
    Envelope,
    from_micros,
    to_micros,
)
from studio.messages.events import (
    EVENT_BODIES,
    EVENT_TYPES,
    PUBLIC_NOTICE,
    BettingClosed,
    BettingLightChanged,
    CardCorrected,
    CardDealt,
    CardDiscarded,
    CardRescanned,
    CardRevealed,
    CommandAccepted,
    CommandRejected,
    DecisionWindowClosed,
    DecisionWindowOpened,
    DeckChanged,
    DeviceHealthChanged,
    EventBody,
    IncidentKind,
    IncidentReported,
    RescanFinished,
    RescanStarted,
    RoundOpened,
    RoundPaused,
    RoundResult,
    RoundResumed,
    RoundVoided,
    body_json,
)
from studio.messages.inputs import (
    INPUT_TYPES,
    AlarmCause,
    AlarmRaised,
    CardDrawn,
    CardSeen,
    Command,
    DeviceStatus,
    Input,
    IntegrityChecked,
    Restarted,
    Tick,
    parse_input,
)
from studio.messages.names import POSITIONS, CardCode, Position
from studio.messages.schema import json_schema
from studio.messages.settings import BetLimits, TableSettings
from studio.messages.stream import EVENT_ENVELOPES, Heartbeat, check_event
from studio.terms import CommandName, Device, Role

__all__ = [
    "EVENT_BODIES",
    "EVENT_ENVELOPES",
    "EVENT_TYPES",
    "INPUT_TYPES",
    "POSITIONS",
    "PUBLIC_NOTICE",
    "SCHEMA_VERSION",
    "AlarmCause",
    "AlarmRaised",
    "Audience",
    "BetLimits",
    "BettingClosed",
    "BettingLightChanged",
    "CardCode",
    "CardCorrected",
    "CardDealt",
    "CardDiscarded",
    "CardDrawn",
    "CardRescanned",
    "CardRevealed",
    "CardSeen",
    "Command",
    "CommandAccepted",
    "CommandName",
    "CommandRejected",
    "DecisionWindowClosed",
    "DecisionWindowOpened",
    "DeckChanged",
    "Device",
    "DeviceHealthChanged",
    "DeviceStatus",
    "Envelope",
    "EventBody",
    "Heartbeat",
    "IncidentKind",
    "IncidentReported",
    "Input",
    "IntegrityChecked",
    "Position",
    "RescanFinished",
    "RescanStarted",
    "Restarted",
    "Role",
    "RoundOpened",
    "RoundPaused",
    "RoundResult",
    "RoundResumed",
    "RoundVoided",
    "TableSettings",
    "Tick",
    "body_json",
    "check_event",
    "from_micros",
    "json_schema",
    "parse_input",
    "to_micros",
]
