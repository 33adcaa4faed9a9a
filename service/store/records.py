"""What the log holds and what an append answers: its rows as values, and its refusals as errors.

``StoredEvent`` is one row of ``events``; ``NewEvent`` one to append; ``AppendResult`` what an
append answered (its rows, or an earlier command's with the same key); ``ChainReport`` what the
hash chain's check found. The SQL functions refuse with their own SQLSTATEs (``SQLSTATES``); each
becomes one ``StoreError`` here (``refusal``). The queries live in service/store/events.py.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

GENESIS_HASH = bytes(32)


class StoreError(Exception):
    """Base of the store's own errors."""


class ConcurrencyConflict(StoreError):
    """The game moved on since ``expected_seq``: reload and decide again."""

    def __init__(self, game_id: uuid.UUID, expected: int, current: int) -> None:
        super().__init__(f"Game {game_id} is at seq {current}, not {expected}.")
        self.game_id = game_id
        self.expected = expected
        self.current = current


class InvalidExpectedSeq(StoreError):
    """A negative expected seq, or one ahead of the game (``current``: the game's seq then)."""

    def __init__(self, message: str, current: int | None = None) -> None:
        super().__init__(message)
        self.current = current


class HeadNotInLog(StoreError):
    """The game's head in ``streams`` is not the last event of its log (PL412): a commit the
    head records is missing from the log, so nothing may be chained onto it."""

    def __init__(self, game_id: uuid.UUID, log_seq: int) -> None:
        super().__init__(f"The head of game {game_id} is not the last event of its log (at {log_seq}).")
        self.game_id = game_id
        self.log_seq = log_seq


class GameUnderIncident(StoreError):
    """The game has an open incident (PL423): no append until a moderator clears it."""

    def __init__(self, game_id: uuid.UUID) -> None:
        super().__init__(f"Game {game_id} has an open incident.")
        self.game_id = game_id


class NewEvent(msgspec.Struct, frozen=True):
    """An event to append: its type tag and its msgspec-encoded JSON."""

    type: str
    data: bytes
    schema_version: int = 1


class StoredEvent(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    seq: int
    type: str
    schema_version: int
    data: str  # the event's JSON, as stored
    metadata_json: str  # decoded on demand by ``metadata``: replays rarely need it
    recorded_at: datetime
    prev_hash: bytes
    hash: bytes

    @property
    def metadata(self) -> dict[str, Any]:
        """On an append's first event its actor, command id and recorded command; on the others
        its actor (events written before migration 0024 carry more: docs/export-format.md)."""
        return _metadata_decoder.decode(self.metadata_json)


class AppendResult(msgspec.Struct, frozen=True):
    events: list[StoredEvent]
    duplicate: bool  # True when command_id had been applied before: nothing was appended
    fingerprint: str | None  # the fingerprint stored with that command


class Cursor(msgspec.Struct, frozen=True):
    """Where a reader of ``read_all`` stands: after ``seq`` of ``game_id``, in key order."""

    game_id: uuid.UUID = uuid.UUID(int=0)
    seq: int = 0

    @classmethod
    def after(cls, event: StoredEvent) -> Cursor:
        return cls(event.game_id, event.seq)


START = Cursor()


class ChainReport(msgspec.Struct, frozen=True):
    ok: bool
    events: int
    first_bad_seq: int | None
    last_hash: str  # hex
    reason: str | None = None


_metadata_decoder = msgspec.json.Decoder(dict[str, Any])

# Column order of every event query; ``stored_row`` reads the rows by position (it is hot).
EVENT_COLUMNS = "game_id, seq, type, schema_version, data, metadata, recorded_at, prev_hash, hash"


def stored_row(row: asyncpg.Record, game_id: uuid.UUID | None = None) -> StoredEvent:
    return StoredEvent(
        game_id if game_id is not None else row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
    )


def event_columns(alias: str) -> str:
    """The columns ``stored_event`` reads, each qualified by the table's ``alias``."""
    return ", ".join(f"{alias}.{column.strip()}" for column in EVENT_COLUMNS.split(","))


def stored_event(row: asyncpg.Record) -> StoredEvent:
    """A row of ``event_columns``."""
    return stored_row(row)


def appended_row(row: asyncpg.Record, game_id: uuid.UUID, data: str = "", metadata: str = "") -> StoredEvent:
    """A row returned by ``playlog_append``: a new row comes back without the data and metadata
    the caller sent (``data``, ``metadata``); an earlier command's rows come back whole. Its
    first column, ``position``, is always null (migration 0026)."""
    return StoredEvent(
        game_id,
        row[1],
        row[2],
        row[3],
        data if row[4] is None else row[4],
        metadata if row[5] is None else row[5],
        row[6],
        row[7],
        row[8],
    )


def append_result(
    rows: list[Any], game_id: uuid.UUID, bodies: list[str], metadata: str, rest: str
) -> AppendResult:
    """An append's rows (``playlog_append``'s, or its item's of ``playlog_append_batch``):
    ``metadata`` is its first event's, ``rest`` the others' (the actor alone)."""
    duplicate = bool(rows) and rows[0][9]
    if duplicate:
        stored = [appended_row(row, game_id) for row in rows]
    else:
        stored = [
            appended_row(row, game_id, body, metadata if n == 0 else rest)
            for n, (row, body) in enumerate(zip(rows, bodies, strict=True))
        ]
    return AppendResult(events=stored, duplicate=duplicate, fingerprint=rows[0][10] if rows else None)


def ahead(expected: int, current: int) -> InvalidExpectedSeq:
    return InvalidExpectedSeq(f"Expected seq {expected} is ahead of the game (at {current}).", current)


def refusal(game_id: uuid.UUID, expected: int, conflict: str, seq: int) -> StoreError:
    """The error for an append's conflict ('stale', 'ahead', 'torn', 'incident'); ``seq``: the
    game's seq (the log's last one for 'torn')."""
    if conflict == "stale":
        return ConcurrencyConflict(game_id, expected, seq)
    if conflict == "ahead":
        return ahead(expected, seq)
    if conflict == "torn":
        return HeadNotInLog(game_id, seq)
    if conflict == "incident":
        return GameUnderIncident(game_id)
    raise ValueError(f"playlog_append_batch answered an unknown conflict: {conflict!r}")


SQLSTATES = {"PL409": "stale", "PL422": "ahead", "PL412": "torn", "PL423": "incident"}
