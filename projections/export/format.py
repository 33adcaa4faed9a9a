"""A game as a portable file: the format, its canonical text and hashes, and its reader
(docs/export-format.md). Pure: no database, no network, no files.

The file is JSON Lines: one ``header`` line, then one ``event`` line per stored event (its
``data`` and ``metadata`` exactly as PostgreSQL's jsonb prints them), then one ``shuffle`` line
per shuffle commitment with its reveal (the salt and the committed order), one ``personal`` line
per seal the events hold (its text and salt, or what it shows once its person was erased:
docs/erasure.md; outside every hash), then (a moderator's or
the operator's export) one ``access`` line per access record (service/app/access.py); last, the
game's proofs: one ``receipt_keys`` line (the keys of its receipts' head commitments), one
``proof`` line per head of the game in the transparency log and one ``checkpoint`` line, the
signed checkpoint the proofs are against (docs/receipts.md, docs/transparency-log.md).

Each event's hash is ``sha256(prev_hash || canonical text)``, the canonical text being what
``playlog_event_digest`` (migrations/versions/0001) hashes: jsonb's text form of
``{game_id, seq, type, schema_version, data, metadata, recorded_at}``, which
``projections/export/canonical.py`` reproduces (keys by byte length then bytes, ``", "`` and
``": "``, numbers as written). An access
record's hash is ``sha256(prev_hash || canonical text of the record)``, what
``playlog_access_digest`` hashes (migrations/versions/0015).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, get_args

import msgspec

from domain import registry
from projections import table as tables

# The canonical text and the event digest are part of the format; they live in canonical.py.
from projections.export.canonical import GENESIS_HASH as GENESIS_HASH
from projections.export.canonical import canonical as canonical
from projections.export.canonical import event_digest as event_digest
from projections.export.canonical import parse as parse

FORMAT = "playlog-export"
FORMAT_VERSION = 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class ExportError(Exception):
    """``line``: the file's line it names (1-based), when it is about one line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


# -- the access records' digest --------------------------------------------------------


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
class PersonalRecord:
    """What a seal of the log opens to (domain/personal.py): its text and salt, or (its person
    erased) only what it shows now. Under no hash: the seal is, and the salt proves the text."""

    seal: str
    subject: str
    field: str
    salt: bytes | None
    text: str | None
    shown: str | None


@dataclass(frozen=True)
class ProofRecord:
    """A head of the game that is a leaf of the log, with its inclusion proof."""

    index: int
    seq: int
    head: bytes
    proof: list[bytes]
    tag: bytes | None = None  # the game's tag of a version-2 leaf (docs/transparency-log.md)


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
    personal: dict[str, PersonalRecord] = field(default_factory=dict)  # by seal
    receipt_keys: dict[str, str] = field(default_factory=dict)  # key id hex -> game key, base64
    proofs: list[ProofRecord] = field(default_factory=list)
    checkpoint: CheckpointRecord | None = None


def schema_versions(kind: str) -> dict[str, int]:
    """The current schema version of every event type a game of ``kind`` may hold."""
    decider = registry.get(kind)
    out = {tables.event_tag_of(t): 1 for t in get_args(tables.LobbyEvents)}
    out.update({tables.event_tag_of(t): 1 for t in get_args(tables.DisputeEvents)})
    out.update(tables.LOBBY_SCHEMA_VERSIONS)
    for struct in get_args(decider.types.event):
        tag = tables.event_tag_of(struct)
        out[tag] = decider.versions.schemas.get(tag, 1)
    return dict(sorted(out.items()))


_HEX = re.compile(r"[0-9a-f]{64}")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class _Malformed(ValueError):
    """A field of a line that does not have the documented type."""


def _hex(value: Any, what: str) -> bytes:
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise _Malformed(f"{what} is not 64 lower-case hex digits")
    return bytes.fromhex(value)


def _integer(value: Any, what: str) -> int:
    if type(value) is not int:
        raise _Malformed(f"{what} is not an integer")
    return value


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise _Malformed(f"{what} is not a string")
    return value


def _optional(value: Any, what: str) -> str | None:
    return None if value is None else _string(value, what)


def _decimal(value: Any, what: str) -> Decimal:
    if not isinstance(value, str) or not _DECIMAL.fullmatch(value):
        raise _Malformed(f"{what} is not a decimal number in a string")
    return Decimal(value)


def _header(record: dict[str, Any], number: int) -> ExportFile:
    if record.get("record") != "header" or record.get("format") != FORMAT:
        raise ExportError(f"line {number} is not a playlog export header", number)
    if record.get("format_version") != FORMAT_VERSION:
        raise ExportError(f"line {number}: unknown format_version {record.get('format_version')}", number)
    if not isinstance(record.get("game_id"), str) or not _UUID.fullmatch(record["game_id"]):
        raise ExportError(f"line {number}: malformed header: game_id is not a lower-case UUID", number)
    try:
        return ExportFile(msgspec.convert(_floats(record), Header))
    except msgspec.ValidationError as exc:
        raise ExportError(f"line {number}: malformed header: {exc}", number) from None


def _event(record: dict[str, Any]) -> EventRecord:
    return EventRecord(
        seq=_integer(record["seq"], "seq"),
        type=_string(record["type"], "type"),
        schema_version=_integer(record["schema_version"], "schema_version"),
        recorded_at=_decimal(record["recorded_at"], "recorded_at"),
        prev_hash=_hex(record["prev_hash"], "prev_hash"),
        hash=_hex(record["hash"], "hash"),
        data=record["data"],
        metadata=record["metadata"],
    )


def _shuffle(record: dict[str, Any]) -> ShuffleRecord:
    order = record["order"]
    if not isinstance(order, list):
        raise _Malformed("order is not an array")
    return ShuffleRecord(
        seq=_integer(record["seq"], "seq"),
        type=_string(record["type"], "type"),
        commitment=_string(record["commitment"], "commitment"),
        salt=_string(record["salt"], "salt"),
        order=order,
    )


def _access_line(record: dict[str, Any]) -> AccessLine:
    return AccessLine(
        n=_integer(record["n"], "n"),
        at=_decimal(record["at"], "at"),
        moderator=_string(record["moderator"], "moderator"),
        operation=_string(record["operation"], "operation"),
        seq_from=_integer(record["seq_from"], "seq_from"),
        seq_to=_integer(record["seq_to"], "seq_to"),
        reason=_string(record["reason"], "reason"),
        dispute_id=_optional(record["dispute_id"], "dispute_id"),
        note=_optional(record["note"], "note"),
        prev_hash=_hex(record["prev_hash"], "prev_hash"),
        hash=_hex(record["hash"], "hash"),
    )


def _personal(record: dict[str, Any]) -> PersonalRecord:
    salt = record.get("salt")
    text = _optional(record.get("text"), "text")
    shown = _optional(record.get("shown"), "shown")
    if (salt is None) != (text is None) or (text is None and shown is None):
        raise _Malformed("a text comes with its salt; an erased one with what it shows")
    return PersonalRecord(
        seal=_string(record["seal"], "seal"),
        subject=_string(record["subject"], "subject"),
        field=_string(record["field"], "field"),
        salt=None if salt is None else _hex(salt, "salt"),
        text=text,
        shown=shown,
    )


def _receipt_keys(record: dict[str, Any]) -> dict[str, str]:
    keys = record["keys"]
    if not isinstance(keys, dict):
        raise _Malformed("keys is not an object")
    return {_string(k, "a key id"): _string(v, "a key") for k, v in keys.items()}


def _proof(record: dict[str, Any]) -> ProofRecord:
    hashes = record["proof"]
    if not isinstance(hashes, list):
        raise _Malformed("proof is not an array")
    try:
        proof = [base64.b64decode(_string(h, "a proof hash"), validate=True) for h in hashes]
    except binascii.Error:
        raise _Malformed("a proof hash is not base64") from None
    return ProofRecord(
        index=_integer(record["index"], "index"),
        seq=_integer(record["seq"], "seq"),
        head=_hex(record["head"], "head"),
        proof=proof,
        tag=_hex(record["tag"], "tag") if "tag" in record else None,
    )


def _checkpoint(record: dict[str, Any]) -> CheckpointRecord:
    keys = record["log_keys"]
    if not isinstance(keys, list):
        raise _Malformed("log_keys is not an array")
    return CheckpointRecord(
        note=_string(record["note"], "note"), log_keys=[_string(k, "a log key") for k in keys]
    )


_Line = (
    EventRecord
    | ShuffleRecord
    | AccessLine
    | PersonalRecord
    | ProofRecord
    | CheckpointRecord
    | dict[str, str]
)
_READERS: dict[str, Callable[[dict[str, Any]], _Line]] = {
    "event": _event,
    "shuffle": _shuffle,
    "access": _access_line,
    "personal": _personal,
    "receipt_keys": _receipt_keys,
    "proof": _proof,
    "checkpoint": _checkpoint,
}


def read(lines: Iterable[str | bytes]) -> ExportFile:
    """Parse an export; a malformed line raises ``ExportError`` naming its line number.

    Lines are split at ``\n`` only; a line holding only whitespace is skipped (it still counts).
    """
    export: ExportFile | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = parse(line)
        except ValueError:  # UnicodeDecodeError included
            raise ExportError(f"line {number} is not JSON", number) from None
        if not isinstance(record, dict):
            raise ExportError(f"line {number} is not a JSON object", number)
        if export is None:
            export = _header(record, number)
            continue
        kind = record.get("record")
        reader = _READERS.get(kind) if isinstance(kind, str) else None
        if reader is None:
            raise ExportError(f"line {number}: unknown record {kind!r}", number)
        try:
            parsed = reader(record)
        except KeyError as exc:
            raise ExportError(f"line {number}: malformed {kind} record: no {exc}", number) from None
        except _Malformed as exc:
            raise ExportError(f"line {number}: malformed {kind} record: {exc}", number) from None
        if isinstance(parsed, EventRecord):
            export.events.append(parsed)
        elif isinstance(parsed, ShuffleRecord):
            export.shuffles.append(parsed)
        elif isinstance(parsed, AccessLine):
            export.access.append(parsed)
        elif isinstance(parsed, PersonalRecord):
            export.personal[parsed.seal] = parsed
        elif isinstance(parsed, ProofRecord):
            export.proofs.append(parsed)
        elif isinstance(parsed, CheckpointRecord):
            export.checkpoint = parsed
        else:
            export.receipt_keys = parsed
    if export is None:
        raise ExportError("the file is empty", 1)
    return export


def _floats(value: Any) -> Any:
    """Decimals back to floats, for the header's own fields."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_floats(v) for v in value]
    return value
