"""A game's log read back: decode by kind and schema version (upcasting on the way), then fold.

The table's events, state and ``evolve`` live in domain/table (the table is a decider composed
with each game); they are re-exported here for the readers that fold a log.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from domain import registry
from domain.decider import Upcaster
from domain.disputes.events import DisputeEvent, DisputeEvents, is_dispute_type
from domain.table.events import (
    GameCreated,
    GameStarted,
    LobbyEvent,
    LobbyEvents,
    SeatJoined,
    SeatLeft,
    is_lobby_type,
)
from domain.table.state import Status, Table, created, evolve, fold
from projections import upcast

__all__ = [
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
    "created",
    "decode",
    "event_tag",
    "evolve",
    "fold",
    "fold_rows",
    "is_dispute_type",
    "is_lobby_type",
    "schema_version",
    "step",
]

lobby_decoder = msgspec.json.Decoder(LobbyEvents)
dispute_decoder = msgspec.json.Decoder(DisputeEvents)

# The lobby events' own schema versions and upcasters (as a game's, in domain/decider.py).
LOBBY_SCHEMA_VERSIONS: dict[str, int] = {}
LOBBY_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def event_tag(event: msgspec.Struct) -> str:
    return event_tag_of(type(event))


def event_tag_of(struct: type[msgspec.Struct]) -> str:
    tag = struct.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


_decoders: dict[str, tuple[msgspec.json.Decoder[Any], Mapping[str, int]]] = {}


def game_decoder(kind: str) -> tuple[msgspec.json.Decoder[Any], Mapping[str, int]]:
    """The game's event decoder and its current schema versions (looked up once per kind)."""
    entry = _decoders.get(kind)
    if entry is None:
        decider = registry.get(kind)
        entry = _decoders[kind] = (msgspec.json.Decoder(decider.event_type), decider.schema_versions)
    return entry


def schema_version(kind: str, event_type: str) -> int:
    """The schema version an event of ``event_type`` is written with today."""
    if is_lobby_type(event_type) or is_dispute_type(event_type):
        return LOBBY_SCHEMA_VERSIONS.get(event_type, 1)
    return registry.get(kind).schema_versions.get(event_type, 1)


def step(table: Table | None, event_type: str, data: str | bytes, version: int) -> tuple[Table, Any]:
    """The one fold's step, used by every reader of a log: decode the stored event by the table's
    kind and its schema version (upcasting on the way), then evolve. Returns the table after it
    and the event as today's Struct."""
    event = decode(table.kind if table is not None else None, event_type, data, version)
    return evolve(table, event), event


def fold_rows(table: Table | None, rows: Iterable[tuple[str, int, str]]) -> Table | None:
    """``step`` over ``(type, schema_version, data)`` rows (``EventStore.read_bodies``)."""
    for event_type, version, data in rows:
        table, _ = step(table, event_type, data, version)
    return table


def decode(kind: str | None, event_type: str, data: str | bytes, version: int) -> Any:
    """A stored event as today's Struct: the one place where rows become events.

    Lobby events for any game, game events by the game's kind; an event of an older schema
    ``version`` goes through the upcasters first (projections/upcast.py). At the current version
    this is a bare decode and one dict look-up.
    """
    if is_dispute_type(event_type):  # written at schema version 1 so far
        return dispute_decoder.decode(data)
    if is_lobby_type(event_type) or kind is None:
        current = LOBBY_SCHEMA_VERSIONS.get(event_type, 1)
        if version == current:
            return lobby_decoder.decode(data)
        body = upcast.upcast(event_type, version, current, LOBBY_UPCASTERS, data)
        return lobby_decoder.decode(msgspec.json.encode(body))
    decoder, versions = _decoders.get(kind) or game_decoder(kind)
    current = versions.get(event_type, 1)
    if version == current:
        return decoder.decode(data)
    body = upcast.upcast(event_type, version, current, registry.get(kind).upcasters, data)
    # Back through the cached decoder: msgspec.convert into a union rebuilds its plan each call.
    return decoder.decode(msgspec.json.encode(body))
