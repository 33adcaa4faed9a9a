"""The mutation corpus (issue 35): over a thousand tampered copies of real exports, each refused
by ``playlog verify`` naming where, and by ``import`` leaving the database as it was.

Blind damage (byte flips, deleted, reordered, duplicated lines, truncations, header facts) is
caught by the chain and the reader; forgeries with every hash recomputed (illegal moves, replaced
cards, swapped deals, changed options, invented wins, changed rulings) only by re-executing the
recorded commands.
"""

from __future__ import annotations

import collections
import random
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections.export import format as export_format
from projections.export import verify as export_verify
from service.config import Settings
from service.store import portable
from service.tools.client import PlaylogClient
from tests.conftest import with_database
from tests.e2e.test_disputes import moderator_headers
from tests.mutations import corpus
from tests.mutations.corpus import mutants
from tests.mutations.files import Base, Mutant


def located(report: export_verify.VerifyReport) -> str | None:
    """Where a report says the file first goes wrong (None: it verifies)."""
    for where, at in (
        ("line", report.first_bad_line),
        ("seq", report.first_bad_seq),
        ("access record", report.first_bad_access),
    ):
        if at is not None:
            return f"{where} {at}"
    return None


@pytest.fixture
async def bases(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings, database_url: str
) -> list[Base]:
    return await corpus.bases(api, http, moderator_headers(settings), database_url)


@pytest.fixture
async def other_database(
    postgres_server_url: str, template_database: str
) -> AsyncIterator[asyncpg.Connection]:
    """A fresh database to import into."""
    name = f"playlog_corpus_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_database}"')
        conn = await asyncpg.connect(with_database(postgres_server_url, name))
        try:
            yield conn
        finally:
            await conn.close()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def _misplaced(files: list[Mutant]) -> dict[str, list[str]]:
    """Per class, the mutants ``verify`` accepts or locates elsewhere than they were damaged."""
    wrong: dict[str, list[str]] = collections.defaultdict(list)
    for mutant in files:
        where = located(corpus.verified(mutant))
        if where not in mutant.where:
            wrong[mutant.kind].append(f"{mutant.name}: {where or 'OK'}, expected {sorted(mutant.where)[:3]}")
    return wrong


async def test_the_corpus_holds_over_a_thousand_files_of_every_class_from_both_sources(
    bases: list[Base],
) -> None:
    made = mutants(bases)
    assert len(made) >= 1000
    # The originals are sound (the golden ones at the replayed level, accepted).
    assert all(export_verify.verify_lines(base.raw, accept=("replayed",)).ok for base in bases)
    assert {base.header["status"] for base in bases} == {"finished", "running"}
    assert {base.header["kind"] for base in bases} == {"exploding_kittens", "a_risk_cat"}
    kinds = collections.Counter(m.kind for m in made)
    assert set(kinds) >= {
        "byte flip",
        "line deleted",
        "lines reordered",
        "truncated",
        "line duplicated",
        "header changed",
        "forged: seat not on turn",
        "forged: kitten played",
        "forged: drawn after the end",
        "forged: replaced mid-game",
        "forged: swapped deal",
        "forged: changed options",
        "forged: invented win",
        "forged: changed ruling",
        "forged: server seed changed",
        "forged: seat seed changed",
    }, kinds
    assert corpus.tampered(bases[0], 0) == [
        m for m in made if m.name.startswith(f"{bases[0].name}:")
    ]  # seeded


async def test_every_damaged_file_is_refused_offline_naming_where(bases: list[Base]) -> None:
    assert not _misplaced([m for m in mutants(bases) if not m.rules and not m.kind.startswith("forged")])


async def test_every_forgery_with_a_recomputed_chain_is_refused_offline_naming_its_seq(
    bases: list[Base],
) -> None:
    assert not _misplaced([m for m in mutants(bases) if m.kind.startswith("forged")])


async def _fingerprint(conn: asyncpg.Connection) -> tuple[object, ...]:
    row = await conn.fetchrow(
        "SELECT (SELECT md5(string_agg(hash::text, ',' ORDER BY game_id, seq)) FROM events),"
        " (SELECT count(*) FROM streams), (SELECT count(*) FROM access_records)"
    )
    assert row is not None
    return tuple(row)


@pytest.mark.parametrize(("forged", "count"), [(False, 200), (True, 60)], ids=["damaged", "forged"])
async def test_a_refused_import_names_where_and_leaves_the_database_unchanged(
    bases: list[Base], other_database: asyncpg.Connection, forged: bool, count: int
) -> None:
    # One sound game already there (not one of the corpus's), so "unchanged" is about rows.
    sound = corpus.golden("ek-2022-combos-2p-2")
    await portable.import_game(other_database, export_format.read(sound.raw))
    before = await _fingerprint(other_database)
    kinds = [m for m in mutants(bases) if m.kind.startswith("forged") == forged]
    sample = random.Random(35).sample(kinds, min(count, len(kinds)))
    for mutant in sample:
        try:
            export = export_format.read(mutant.lines)
        except export_format.ExportError as exc:  # refused before the database is asked
            assert f"line {exc.line}" in mutant.where, mutant.name
            continue
        with pytest.raises(portable.ImportRefused) as refused:
            await portable.import_game(other_database, export)
        assert refused.value.code == "export_not_verified", mutant.name
        named = str(refused.value).removeprefix("The file does not verify (first bad ").split(",")[0]
        assert named.rstrip(").") in mutant.where, (mutant.name, str(refused.value))
        assert await _fingerprint(other_database) == before, mutant.name
