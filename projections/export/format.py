"""A game as a portable file: the format, its canonical text and hashes, and its reader
(docs/export-format.md). Pure: no database, no network, no files.

The file is JSON Lines: one ``header`` line, then one ``event`` line per stored event (its
``data`` and ``metadata`` exactly as PostgreSQL's jsonb prints them), then one ``shuffle`` line
per shuffle commitment with its reveal (the salt and the committed order), then (a moderator's or
the operator's export) one ``access`` line per access record (service/app/access.py); last, the
game's proofs: one ``receipt_keys`` line (the keys of its receipts' head commitments), one
``proof`` line per head of the game in the transparency log and one ``checkpoint`` line, the
signed checkpoint the proofs are against (docs/receipts.md, docs/transparency-log.md).

Each event's hash is ``sha256(prev_hash || canonical text)``, the canonical text being what
``playlog_event_digest`` (migrations/versions/0001) hashes: jsonb's text form of
``{game_id, seq, type, schema_version, data, metadata, recorded_at}``, which ``canonical``
reproduces (keys by byte length then bytes, ``", "`` and ``": "``, numbers as written). An access
record's hash is ``sha256(prev_hash || canonical text of the record)``, what
``playlog_access_digest`` hashes (migrations/versions/0015).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, get_args

import msgspec

from domain import registry
from projections import table as tables

FORMAT = "playlog-export"
FORMAT_VERSION = 1
GENESIS_HASH = bytes(32)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ExportError(Exception):
    """A file that cannot be read as an export, or a game that cannot be imported."""

    def __init__(self, message: str, seq: int | None = None, line: int = 1) -> None:
        super().__init__(message)
        self.seq = seq
        self.line = line  # the 1-based line of the file that cannot be read


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


@dataclass(frozen=True)
class ProofRecord:
    """A head of the game that is a leaf of the log, with its inclusion proof."""

    index: int
    seq: int
    head: bytes
    proof: list[bytes]


@dataclass(frozen=True)
class CheckpointRecord:
    note: str  # the log's signed checkpoint, the witnesses' cosignatures among its lines
    log_keys: list[str]  # the log's verifier keys, as the exporting service published them


@dataclass
class ExportFile:
    header: Header
    events: list[EventRecord] = field(default_factory=list)
    shuffles: list[ShuffleRecord] = field(default_factory=list)
    access: list[AccessLine] = field(default_factory=list)
    receipt_keys: dict[str, str] = field(default_factory=dict)  # key id hex -> game key, base64
    proofs: list[ProofRecord] = field(default_factory=list)
    checkpoint: CheckpointRecord | None = None


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
        raise ValueError(f"{what} is not hex") from None
    if len(raw) != 32:
        raise ValueError(f"{what} is not 32 bytes")
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
            raise ExportError(f"line {number} is not JSON", line=number) from None
        kind = record.get("record") if isinstance(record, dict) else None
        if number == 1:
            if kind != "header" or record.get("format") != FORMAT:
                raise ExportError("line 1 is not a playlog export header")
            if record.get("format_version") != FORMAT_VERSION:
                raise ExportError(f"line 1: unknown format_version {record.get('format_version')}")
            try:
                export = ExportFile(msgspec.convert(_floats(record), Header))
            except msgspec.ValidationError as exc:
                raise ExportError(f"line 1: malformed header: {exc}") from None
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
            elif kind == "receipt_keys":
                export.receipt_keys = {str(k): str(v) for k, v in record["keys"].items()}
            elif kind == "proof":
                export.proofs.append(
                    ProofRecord(
                        index=int(record["index"]),
                        seq=int(record["seq"]),
                        head=_hex(record["head"], "head", seq),
                        proof=[base64.b64decode(p, validate=True) for p in record["proof"]],
                    )
                )
            elif kind == "checkpoint":
                keys = [str(k) for k in record["log_keys"]]
                export.checkpoint = CheckpointRecord(note=str(record["note"]), log_keys=keys)
            else:
                raise ExportError(f"line {number}: unknown record {kind!r}", line=number)
        except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
            bad = seq if isinstance(seq, int) else None
            raise ExportError(
                f"line {number} (seq {seq}): malformed {kind} record: {exc}", bad, number
            ) from None
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
