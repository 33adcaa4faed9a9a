"""Exported games in and out of a database: ``export_lines`` reads a game's rows as the
portable file (``projections/export/``), ``import_game`` writes one back. ``import_game`` refuses a
file that does not verify or a game that exists, and writes the exact rows, so the chain verifies
in the new database too.
"""

from __future__ import annotations

import gzip
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

from domain import registry
from projections import table as tables
from projections.export.format import (
    _EPOCH,
    AccessLine,
    ExportError,
    ExportFile,
    Header,
    canonical,
    schema_versions,
)
from projections.export.verify import VerifyReport, replay, verify
from projections.personal import seals_of
from projections.replay import plain
from projections.table import Table


def open_lines(path: Path) -> Iterator[bytes]:
    """The lines of an export file (``.gz``: gzip-compressed), split at ``\\n`` only and
    decoded by the reader (so a line that is not UTF-8 is named by its number)."""
    with gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb") as fh:
        yield from fh


_EXPORT_QUERY = (
    "SELECT seq, type, schema_version, data::text, metadata::text,"
    " extract(epoch FROM recorded_at)::text, prev_hash, hash"
    " FROM events WHERE game_id = $1 AND ($2::integer IS NULL OR seq <= $2) ORDER BY seq"
)
_PERSONAL_QUERY = (
    "SELECT seal, subject, field, salt, text, shown FROM personal_texts WHERE game_id = $1 AND seal = ANY($2)"
    " ORDER BY seal"
)
_ACCESS_QUERY = (
    "SELECT n, at::text, moderator, operation, seq_from, seq_to, reason, dispute_id::text, note,"
    " prev_hash, hash FROM access_records WHERE game_id = $1 ORDER BY n"
)


def _event_line(row: Sequence[Any]) -> str:
    """One event record; ``data`` and ``metadata`` embedded as jsonb printed them."""
    seq, event_type, version, data, metadata, recorded_at, prev_hash, digest = row
    head = msgspec.json.encode(
        {
            "record": "event",
            "seq": seq,
            "type": event_type,
            "schema_version": version,
            "recorded_at": recorded_at,
            "prev_hash": bytes(prev_hash).hex(),
            "hash": bytes(digest).hex(),
        }
    ).decode()
    return f'{head[:-1]},"metadata":{metadata},"data":{data}}}\n'


def _access_record(row: Sequence[Any]) -> str:
    n, at, moderator, operation, seq_from, seq_to, reason, dispute_id, note, prev_hash, digest = row
    record = {
        "record": "access",
        "n": n,
        "at": at,
        "moderator": moderator,
        "operation": operation,
        "seq_from": seq_from,
        "seq_to": seq_to,
        "reason": reason,
        "dispute_id": dispute_id,
        "note": note,
        "prev_hash": bytes(prev_hash).hex(),
        "hash": bytes(digest).hex(),
    }
    return msgspec.json.encode(record).decode() + "\n"


def _seals(rows: Sequence[Sequence[Any]]) -> list[str]:
    """Every seal the exported events and their recorded commands hold."""
    found: list[str] = []
    for _, event_type, _, data, metadata, *_ in rows:
        if event_type in registry.PERSONAL_EVENTS and "sealed:" in data:
            found += seals_of(event_type, msgspec.json.decode(data), msgspec.json.decode(metadata))
    return found


def _personal_line(row: Sequence[Any]) -> str:
    seal, subject, field, salt, text, shown = row
    record = {
        "record": "personal",
        "seal": seal,
        "subject": subject,
        "field": field,
        "salt": None if salt is None else bytes(salt).hex(),
        "text": text,
        "shown": shown,
    }
    return msgspec.json.encode(record).decode() + "\n"


async def export_lines(
    db: Any, game_id: uuid.UUID, *, now: float, until: int | None = None, access: bool = True
) -> AsyncIterator[str]:
    """The export of one game from a pool or connection, line by line (raises if unknown):
    its events up to seq ``until`` (default: all), and with ``access`` its access records."""
    rows = await db.fetch(_EXPORT_QUERY, game_id, until)
    if not rows:
        raise ExportError(f"Game {game_id} does not exist.")
    table: Table | None = None
    steps: list[tuple[int, str, Any, Table]] = []
    for seq, event_type, version, data, *_ in rows:
        table, event = tables.step(table, event_type, data, version)
        steps.append((seq, event_type, event, table))
    assert table is not None
    header = Header(
        game_id=str(game_id),
        kind=table.kind,
        options=table.raw_options,
        public=table.public,
        spectator_delay=table.spectator_delay,
        rules_version=table.rules_version,
        schema_versions=schema_versions(table.kind),
        events=len(rows),
        last_hash=bytes(rows[-1][7]).hex(),
        status=table.status,
        winners=list(table.outcome.winners) if table.outcome else None,
        scores=list(table.outcome.scores) if table.outcome and table.outcome.scores else None,
        exported_at=now,
    )
    yield msgspec.json.encode(header).decode() + "\n"
    for row in rows:
        yield _event_line(row)
    if seals := _seals(rows):
        for personal in await db.fetch(_PERSONAL_QUERY, game_id, seals):
            yield _personal_line(personal)
    hidden_order = table.decider.hidden.order
    for seq, event_type, event, after in steps:
        committed = getattr(event, "commitment", None)
        if not committed or hidden_order is None:
            continue
        reveal = {
            "record": "shuffle",
            "seq": seq,
            "type": event_type,
            "commitment": committed,
            "salt": getattr(event, "salt", None),
            "order": plain(list(hidden_order(after.state))),
        }
        yield msgspec.json.encode(reveal).decode() + "\n"
    if access:
        for record in await db.fetch(_ACCESS_QUERY, game_id):
            yield _access_record(record)


# -- import into a database ------------------------------------------------------------------


class ImportRefused(ExportError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _timestamp(epoch: Decimal) -> datetime:
    return _EPOCH + timedelta(microseconds=int(epoch * 1_000_000))


async def import_game(conn: asyncpg.Connection, export: ExportFile) -> VerifyReport:
    """Load a verified export as the exact rows it came from; refuses a bad file, a known game, or
    an unfinished game whose server seed is committed and not disclosed (docs/export-format.md)."""
    # An export made before commands were recorded stays importable; the audit names its level.
    report = verify(export, accept=("replayed",))
    if not report.ok:
        raise ImportRefused(
            "export_not_verified",
            f"The file does not verify ({report.lines()[-1].removeprefix('FAILED: ')}).",
        )
    if report.seed_committed and not report.seed_disclosed:
        # A running game's export carries the commitment to its server seed, not the seed: this
        # database could only go on with randomness the commitment does not explain.
        raise ImportRefused(
            "server_seed_not_disclosed",
            "The game has not ended: its server seed is committed but not in the file, so it cannot"
            " go on here. Export it again once it has ended.",
        )
    game_id = uuid.UUID(export.header.game_id)
    replayed = replay(export).table
    assert replayed is not None
    due = registry.for_kind(replayed.kind).deadline(replayed)  # the game's, or an open lobby's
    async with conn.transaction():
        if await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM streams WHERE game_id = $1)"
            " OR EXISTS (SELECT 1 FROM events WHERE game_id = $1)",
            game_id,
        ):
            raise ImportRefused("game_exists", f"Game {game_id} already exists in this database.")
        await conn.executemany(
            "INSERT INTO events (game_id, seq, type, schema_version, data, metadata,"
            " recorded_at, prev_hash, hash) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9)",
            [
                (
                    game_id,
                    e.seq,
                    e.type,
                    e.schema_version,
                    canonical(e.data),
                    canonical(e.metadata),
                    _timestamp(e.recorded_at),
                    e.prev_hash,
                    e.hash,
                )
                for e in export.events
            ],
        )
        last = export.events[-1]
        await conn.execute(
            "INSERT INTO streams (game_id, seq, last_hash, updated_at, due_at, wake_at)"
            " VALUES ($1, $2, $3, $4, to_timestamp($5), to_timestamp($5))",
            game_id,
            last.seq,
            last.hash,
            _timestamp(last.recorded_at),
            due,
        )
        # The database recomputes every digest from the rows it now holds: the proof that the
        # rows are exact (a mismatch rolls the whole import back).
        bad = await conn.fetchval(
            "SELECT min(seq) FROM events WHERE game_id = $1 AND hash <> playlog_event_digest("
            "prev_hash, game_id, seq, type, schema_version, data, metadata, recorded_at)",
            game_id,
        )
        if bad is not None:
            raise ImportRefused("import_mismatch", f"seq {bad} does not hash the same in this database.")
        await _import_access(conn, game_id, export.access)
        await conn.executemany(
            "INSERT INTO personal_texts (game_id, seal, subject, field, salt, text, shown)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [
                (game_id, p.seal, p.subject, p.field, p.salt, p.text, p.shown)
                for p in export.personal.values()
            ],
        )
    return report


async def _import_access(conn: asyncpg.Connection, game_id: uuid.UUID, records: list[AccessLine]) -> None:
    """The access records as exported, each digest recomputed by the database."""
    await conn.executemany(
        "INSERT INTO access_records (game_id, n, at, moderator, operation, seq_from, seq_to,"
        " reason, dispute_id, note, prev_hash, hash)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::uuid, $10, $11, $12)",
        [
            (
                game_id,
                r.n,
                r.at,
                r.moderator,
                r.operation,
                r.seq_from,
                r.seq_to,
                r.reason,
                r.dispute_id,
                r.note,
                r.prev_hash,
                r.hash,
            )
            for r in records
        ],
    )
    bad = await conn.fetchval(
        "SELECT min(n) FROM access_records WHERE game_id = $1 AND hash <> playlog_access_digest("
        "prev_hash, game_id, n, at, moderator, operation, seq_from, seq_to, reason, dispute_id, note)",
        game_id,
    )
    if bad is not None:
        raise ImportRefused(
            "import_mismatch", f"access record {bad} does not hash the same in this database."
        )
