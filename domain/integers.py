"""JSON's integers as msgspec reads them: JSON Schema's ``integer`` is any number without a
fraction (``2.0`` included), which msgspec refuses for an ``int``; such floats become ints."""

from __future__ import annotations

import functools
from typing import Any

import msgspec


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def _takes_integers(info: msgspec.inspect.Type) -> bool:
    if isinstance(info, msgspec.inspect.Metadata):  # a description, say
        info = info.type
    if isinstance(info, msgspec.inspect.UnionType):  # int | None
        return any(_takes_integers(member) for member in info.types)
    if isinstance(info, msgspec.inspect.ListType):
        info = info.item_type
    return isinstance(info, msgspec.inspect.IntType)


@functools.cache
def _integer_fields(struct_type: type[msgspec.Struct]) -> tuple[str, ...]:
    """The names (as sent) of ``struct_type``'s fields that take integers (inspected once a type)."""
    return tuple(
        field.encode_name
        for field in msgspec.structs.fields(struct_type)
        if _takes_integers(msgspec.inspect.type_info(field.type))
    )


def integers_as_ints(struct_type: type[msgspec.Struct], value: Any) -> Any:
    """``value`` (the fields of a ``struct_type``, as decoded) with the integral floats of its
    integer fields (and lists of them) as ints; a copy, ``value`` itself is left as it was."""
    if not isinstance(value, dict):
        return value
    fields = _integer_fields(struct_type)
    return {name: _integral(item) if name in fields else item for name, item in value.items()}
