"""The JSON Schema of every message: envelope, inputs, event bodies and table settings."""

from __future__ import annotations

from typing import Any

from studio.messages.envelope import SCHEMA_VERSION, Envelope
from studio.messages.events import EVENT_BODIES
from studio.messages.inputs import INPUT_TYPES
from studio.messages.settings import TableSettings


def json_schema() -> dict[str, Any]:
    """The schema of every message as one JSON document.

    Keys: `envelope`; `inputs` by `kind`; `events` by `type`, each with `x-audiences` (where it
    may be published); `settings`; and `schema_version`.
    """
    inputs = {}
    for model in INPUT_TYPES:
        kind = model.model_fields["kind"].default
        inputs[str(kind)] = model.model_json_schema()
    events = {}
    for body in EVENT_BODIES:
        schema = body.model_json_schema()
        schema["x-audiences"] = list(body.AUDIENCES)
        events[body.TYPE] = schema
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "studio table messages",
        "schema_version": SCHEMA_VERSION,
        "envelope": Envelope.model_json_schema(),
        "inputs": inputs,
        "events": events,
        "settings": TableSettings.model_json_schema(),
    }
