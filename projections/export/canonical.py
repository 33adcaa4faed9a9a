"""The canonical text an export's hashes cover: PostgreSQL jsonb's text form
(docs/export-format.md, "The hash chain"), and the event digest ``playlog_event_digest``
computes (migrations/versions/0001). Receipts hash their events in this form too
(projections/receipts.py). Pure.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Any

GENESIS_HASH = bytes(32)


def _number(value: Decimal) -> str:
    """A number as PostgreSQL's numeric prints it: plain notation, the literal's own scale."""
    if value.is_zero():
        value = abs(value)
    return format(value, "f")


def canonical(value: Any) -> str:
    """``value`` (parsed with ``parse_float=Decimal``, or plain Python values with floats) as
    jsonb's text output prints it. The common types are tested first, by exact type: receipts
    hash a seat's events with it on the command path."""
    kind = type(value)
    if kind is str:
        return encode_basestring(value)  # json.dumps(value, ensure_ascii=False), without the wrapper
    if kind is dict:
        # Strings and ints, the most of an event's values, printed in place: a call fewer each.
        order = _ORDERS.get(tuple(value)) or _order(value)
        return (
            "{"
            + ", ".join(
                [
                    key
                    + (
                        encode_basestring(value[k])
                        if type(value[k]) is str
                        else str(value[k])
                        if type(value[k]) is int
                        else canonical(value[k])
                    )
                    for k, key in order
                ]
            )
            + "}"
        )
    if kind is int:
        return str(value)
    if kind is list or kind is tuple:
        return "[" + ", ".join([canonical(v) for v in value]) + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is float:
        if value == 0:
            return "0.0"  # -0.0 too
        text = repr(value)  # the shortest digits that read back as the same double
        return text if "e" not in text and "n" not in text else _number(Decimal(text))
    if isinstance(value, Decimal):
        return _number(value)
    # Subclasses (an enum's value, say) as their base type.
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return canonical(float(value))
    if isinstance(value, list | tuple):
        return canonical(list(value))
    if isinstance(value, dict):
        return canonical(dict(value))
    raise TypeError(f"Not a JSON value: {type(value).__name__}")


# A dict's keys in jsonb's order with their printed form, by the keys as the dict holds them:
# the same few shapes (an event type's fields) come again and again on the command path.
_ORDERS: dict[tuple[str, ...], list[tuple[str, str]]] = {}
_ORDERS_KEPT = 4096  # shapes remembered at most (a file being verified may bring any)


def _order(value: dict[str, Any]) -> list[tuple[str, str]]:
    """Keys by UTF-8 length, then bytewise (for valid strings the same as by code point)."""
    order = [(k, f"{encode_basestring(k)}: ") for _, k in sorted((len(k.encode()), k) for k in value)]
    if len(_ORDERS) < _ORDERS_KEPT:
        _ORDERS[tuple(value)] = order
    return order


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
