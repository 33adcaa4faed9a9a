"""``playlog_event_digest`` prints the canonical text itself (migration 0028): the same bytes as
the jsonb object it used to build and print, and as the verifiers' ``event_digest``, for random
events (any type text, nested data and metadata, any time to the microsecond)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import asyncpg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.export.canonical import event_digest, parse

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=5),
    max_leaves=20,
)
_object = st.dictionaries(_text, _json, max_size=6)
_moment = st.datetimes(datetime(1970, 1, 2), datetime(2200, 1, 1)).map(lambda d: d.replace(tzinfo=UTC))

# What the digest hashed before 0028: jsonb_build_object's value, printed.
_BUILT = """SELECT sha256($1 || convert_to(jsonb_build_object(
    'game_id', $2::uuid, 'seq', $3::integer, 'type', $4::text, 'schema_version', $5::integer,
    'data', $6::jsonb, 'metadata', $7::jsonb, 'recorded_at', extract(epoch FROM $8::timestamptz)
)::text, 'UTF8'))"""


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    prev=st.binary(min_size=32, max_size=32),
    seq=st.integers(1, 2**31 - 1),
    event_type=_text,
    version=st.integers(1, 2**31 - 1),
    data=_object,
    metadata=_object,
    recorded_at=_moment,
)
async def test_the_digest_is_the_built_objects_and_the_verifiers(
    database_url: str,
    prev: bytes,
    seq: int,
    event_type: str,
    version: int,
    data: dict[str, Any],
    metadata: dict[str, Any],
    recorded_at: datetime,
) -> None:
    game = uuid.uuid4()
    args = (prev, game, seq, event_type, version, json.dumps(data), json.dumps(metadata), recorded_at)
    conn = await asyncpg.connect(database_url)
    try:
        digest = await conn.fetchval(
            "SELECT playlog_event_digest($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)", *args
        )
        built = await conn.fetchval(_BUILT, *args)
        epoch = await conn.fetchval("SELECT extract(epoch FROM $1::timestamptz)::text", recorded_at)
    finally:
        await conn.close()
    assert digest == built
    assert digest == event_digest(prev, str(game), seq, event_type, version, data, metadata, parse(epoch))
