"""What a table's streams carry, checked type by type: per-type envelopes and the heartbeat.

`Envelope` is the container the journal and the bus move, whatever its type. The table's own
contract is stricter: for each event type, an envelope whose `type` names it, whose `audience` is
one the type may go to, whose `body` is that type's model and suits the audience
(`EventBody.audience_problem`), and whose `schema_version` is `SCHEMA_VERSION`.
`EVENT_ENVELOPES` holds one such model per type, `check_event` applies them, and the JSON
Schema's `envelope` is their union, discriminated by `type`.

A `Heartbeat` is the payload a stream sends when idle (`studio.bus.wire.heartbeat_frames`): not
an envelope, because it is no event and has no sequence number of its own.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union, cast

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    create_model,
    model_validator,
)

from studio.errors import InputError
from studio.messages.envelope import SCHEMA_VERSION, Envelope
from studio.messages.events import EVENT_BODIES, EventBody


class Heartbeat(BaseModel):
    """A stream's idle message: its table, the last `seq` this stream carried (0: none), when.

    Topic `<table>.heartbeat`; its third frame repeats `last_seq`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    table: str = Field(min_length=1)
    last_seq: int = Field(ge=0, strict=True)
    ts: AwareDatetime


def _audience_rules(schema: dict[str, Any], model: type[Any]) -> None:
    # Pydantic cannot derive "if public then ..." from a Python check, so each body class states
    # the same rule as JSON Schema (`AUDIENCE_SCHEMA`) and it is attached here, per audience.
    body = cast(type[EventBody], model.model_fields["body"].annotation)
    rules = [
        {
            "if": {"properties": {"audience": {"const": audience}}, "required": ["audience"]},
            "then": {"properties": {"body": rule}},
        }
        for audience, rule in body.AUDIENCE_SCHEMA.items()
    ]
    if rules:
        schema["allOf"] = rules


class EventEnvelope(Envelope):
    """Base of the per-type envelopes in `EVENT_ENVELOPES`; never used on its own.

    Its subclasses narrow `type`, `audience`, `body` and `schema_version` for one event type, and
    this base requires the body to suit the audience. Only for checking: the journal and the bus
    keep using `Envelope`, whose `body` is the plain JSON dict.
    """

    model_config = ConfigDict(json_schema_extra=_audience_rules)

    @model_validator(mode="after")
    def _body_suits_audience(self) -> EventEnvelope:
        body = cast(EventBody, self.body)
        problem = body.audience_problem(self.audience)
        if problem is not None:
            raise ValueError(problem)
        return self


def _literal(*values: object) -> Any:
    # mypy accepts only literals written out in Literal[...]; these come from the body classes.
    return cast(Any, Literal)[values]


def _envelope_for(body: type[EventBody]) -> type[EventEnvelope]:
    # Built from the body classes, so a new event type gets its envelope (and its branch of the
    # schema) by being in EVENT_BODIES.
    return create_model(
        f"{body.__name__}Envelope",
        __base__=EventEnvelope,
        __doc__=f"The envelope of a `{body.TYPE}` event.",
        __module__=__name__,
        type=(_literal(body.TYPE), ...),
        audience=(_literal(*body.AUDIENCES), ...),
        body=(body, ...),
        schema_version=(_literal(SCHEMA_VERSION), SCHEMA_VERSION),
    )


EVENT_ENVELOPES: dict[str, type[EventEnvelope]] = {
    body.TYPE: _envelope_for(body) for body in EVENT_BODIES
}
"""Event type -> the model of an envelope of that type (body model, audiences, version)."""

AnyEventEnvelope: Any = Annotated[
    Union[tuple(EVENT_ENVELOPES.values())],  # noqa: UP007  (a union of run-time models)
    Field(discriminator="type"),
]
"""Any table event in its envelope, told apart by `type`."""

EVENT_ENVELOPE: TypeAdapter[EventEnvelope] = TypeAdapter(AnyEventEnvelope)
"""Validates an envelope by its type's model; its JSON Schema is the document's `envelope`."""


def check_event(envelope: Envelope) -> EventBody:
    """The body of `envelope` as its type's model, once the envelope passes its type's checks.

    The checks are those of the JSON Schema's `envelope`: a known event type, an audience the
    type may go to, a body valid for the type (positions, card codes, the judgement's shape)
    that suits the audience (no face-down card's value in a public `card_dealt`), and the
    current schema version. Raises `InputError` naming the first problem, in one line.
    """
    try:
        typed = EVENT_ENVELOPE.validate_python(envelope.model_dump())
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "envelope"
        raise InputError(
            f"bad {envelope.type} event (seq {envelope.seq}) at {where}: {first['msg']}"
        ) from err
    return cast(EventBody, typed.body)
