"""The canonical text an export's hashes cover: PostgreSQL jsonb's text form
(docs/export-format.md, "The hash chain"), and the event digest ``playlog_event_digest``
computes (migrations/versions/0001). Receipts hash their events in this form too
(projections/receipts.py). Pure.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

GENESIS_HASH = bytes(32)


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


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key is repeated")
    return out


def parse(text: str | bytes) -> Any:
    """JSON with every fractional number kept exactly as written; a repeated key is refused."""
    return json.loads(text, parse_float=Decimal, object_pairs_hook=_unique)


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
