"""The JSON Schema of every message: envelope, heartbeat, inputs, event bodies, table settings.

What the table sends (envelopes, bodies, heartbeats) is described as it is written: every field
the table always writes is required, including those with a default in Python
(`schema_version`, `round_paused.notice`). What the table reads (inputs, settings) is described
as it is accepted: a field with a default may be left out.
"""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from studio.messages.envelope import SCHEMA_VERSION, Envelope
from studio.messages.events import EVENT_BODIES, EVENT_TYPES
from studio.messages.inputs import INPUT_TYPES
from studio.messages.notices import Checkpoint, IntegrityReport, JournalAlarm
from studio.messages.settings import TableSettings
from studio.messages.stream import EVENT_ENVELOPE, Heartbeat
from studio.messages.view import TableView


class SentSchema(GenerateJsonSchema):
    """Schema generator for what the table writes: every model field is required.

    A model dumps every field, default or not, so a consumer may rely on each. TypedDict keys
    keep their own NotRequired marks: `to_json()` leaves those out when they do not apply.
    (Pydantic's `json_schema_serialization_defaults_required` would mark those required too.)
    """

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        """Whether `field` is listed in `required`: always for models, as declared otherwise."""
        if field["type"] == "typed-dict-field":
            return super().field_is_required(field, total)
        return True


def _sent(model: Any) -> JsonSchemaValue:
    return dict(model.model_json_schema(mode="serialization", schema_generator=SentSchema))


def envelope_schema() -> JsonSchemaValue:
    """The schema of every envelope the table publishes, self-contained (its own `$defs`).

    The fields every envelope has, with `type` one of the event types; and `oneOf` the per-type
    envelopes (`studio.messages.stream.EVENT_ENVELOPES`), with a `discriminator` on `type`: each
    fixes its `body` schema, the audiences its type may go to, and what the audience implies
    for the body (`if`/`then`: a public face-down `card_dealt` has `card` null).
    """
    union = EVENT_ENVELOPE.json_schema(mode="serialization", schema_generator=SentSchema)
    schema = _sent(Envelope)
    properties = dict(schema["properties"])
    properties["type"] = {
        "title": "Type",
        "description": "The event type: it selects the body's schema.",
        "type": "string",
        "enum": list(EVENT_TYPES),
    }
    properties["schema_version"] = {
        "title": "Schema Version",
        "type": "integer",
        "const": SCHEMA_VERSION,
    }
    schema["properties"] = properties
    schema["oneOf"] = union["oneOf"]
    schema["discriminator"] = union["discriminator"]
    schema["$defs"] = union["$defs"]
    return schema


def json_schema() -> dict[str, Any]:
    """The schema of every message as one JSON document.

    Keys: `envelope` (see `envelope_schema`); `heartbeat` (a stream's idle message);
    `inputs` by `kind`; `events` by `type`, each the body's schema with `x-audiences` (where it
    may be published); `settings`; `table_view` (what a table is doing now:
    `studio.messages.view.TableView`); `notices` by `kind` (what the restricted stream carries
    beside the events: `studio.messages.notices`); and `schema_version`. Each is a complete
    schema on its own.
    """
    inputs = {}
    for model in INPUT_TYPES:
        kind = model.model_fields["kind"].default
        inputs[str(kind)] = model.model_json_schema()
    events = {}
    for body in EVENT_BODIES:
        schema = _sent(body)
        schema["x-audiences"] = list(body.AUDIENCES)
        events[body.TYPE] = schema
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "studio table messages",
        "schema_version": SCHEMA_VERSION,
        "envelope": envelope_schema(),
        "heartbeat": _sent(Heartbeat),
        "notices": {
            str(model.model_fields["kind"].default): _sent(model)
            for model in (JournalAlarm, Checkpoint, IntegrityReport)
        },
        "inputs": inputs,
        "events": events,
        "settings": TableSettings.model_json_schema(),
        "table_view": _sent(TableView),
    }
