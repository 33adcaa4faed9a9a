"""A game's log read back: decode by kind and schema version (upcasting on the way), then fold.

The table's events and state live in domain/table; the decider that folds them, the table
composed with the game and the disputes, is the kind's (domain/registry.py). ``fold`` is the one
fold of stored rows every reader goes through; ``evolve`` and the rest are for readers that hold
events already.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from domain import registry
from domain.disputes.events import DisputeEvent, DisputeEvents, is_dispute_type
from domain.table.events import SCHEMA_VERSIONS as LOBBY_SCHEMA_VERSIONS
from domain.table.events import UPCASTERS as LOBBY_UPCASTERS
from domain.table.events import (
    GameCreated,
    GameStarted,
    LobbyEvent,
    LobbyEvents,
    SeatJoined,
    SeatLeft,
    is_lobby_type,
)
from domain.table.state import Status, Table
from projections import upcast

__all__ = [
    "LOBBY_SCHEMA_VERSIONS",
    "LOBBY_UPCASTERS",
    "DisputeEvent",
    "DisputeEvents",
    "GameCreated",
    "GameStarted",
    "LobbyEvent",
    "LobbyEvents",
    "SeatJoined",
    "SeatLeft",
    "Status",
    "Table",
    "decode",
    "event_tag",
    "event_tag_of",
    "evolve",
    "fold",
    "fold_rows",
    "is_dispute_type",
    "is_lobby_type",
    "read_on",
    "schema_version",
    "step",
]


def event_tag(event: msgspec.Struct) -> str:
    return registry.tag_of(type(event))


def event_tag_of(struct: type[msgspec.Struct]) -> str:
    return registry.tag_of(struct)


def schema_version(kind: str, event_type: str) -> int:
    """The schema version an event of ``event_type`` is written with today."""
    if is_lobby_type(event_type) or is_dispute_type(event_type):
        return LOBBY_SCHEMA_VERSIONS.get(event_type, 1)
    return registry.of(kind).schema_versions.get(event_type, 1)


def _kind_of(table: Table | None, event: Any) -> registry.Kind:
    return registry.of(table.kind if table is not None else event.kind)


def evolve(table: Table | None, event: Any) -> Table:
    """One event (lobby, dispute or game) folded into ``table`` by its kind's composed decider."""
    return _kind_of(table, event).table.evolve(table, event)


def fold(events: Iterable[Any], table: Table | None = None) -> Table | None:
    """``evolve`` over events already decoded."""
    for event in events:
        table = evolve(table, event)
    return table


def step(table: Table | None, event_type: str, data: str | bytes, version: int) -> tuple[Table, Any]:
    """One stored event decoded by the table's kind (the first opens the table) and folded.
    Returns the table after it and the event as today's Struct."""
    kind = registry.of(table.kind) if table is not None else None
    event = decode_by(kind, event_type, data, version)
    composed = kind.table if kind is not None else _kind_of(None, event).table
    return composed.evolve(table, event), event


def fold_rows(
    base: Table | None, rows: Iterable[tuple[str, int, str | bytes]], up_to: int | None = None
) -> Table | None:
    """The one fold of stored rows: ``(type, schema_version, data)`` rows, in seq order, folded on
    from ``base`` (None: the log's start) up to seq ``up_to`` (None: every row). The kind is
    looked up once, when the table is known."""
    table = base
    kind = registry.of(base.kind) if base is not None else None
    for event_type, version, data in rows:
        if up_to is not None and table is not None and table.version >= up_to:
            break
        event = decode_by(kind, event_type, data, version)
        if kind is None:
            kind = _kind_of(None, event)
        table = kind.table.evolve(table, event)
    return table


def read_on(base: Table | None, stored: Iterable[Any]) -> tuple[Table | None, list[Any]]:
    """Stored events (``seq``, ``type``, ``schema_version``, ``data``; in seq order) each decoded,
    and the table folded on from ``base`` over those past its version: a reader that needs every
    event (a feed) folds only what its base does not hold already."""
    table = base
    kind = registry.of(base.kind) if base is not None else None
    events = []
    for s in stored:
        event = decode_by(kind, s.type, s.data, s.schema_version)
        if kind is None:
            kind = _kind_of(None, event)
        if table is None or s.seq > table.version:
            table = kind.table.evolve(table, event)
        events.append(event)
    return table, events


def decode(kind: str | None, event_type: str, data: str | bytes, version: int) -> Any:
    """A stored event as today's Struct (``kind``: the game's; None before ``lobby.created``)."""
    return decode_by(registry.of(kind) if kind is not None else None, event_type, data, version)


def decode_by(kind: registry.Kind | None, event_type: str, data: str | bytes, version: int) -> Any:
    """A stored event as today's Struct: the one place where rows become events.

    Lobby and dispute events for any game, game events by the game's ``kind``; an event of an
    older schema ``version`` goes through the upcasters first (projections/upcast.py). At the
    current version this is a bare decode and one dict look-up.
    """
    if is_dispute_type(event_type):  # written at schema version 1 so far
        return registry.DISPUTE_DECODER.decode(data)
    if is_lobby_type(event_type) or kind is None:
        current = LOBBY_SCHEMA_VERSIONS.get(event_type, 1)
        if version == current:
            return registry.LOBBY_DECODER.decode(data)
        body = upcast.upcast(event_type, version, current, LOBBY_UPCASTERS, data)
        return registry.LOBBY_DECODER.decode(msgspec.json.encode(body))
    current = kind.schema_versions.get(event_type, 1)
    if version == current:
        return kind.events.decode(data)
    body = upcast.upcast(event_type, version, current, kind.upcasters, data)
    # Back through the kind's decoder: msgspec.convert into a union rebuilds its plan each call.
    return kind.events.decode(msgspec.json.encode(body))
