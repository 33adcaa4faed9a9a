"""Events as a given viewer may see them: the machinery, not the rules.

The rules of what a viewer may see are the game's ``redact``/``view``; this module applies them
to stored events (lobby events are public) and wraps them for the wire.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from domain.decider import Decider
from domain.disputes import views as dispute_views
from domain.viewers import Moderator, Viewer
from projections.numbering import private_seat, sees
from projections.table import DisputeEvent, GameCreated, Table, is_lobby_type

# What ``lobby.created`` shows of a seeded game's ``seed`` to anyone but a moderator.
HIDDEN_SEED = "hidden"


class EventOut(msgspec.Struct, frozen=True):
    """One event on the wire: its number for this viewer (projections/numbering: the log's seq
    for moderators), type, time and (redacted) body."""

    seq: int
    type: str
    recorded_at: float
    data: Any


def _tag(event: msgspec.Struct) -> str:
    tag = type(event).__struct_config__.tag
    return tag if isinstance(tag, str) else ""


def redact(decider: Decider | None, event: Any, viewer: Viewer) -> Any | None:
    """The event as ``viewer`` may see it, or None; lobby events are public, dispute events are
    cut by domain/disputes/views.py."""
    if isinstance(event, DisputeEvent):
        return dispute_views.redact(event, viewer)
    if isinstance(event, GameCreated) and event.options.get("seed") is not None:
        # A seeded game's seed would let anyone replay its shuffles: moderators only.
        if isinstance(viewer, Moderator):
            return event
        return msgspec.structs.replace(event, options={**event.options, "seed": HIDDEN_SEED})
    if decider is None or is_lobby_type(_tag(event)):
        return event
    result: Any | None = decider.redact(event, viewer)
    return result


def envelope(
    decider: Decider | None, seq: int, recorded_at: float, event: Any, viewer: Viewer
) -> EventOut | None:
    shown = redact(decider, event, viewer)
    if shown is None:
        return None
    return EventOut(seq=seq, type=_tag(shown) or _tag(event), recorded_at=recorded_at, data=shown)


def envelopes(
    table: Table | None, items: Iterable[tuple[int, float, Any]], viewer: Viewer, before: int = 0
) -> list[EventOut]:
    """``(seq, recorded_at, event)`` triples (consecutive in the log) redacted for ``viewer`` and
    numbered for it, from ``before + 1`` (its number of the event before the first); events it
    may not see are left out and leave no gap."""
    decider = table.decider if table is not None else None
    return _numbered(decider, _known(decider, items, viewer), viewer, before)


def envelopes_up_to(
    table: Table, items: Iterable[tuple[int, float, Any]], viewer: Viewer, version: int
) -> tuple[int, list[EventOut]]:
    """``envelopes`` of the last events up to ``viewer``'s ``version``, numbered back from it,
    and ``before``, its number of the event before the first (a command's answer)."""
    decider = table.decider
    known = _known(decider, items, viewer)
    before = version - len(known)
    return before, _numbered(decider, known, viewer, before)


def _known(
    decider: Decider | None, items: Iterable[tuple[int, float, Any]], viewer: Viewer
) -> list[tuple[float, Any]]:
    """The events ``viewer`` may know exist, each with its time."""
    return [(at, event) for _, at, event in items if sees(private_seat(decider, event), viewer)]


def _numbered(
    decider: Decider | None, known: list[tuple[float, Any]], viewer: Viewer, before: int
) -> list[EventOut]:
    out: list[EventOut] = []
    for number, (at, event) in enumerate(known, before + 1):
        shown = envelope(decider, number, at, event, viewer)
        if shown is not None:
            out.append(shown)
    return out
