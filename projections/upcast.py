"""Stored events of any schema version, in today's shape.

Every stored event carries its type's schema version. When it is the current one (nearly always)
the body decodes straight into its Struct, with no work here. Otherwise the body is read as a
plain JSON object, passed through the game's upcasters ``(type, v) -> v + 1`` up to the current
version, and converted into the Struct. A version newer than the code knows is refused: a log
written by newer code must not be misread by older code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from domain.decider import Upcaster

_object_decoder = msgspec.json.Decoder(dict[str, Any])


class UnknownSchemaVersion(ValueError):
    """A stored event this code cannot read in today's shape."""


def upcast(
    event_type: str,
    version: int,
    current: int,
    upcasters: Mapping[tuple[str, int], Upcaster],
    data: str | bytes,
) -> dict[str, Any]:
    """The body of a stored ``event_type`` event of schema ``version``, as of ``current``."""
    if version > current:
        raise UnknownSchemaVersion(
            f"{event_type} has schema version {version}; this code knows up to {current}."
        )
    body = _object_decoder.decode(data)
    while version < current:
        step = upcasters.get((event_type, version))
        if step is None:
            raise UnknownSchemaVersion(f"No upcaster for {event_type} from schema version {version}.")
        body = step(body)
        version += 1
    body["type"] = event_type
    return body
