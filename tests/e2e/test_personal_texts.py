"""A person's words in the log are seals (domain/personal.py, docs/erasure.md): the hashed rows
never hold a name, the texts beside them are what an export gives, and an operator who swaps a
text beside the log is caught by the export's check."""

from __future__ import annotations

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain import personal
from projections.export.format import parse
from projections.export.verify import verify_lines
from service.tools.client import PlaylogClient
from tests.e2e.test_export import _exported

NAME = "Quentin Zebulon"


@pytest.fixture
async def exported(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> list[str]:
    return await _exported(api, http, moderator, "exploding_kittens", {"players": 2, "seed": 3})


def _records(lines: list[str], kind: str) -> list[dict]:
    return [r for r in (parse(line) for line in lines) if r.get("record") == kind]


async def test_given_a_seat_joined_when_the_log_is_read_raw_then_it_holds_a_seal_and_never_the_name(
    api: PlaylogClient, http: AsyncTestClient[Litestar], database_url: str
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    joined = await api.join(created.game_id, NAME)
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch(
            "SELECT data::text, metadata::text FROM events WHERE game_id = $1", created.game_id
        )
        kept = await conn.fetchval("SELECT text FROM personal_texts WHERE game_id = $1", created.game_id)
    finally:
        await conn.close()
    assert not any(NAME in data or NAME in metadata for data, metadata in rows)
    assert kept == NAME
    seats = (await http.get(f"/games/{created.game_id}")).json()["seats"]
    assert NAME in seats and joined.seat == 0


async def test_given_an_export_when_verified_then_every_text_opens_its_seal(exported: list[str]) -> None:
    texts = _records(exported, "personal")
    assert texts and all(r["salt"] and r["text"] for r in texts)
    report = verify_lines(exported)
    assert report.ok, report.lines()
    assert any(line.startswith("texts:") and "open their seals" in line for line in report.lines())


async def test_given_a_name_swapped_beside_the_log_when_the_export_is_verified_then_personal_fails(
    exported: list[str],
) -> None:
    forged = [
        line.replace(f'"text":"{r["text"]}"', '"text":"Someone Else"')
        if r.get("record") == "personal"
        else line
        for line, r in ((line, parse(line)) for line in exported)
    ]
    report = verify_lines(forged)
    assert not report.ok
    assert [f.check for f in report.findings] == ["personal"]


async def test_given_a_seat_joined_when_it_shows_its_claim_then_the_claim_proves_the_seal_and_no_other_name(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    joined = await api.join(created.game_id, NAME)
    claim = bytes.fromhex(joined.claim or "")
    asked = {"reason": "player_request"}  # a game not finished: a moderator says why (access records)
    lines = (
        await http.get(f"/games/{created.game_id}/export", params=asked, headers=moderator)
    ).text.splitlines()
    seal = next(r["data"]["name"] for r in _records(lines, "event") if r["type"] == "lobby.joined")
    assert personal.claims(seal, claim, NAME)
    assert not personal.claims(seal, claim, "Someone Else")
    assert not personal.claims(seal, bytes(32), NAME)
