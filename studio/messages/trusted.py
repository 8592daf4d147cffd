"""`trusted`: a message model built from values the table made itself, without revalidation.

On every card's way to the streams the table builds a few of its own messages (the card's input
from the shoe driver's typed reading, the controller's envelopes) from values that are already
what validation would make of them. pydantic's `model_construct` skips validation but still
walks every field for aliases and defaults, which costs a card's path more than the rest of
the construction (about 3 us a model warm, several times that cold after the idle gap between
cards). `trusted` sets the instance up as `model_construct` does, from a dict that names every
field, and nothing else.

Only for the table's own values: anything from outside (the journal's text, a stream's frame, a
command, the shoe's bytes before the driver decoded them) is validated by its model.
tests/test_trusted_messages.py holds each trusted message equal to the validated one.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

_object_setattr = object.__setattr__


def trusted_model(model: type[M]) -> type[M]:
    """Return `model` if `trusted` can build it as `model_construct` would; raise otherwise.

    `trusted` sets a model's fields and nothing more: a model with field aliases, private
    attributes, a post-init hook, extra fields allowed or a root is refused (TypeError), at
    import, so a model that changes so fails at once rather than building half a message.
    """
    aliased = [n for n, f in model.model_fields.items() if f.alias or f.validation_alias]
    if (
        aliased
        or model.__private_attributes__
        or model.__pydantic_post_init__
        or model.__pydantic_root_model__
        or model.model_config.get("extra") == "allow"
    ):
        raise TypeError(f"{model.__name__} cannot be built by `trusted`")
    return model


def trusted(model: type[M], fields: dict[str, Any]) -> M:
    """An instance of `model` (see `trusted_model`) holding `fields` as they are: no validation.

    `fields` must name every field of `model`, each with the value validation would give it
    (defaults included); the dict becomes the instance's own. Every field counts as set, as in
    a model validated from its JSON form. Raises TypeError when `fields` names other fields
    than the model's (cheaper than a missing field surfacing later as an AttributeError).
    """
    if fields.keys() != model.__pydantic_fields__.keys():
        raise TypeError(f"{model.__name__} fields {sorted(fields)} are not its own")
    instance = model.__new__(model)
    _object_setattr(instance, "__dict__", fields)
    _object_setattr(instance, "__pydantic_fields_set__", set(fields))
    _object_setattr(instance, "__pydantic_extra__", None)
    _object_setattr(instance, "__pydantic_private__", None)
    return instance
