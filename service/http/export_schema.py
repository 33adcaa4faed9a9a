"""The export's lines (JSON Lines) as schemas of the OpenAPI document: a named union on
``record``, since OpenAPI 3.1 has no keyword for the items of a stream."""

from __future__ import annotations

from typing import Any

_REF = "#/components/schemas/{name}"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": _REF.format(name=name)}


_HEX = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_DECIMAL = {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?$", "description": "Epoch seconds, as hashed"}


def _record(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "description": description,
        "type": "object",
        "properties": {"record": {"type": "string", "enum": [name]}, **properties},
        "required": ["record", *properties],
    }


def export_line_schemas(schemas: dict[str, Any]) -> dict[str, Any]:
    """One line of an export (docs/export-format.md is the reference; service/store/portable.py writes
    them): a named union on ``record``, as JSON Lines have no keyword of their own in 3.1."""
    nullable_ints = {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}
    nullable_text = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    lines = {
        "ExportHeader": _record(
            "header",
            "The first line: the game and the outcome a replay must reach",
            {
                "format": {"type": "string", "enum": ["playlog-export"]},
                "format_version": {"type": "integer", "enum": [1]},
                "game_id": {"type": "string", "format": "uuid"},
                "kind": _ref("GameKind"),
                "options": {"type": "object", "additionalProperties": {}},
                "public": {"type": "boolean"},
                "spectator_delay": {"type": "number"},
                "rules_version": {"type": "integer"},
                "schema_versions": {"type": "object", "additionalProperties": {"type": "integer"}},
                "events": {"type": "integer", "minimum": 0},
                "last_hash": {"type": "string"},
                "status": _ref("GameStatus"),
                "winners": nullable_ints,
                "scores": nullable_ints,
                "exported_at": {"type": "number"},
            },
        ),
        "ExportEvent": _record(
            "event",
            "One event of the log, hidden information included, with its place in the hash chain",
            {
                "seq": {"type": "integer", "minimum": 1},
                "type": {"type": "string"},
                "schema_version": {"type": "integer"},
                "recorded_at": _DECIMAL,
                "prev_hash": _HEX,
                "hash": _HEX,
                "metadata": {"type": "object", "additionalProperties": {}},
                "data": {"type": "object", "additionalProperties": {}},
            },
        ),
        "ExportShuffle": _record(
            "shuffle",
            "A shuffle commitment opened: the salt and the order it committed to",
            {
                "seq": {"type": "integer", "minimum": 1},
                "type": {"type": "string"},
                "commitment": {"type": "string"},
                "salt": {"type": "string"},
                "order": {"type": "array", "items": {}},
            },
        ),
        "ExportPersonal": _record(
            "personal",
            "What a seal of the log opens to (docs/erasure.md): its text and salt, or, its person"
            " erased, only what it shows now; under no hash",
            {
                "seal": {"type": "string", "pattern": "^sealed:[0-9a-f]{64}$"},
                "subject": {"type": "string"},
                "field": {"type": "string", "enum": ["name", "text"]},
                "salt": {"anyOf": [_HEX, {"type": "null"}]},
                "text": nullable_text,
                "shown": nullable_text,
            },
        ),
        "ExportAccess": _record(
            "access",
            "A moderator's face-up read of the game (a moderator's or the operator's export)",
            {
                "n": {"type": "integer", "minimum": 1},
                "at": _DECIMAL,
                "moderator": {"type": "string"},
                "operation": {"type": "string"},
                "seq_from": {"type": "integer"},
                "seq_to": {"type": "integer"},
                "reason": {"type": "string"},
                "dispute_id": nullable_text,
                "note": nullable_text,
                "prev_hash": _HEX,
                "hash": _HEX,
            },
        ),
        # The proofs, last (docs/export-format.md, "Proofs").
        "ExportReceiptKeys": _record(
            "receipt_keys",
            "The keys of the game's receipt head commitments: signing key id (hex) -> key (base64)",
            {"keys": {"type": "object", "additionalProperties": {"type": "string"}}},
        ),
        "ExportProof": _record(
            "proof",
            "A head of the game that is a leaf of the transparency log, with its inclusion proof",
            {
                "index": {"type": "integer", "minimum": 0},
                "seq": {"type": "integer", "minimum": 1},
                "head": _HEX,
                "proof": {"type": "array", "items": {"type": "string"}},
            },
        ),
        "ExportCheckpoint": _record(
            "checkpoint",
            "The signed checkpoint the proofs are against, with cosignatures, and the log's keys",
            {"note": {"type": "string"}, "log_keys": {"type": "array", "items": {"type": "string"}}},
        ),
    }
    schemas.update(lines)
    schemas["ExportLine"] = {
        "description": "One line of an export (JSON Lines, docs/export-format.md)",
        "oneOf": [_ref(name) for name in lines],
        "discriminator": {
            "propertyName": "record",
            "mapping": {
                line["properties"]["record"]["enum"][0]: _REF.format(name=name)
                for name, line in lines.items()
            },
        },
    }
    return _ref("ExportLine")


def trace_line_schemas(schemas: dict[str, Any]) -> dict[str, Any]:
    """One line of a seat's match trace (projections/traces.py, docs/agents.md): the header, then
    one step per event the seat saw."""
    schemas["TraceHeader"] = {
        "description": "The first line: the game and the seat whose trace this is",
        "type": "object",
        "properties": {
            "trace": {"type": "string", "enum": ["playlog/trace/v1"]},
            "game_id": {"type": "string", "format": "uuid"},
            "kind": _ref("GameKind"),
            "seat": {"type": "integer", "minimum": 0},
            "seats": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        },
        "required": ["trace", "game_id", "kind", "seat", "seats"],
    }
    schemas["TraceStep"] = {
        "description": "An event the seat saw, its view right after it and its moves then",
        "type": "object",
        "properties": {
            "n": {"type": "integer", "minimum": 1, "description": "The seat's own number of the event"},
            "event": _ref("EventOut"),
            "observation": {"description": "The seat's view of the game (null before the start)"},
            "moves": {"type": "array", "items": {"type": "object", "additionalProperties": {}}},
            "by_seat": {
                "type": "boolean",
                "description": "Whether the event came from the seat's own command",
            },
        },
        "required": ["n", "event", "observation", "moves", "by_seat"],
    }
    schemas["TraceLine"] = {
        "description": "One line of a match trace (JSON Lines, docs/agents.md)",
        "oneOf": [_ref("TraceHeader"), _ref("TraceStep")],
    }
    return _ref("TraceLine")
