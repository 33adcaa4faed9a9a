"""The canonical text the verifiers and receipts hash (projections/export/canonical.py) is
PostgreSQL jsonb's text form, byte for byte, for every JSON value: checked against the database
itself over random values (keys of every UTF-8 length, nested shapes, the same shape again)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import asyncpg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections.export.canonical import canonical, parse

_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=5),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(_json, min_size=1, max_size=5))
async def test_the_canonical_text_is_jsonbs_text(database_url: str, values: list[Any]) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        for value in values:
            shown = await conn.fetchval("SELECT $1::jsonb::text", json.dumps(value))
            assert canonical(value) == shown
            assert canonical(parse(shown)) == shown  # as a verifier reads it back
    finally:
        await conn.close()


async def test_numbers_print_as_jsonb_prints_them(database_url: str) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        for literal in ("1.5", "0.10", "-0.0", "1e3", "1796398378.5969446", "12345678901234567890.5"):
            shown = await conn.fetchval("SELECT $1::jsonb::text", f"[{literal}]")
            assert canonical([Decimal(literal)]) == shown
    finally:
        await conn.close()
