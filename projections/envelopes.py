"""Events and views as a given viewer may see them: the machinery, not the rules.

The rules of what a viewer may see are the game's ``redact``/``view``; this module applies them
to stored events (lobby events are public) and wraps them for the wire.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from domain.viewers import Viewer
from projections.table import Table, is_lobby_type


class EventOut(msgspec.Struct, frozen=True):
    """One event on the wire: its seq in the game's log, type, time and (redacted) body."""

    seq: int
    type: str
    recorded_at: float
    data: Any


def redact(table: Table | None, event: Any, viewer: Viewer) -> Any | None:
    if table is None or (isinstance(event, msgspec.Struct) and is_lobby_type(_tag(event))):
        return event
    result: Any | None = table.decider.redact(event, viewer)
    return result


def _tag(event: msgspec.Struct) -> str:
    tag = type(event).__struct_config__.tag
    return tag if isinstance(tag, str) else ""


def envelopes(table: Table | None, items: Iterable[tuple[int, float, Any]], viewer: Viewer) -> list[EventOut]:
    """``(seq, recorded_at, event)`` triples redacted for ``viewer``; hidden ones are left out."""
    out: list[EventOut] = []
    for seq, recorded_at, event in items:
        shown = redact(table, event, viewer)
        if shown is not None:
            out.append(
                EventOut(seq=seq, type=_tag(shown) or _tag(event), recorded_at=recorded_at, data=shown)
            )
    return out
