"""A game as a portable file: export, offline verification, import (docs/export-format.md).

The file is JSON Lines: one ``header`` line, then one ``event`` line per stored event (its
``data`` and ``metadata`` exactly as PostgreSQL's jsonb prints them), then one ``shuffle`` line
per shuffle commitment with its reveal (the salt and the committed order), then (a moderator's or
the operator's export) one ``access`` line per access record (service/access.py).

``verify`` needs no server and no database. It checks
- the hash chain: each event's hash is ``sha256(prev_hash || canonical text)``, the canonical
  text being what ``playlog_event_digest`` (migrations/versions/0001) hashes: jsonb's text form
  of ``{game_id, seq, type, schema_version, data, metadata, recorded_at}``, which ``canonical``
  reproduces (keys by byte length then bytes, ``", "`` and ``": "``, numbers as written);
- every shuffle commitment against its reveal, and the reveal against the replayed state;
- a full replay through today's rules (and upcasters) reaching the header's outcome;
- the access records' own chain (``hash = sha256(prev_hash || canonical text of the record)``,
  what ``playlog_access_digest`` hashes, migrations/versions/0015) and that each record could
  be true of this log: its range within the events logged by its time, its reason one of the
  list, a read before the end with a reason, a dispute it names raised before it.

``import_game`` refuses a file that does not verify or a game that exists, and writes the exact
rows, so the chain verifies in the new database too.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, get_args

import asyncpg
import msgspec

from domain import access as reasons
from domain import commitment, registry
from projections import table as tables
from projections.replay import plain
from projections.table import Table

FORMAT = "playlog-export"
FORMAT_VERSION = 1
GENESIS_HASH = bytes(32)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ExportError(Exception):
    """A file that cannot be read as an export, or a game that cannot be imported."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        super().__init__(message)
        self.seq = seq


# -- the canonical text ----------------------------------------------------------------------


def _number(value: Decimal) -> str:
    """A number as PostgreSQL's numeric prints it: plain notation, the literal's own scale."""
    if value.is_zero():
        value = abs(value)
    return format(value, "f")


def canonical(value: Any) -> str:
    """``value`` (parsed with ``parse_float=Decimal``) as jsonb's text output prints it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return _number(value)
    if isinstance(value, float):
        return _number(Decimal(repr(value)))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(f"{canonical(k)}: {canonical(value[k])}" for k in keys) + "}"
    raise TypeError(f"Not a JSON value: {type(value).__name__}")


def parse(text: str | bytes) -> Any:
    """JSON with every fractional number kept exactly as written."""
    return json.loads(text, parse_float=Decimal)


def event_digest(
    prev_hash: bytes,
    game_id: str,
    seq: int,
    event_type: str,
    schema_version: int,
    data: Any,
    metadata: Any,
    recorded_at: Decimal,
) -> bytes:
    """What ``playlog_event_digest`` computes, from parsed values."""
    body = {
        "game_id": game_id,
        "seq": seq,
        "type": event_type,
        "schema_version": schema_version,
        "data": data,
        "metadata": metadata,
        "recorded_at": recorded_at,
    }
    return hashlib.sha256(prev_hash + canonical(body).encode()).digest()


def access_digest(prev_hash: bytes, game_id: str, record: AccessLine) -> bytes:
    """What ``playlog_access_digest`` computes, from an access line."""
    body = {
        "game_id": game_id,
        "n": record.n,
        "at": record.at,
        "moderator": record.moderator,
        "operation": record.operation,
        "seq_from": record.seq_from,
        "seq_to": record.seq_to,
        "reason": record.reason,
        "dispute_id": record.dispute_id,
        "note": record.note,
    }
    return hashlib.sha256(prev_hash + canonical(body).encode()).digest()


# -- the records -----------------------------------------------------------------------------


class Header(msgspec.Struct, frozen=True, kw_only=True):
    record: str = "header"
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    game_id: str
    kind: str
    options: dict[str, Any]
    public: bool
    spectator_delay: float
    rules_version: int
    schema_versions: dict[str, int]  # every event type of the kind (lobby included), as of export
    events: int
    last_hash: str
    status: str
    winners: list[int] | None
    scores: list[int] | None
    exported_at: float


@dataclass(frozen=True)
class EventRecord:
    seq: int
    type: str
    schema_version: int
    recorded_at: Decimal
    prev_hash: bytes
    hash: bytes
    data: Any  # parsed (Decimals kept)
    metadata: Any


@dataclass(frozen=True)
class ShuffleRecord:
    seq: int
    type: str
    commitment: str
    salt: str
    order: list[Any]


@dataclass(frozen=True)
class AccessLine:
    n: int
    at: Decimal  # epoch seconds with the six decimals the database hashed
    moderator: str
    operation: str
    seq_from: int
    seq_to: int
    reason: str
    dispute_id: str | None
    note: str | None
    prev_hash: bytes
    hash: bytes


@dataclass
class ExportFile:
    header: Header
    events: list[EventRecord] = field(default_factory=list)
    shuffles: list[ShuffleRecord] = field(default_factory=list)
    access: list[AccessLine] = field(default_factory=list)


def schema_versions(kind: str) -> dict[str, int]:
    """The current schema version of every event type a game of ``kind`` may hold."""
    decider = registry.get(kind)
    out = {tables.event_tag_of(t): 1 for t in get_args(tables.LobbyEvents)}
    out.update({tables.event_tag_of(t): 1 for t in get_args(tables.DisputeEvents)})
    out.update(tables.LOBBY_SCHEMA_VERSIONS)
    for struct in get_args(decider.event_type):
        tag = tables.event_tag_of(struct)
        out[tag] = decider.schema_versions.get(tag, 1)
    return dict(sorted(out.items()))


def _hex(value: Any, what: str, seq: int | None) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except (TypeError, ValueError):
        raise ExportError(f"seq {seq}: {what} is not hex", seq) from None
    if len(raw) != 32:
        raise ExportError(f"seq {seq}: {what} is not 32 bytes", seq)
    return raw


def read(lines: Iterable[str | bytes]) -> ExportFile:
    """Parse an export; a malformed line raises ``ExportError`` naming it (or its seq)."""
    export: ExportFile | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse(line)
        except ValueError:
            raise ExportError(f"line {number} is not JSON") from None
        kind = record.get("record") if isinstance(record, dict) else None
        if number == 1:
            if kind != "header" or record.get("format") != FORMAT:
                raise ExportError("line 1 is not a playlog export header")
            if record.get("format_version") != FORMAT_VERSION:
                raise ExportError(f"unknown format_version {record.get('format_version')}")
            export = ExportFile(msgspec.convert(_floats(record), Header))
            continue
        assert export is not None
        seq = record.get("seq") if isinstance(record, dict) else None
        try:
            if kind == "event":
                export.events.append(
                    EventRecord(
                        seq=int(record["seq"]),
                        type=str(record["type"]),
                        schema_version=int(record["schema_version"]),
                        recorded_at=Decimal(record["recorded_at"]),
                        prev_hash=_hex(record["prev_hash"], "prev_hash", seq),
                        hash=_hex(record["hash"], "hash", seq),
                        data=record["data"],
                        metadata=record["metadata"],
                    )
                )
            elif kind == "shuffle":
                export.shuffles.append(
                    ShuffleRecord(
                        seq=int(record["seq"]),
                        type=str(record["type"]),
                        commitment=str(record["commitment"]),
                        salt=str(record["salt"]),
                        order=list(record["order"]),
                    )
                )
            elif kind == "access":
                export.access.append(_access_line(record))
            else:
                raise ExportError(f"line {number}: unknown record {kind!r}")
        except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
            bad = seq if isinstance(seq, int) else None
            raise ExportError(f"line {number} (seq {seq}): malformed {kind} record: {exc}", bad) from None
    if export is None:
        raise ExportError("the file is empty")
    return export


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


def _access_line(record: dict[str, Any]) -> AccessLine:
    n = record["n"]
    return AccessLine(
        n=int(n),
        at=Decimal(record["at"]),
        moderator=str(record["moderator"]),
        operation=str(record["operation"]),
        seq_from=int(record["seq_from"]),
        seq_to=int(record["seq_to"]),
        reason=str(record["reason"]),
        dispute_id=_optional(record["dispute_id"]),
        note=_optional(record["note"]),
        prev_hash=_hex(record["prev_hash"], f"access {n} prev_hash", None),
        hash=_hex(record["hash"], f"access {n} hash", None),
    )


def _floats(value: Any) -> Any:
    """Decimals back to floats, for the header's own fields."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value


def open_lines(path: Path) -> Iterator[str]:
    """The lines of an export file (``.gz``: gzip-compressed)."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            yield from fh
    else:
        with path.open(encoding="utf-8") as fh:
            yield from fh


# -- verification ----------------------------------------------------------------------------


class Finding(msgspec.Struct, frozen=True):
    check: str  # chain | shuffles | replay | format | access
    seq: int  # an access finding: the record's n
    reason: str

    def where(self) -> str:
        return f"access record {self.seq}" if self.check == "access" else f"seq {self.seq}"


class VerifyReport(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    kind: str
    events: int
    shuffles: int
    chain_ok: bool
    shuffles_ok: bool
    replay_ok: bool
    winners: list[int] | None
    findings: list[Finding]
    access: int = 0
    access_ok: bool = True

    @property
    def ok(self) -> bool:
        return not self.findings

    @property
    def first_bad_seq(self) -> int | None:
        return min((f.seq for f in self.findings if f.check != "access"), default=None)

    @property
    def first_bad_access(self) -> int | None:
        return min((f.seq for f in self.findings if f.check == "access"), default=None)

    def lines(self) -> list[str]:
        out = [
            f"game {self.game_id} ({self.kind}): {self.events} events, {self.shuffles} shuffles",
            f"hash chain:  {'ok' if self.chain_ok else 'FAILED'}",
            f"shuffles:    {'ok' if self.shuffles_ok else 'FAILED'}",
            f"replay:      {'ok' if self.replay_ok else 'FAILED'}"
            + (f" (winners {self.winners})" if self.replay_ok and self.winners is not None else ""),
            f"access:      {'ok' if self.access_ok else 'FAILED'} ({self.access} records)",
        ]
        for finding in sorted(self.findings, key=lambda f: (f.check == "access", f.seq))[:5]:
            out.append(f"  {finding.where()} ({finding.check}): {finding.reason}")
        failed = [
            f"first bad {what} {at}"
            for what, at in (("seq", self.first_bad_seq), ("access record", self.first_bad_access))
            if at is not None
        ]
        out.append("OK" if self.ok else "FAILED: " + ", ".join(failed))
        return out


def check_chain(export: ExportFile) -> Finding | None:
    header = export.header
    running = GENESIS_HASH
    for expected_seq, event in enumerate(export.events, start=1):
        reason = None
        if event.seq != expected_seq:
            reason = f"seq {expected_seq} is missing (found seq {event.seq})"
        elif event.prev_hash != running:
            reason = "prev_hash does not match the previous event's hash"
        else:
            digest = event_digest(
                event.prev_hash,
                header.game_id,
                event.seq,
                event.type,
                event.schema_version,
                event.data,
                event.metadata,
                event.recorded_at,
            )
            if digest != event.hash:
                reason = "content does not match its hash"
        if reason:
            return Finding("chain", expected_seq, reason)
        running = event.hash
    count = len(export.events)
    if header.events != count or header.last_hash != running.hex():
        return Finding("chain", count + 1, f"the header has {header.events} events; the file {count}")
    return None


@dataclass
class Replayed:
    table: Table | None
    orders: dict[int, list[Any]]  # seq -> the hidden order right after a committing event
    commitments: dict[int, tuple[str, str | None]]  # seq -> (commitment, salt) of the event
    finding: Finding | None


def replay(export: ExportFile) -> Replayed:
    """Fold the file's events through today's rules; note every committed hidden order."""
    table: Table | None = None
    orders: dict[int, list[Any]] = {}
    commitments: dict[int, tuple[str, str | None]] = {}
    for event in export.events:
        try:
            table, decoded = tables.step(table, event.type, canonical(event.data), event.schema_version)
        except Exception as exc:  # any failure of old data against today's code is the finding
            finding = Finding("replay", event.seq, f"does not replay: {exc}")
            return Replayed(table, orders, commitments, finding)
        committed = getattr(decoded, "commitment", None)
        hidden_order = table.decider.hidden_order
        if committed and hidden_order is not None:
            orders[event.seq] = plain(list(hidden_order(table.state)))
            commitments[event.seq] = (committed, getattr(decoded, "salt", None))
    return Replayed(table, orders, commitments, None)


def check_outcome(export: ExportFile, replayed: Replayed) -> Finding | None:
    header = export.header
    table = replayed.table
    last = len(export.events)
    if table is None:
        return Finding("replay", 1, "the file holds no events")
    if table.kind != header.kind or table.raw_options != header.options:
        return Finding("replay", 1, "the header's kind or options differ from lobby.created")
    winners = list(table.outcome.winners) if table.outcome else None
    if table.status != header.status or winners != header.winners:
        return Finding(
            "replay",
            max(last, header.events),  # where the header's outcome was reached
            f"replay ends {table.status} with winners {winners}; the header says"
            f" {header.status} with winners {header.winners}",
        )
    return None


def check_shuffles(export: ExportFile, replayed: Replayed) -> Finding | None:
    findings: list[Finding] = []
    revealed = {s.seq: s for s in export.shuffles}
    for seq, (committed, salt) in replayed.commitments.items():
        shuffle = revealed.get(seq)
        if shuffle is None:
            findings.append(Finding("shuffles", seq, "a commitment without its reveal"))
        elif shuffle.commitment != committed or shuffle.salt != salt:
            reason = "the reveal's commitment or salt differs from the event's"
            findings.append(Finding("shuffles", seq, reason))
        elif not commitment.verify(shuffle.order, shuffle.salt, shuffle.commitment):
            findings.append(Finding("shuffles", seq, "the revealed order does not match its commitment"))
        elif shuffle.order != replayed.orders[seq]:
            findings.append(Finding("shuffles", seq, "the revealed order is not the replayed one"))
    for seq in revealed.keys() - replayed.commitments.keys():
        if replayed.finding is None or seq < replayed.finding.seq:
            findings.append(Finding("shuffles", seq, "a reveal without a commitment"))
    return min(findings, key=lambda f: f.seq, default=None)


def check_access(export: ExportFile, replayed: Replayed) -> Finding | None:
    """The access records' chain, and that each could be true of the file's log."""
    table = replayed.table
    finished = table.finished_version if table is not None else None
    ended = export.events[finished - 1].recorded_at if finished else None
    raised = {
        str(event.data.get("dispute_id")): event.recorded_at
        for event in export.events
        if event.type == "dispute.raised" and isinstance(event.data, dict)
    }
    running = GENESIS_HASH
    for expected, record in enumerate(export.access, start=1):
        reason = None
        if record.n != expected:
            reason = f"access record {expected} is missing (found {record.n})"
        elif record.prev_hash != running:
            reason = "prev_hash does not match the previous record's hash"
        elif access_digest(record.prev_hash, export.header.game_id, record) != record.hash:
            reason = "content does not match its hash"
        else:
            reason = _implausible(export, record, ended, raised)
        if reason:
            return Finding("access", expected, reason)
        running = record.hash
    return None


def _implausible(
    export: ExportFile, record: AccessLine, ended: Decimal | None, raised: dict[str, Decimal]
) -> str | None:
    """Why ``record`` cannot be true of the file's log (None: it can). ``ended``: when the
    game's finishing event was logged; ``raised``: when each of its disputes was."""
    logged = sum(1 for event in export.events if event.recorded_at <= record.at)
    if record.reason not in reasons.RECORDED:
        return f"unknown reason {record.reason!r}"
    if not 1 <= record.seq_from <= record.seq_to <= logged:
        return f"seqs {record.seq_from}-{record.seq_to} were not all logged by its time ({logged} were)"
    if record.reason == reasons.AFTER_END and (ended is None or record.at < ended):
        return "a read before the game ended, without a reason"
    if record.reason == reasons.DISPUTE:
        at = raised.get(record.dispute_id or "")
        if at is None or at > record.at:
            return f"names dispute {record.dispute_id}, not raised in this game before the read"
    elif record.dispute_id is not None:
        return f"names dispute {record.dispute_id} with the reason {record.reason!r}"
    return None


def verify(export: ExportFile) -> VerifyReport:
    """Every check of a parsed export; see the module docstring."""
    chain = check_chain(export)
    replayed = replay(export)
    rules = replayed.finding or check_outcome(export, replayed)
    shuffles = check_shuffles(export, replayed)
    access = check_access(export, replayed) if rules is None else None
    table = replayed.table
    return VerifyReport(
        game_id=export.header.game_id,
        kind=export.header.kind,
        events=len(export.events),
        shuffles=len(export.shuffles),
        chain_ok=chain is None,
        shuffles_ok=shuffles is None,
        replay_ok=rules is None,
        winners=list(table.outcome.winners) if table and table.outcome else None,
        findings=[f for f in (chain, shuffles, rules, access) if f is not None],
        access=len(export.access),
        access_ok=access is None,
    )


def verify_lines(lines: Iterable[str | bytes]) -> VerifyReport:
    """Parse and verify; a file that cannot be parsed yields a report naming where."""
    try:
        export = read(lines)
    except ExportError as exc:
        return VerifyReport(
            game_id="?",
            kind="?",
            events=0,
            shuffles=0,
            chain_ok=False,
            shuffles_ok=False,
            replay_ok=False,
            winners=None,
            findings=[Finding("format", exc.seq or 0, str(exc))],
        )
    return verify(export)


# -- export from a database ------------------------------------------------------------------

_EXPORT_QUERY = (
    "SELECT seq, type, schema_version, data::text, metadata::text,"
    " extract(epoch FROM recorded_at)::text, prev_hash, hash"
    " FROM events WHERE game_id = $1 AND ($2::integer IS NULL OR seq <= $2) ORDER BY seq"
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
    hidden_order = table.decider.hidden_order
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
    """Load a verified export as the exact rows it came from; refuses a bad file or a known game."""
    report = verify(export)
    if not report.ok:
        raise ImportRefused(
            "export_not_verified", f"The file does not verify (first bad seq {report.first_bad_seq})."
        )
    game_id = uuid.UUID(export.header.game_id)
    replayed = replay(export).table
    assert replayed is not None
    due = replayed.decider.deadline(replayed.state) if replayed.status == "running" else None
    async with conn.transaction():
        if await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM streams WHERE game_id = $1)"
            " OR EXISTS (SELECT 1 FROM events WHERE game_id = $1)",
            game_id,
        ):
            raise ImportRefused("game_exists", f"Game {game_id} already exists in this database.")
        await conn.executemany(
            "INSERT INTO events (game_id, seq, type, schema_version, data, metadata, command_id,"
            " recorded_at, prev_hash, hash) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9, $10)",
            [
                (
                    game_id,
                    e.seq,
                    e.type,
                    e.schema_version,
                    canonical(e.data),
                    canonical(e.metadata),
                    e.metadata.get("command_id") if isinstance(e.metadata, dict) else None,
                    _timestamp(e.recorded_at),
                    e.prev_hash,
                    e.hash,
                )
                for e in export.events
            ],
        )
        last = export.events[-1]
        await conn.execute(
            "INSERT INTO streams (game_id, seq, last_hash, updated_at, due_at)"
            " VALUES ($1, $2, $3, $4, to_timestamp($5))",
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
