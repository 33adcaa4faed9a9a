"""``playlog verify --all`` re-executes every game of a database under the running code: the
golden corpus loaded into a database verifies (the test suite is the CI), and a deliberate rule
change is reported for exactly the games it affects, at the seq of their first affected command."""

from __future__ import annotations

import asyncio
import random
import uuid

import asyncpg
import pytest
from click.testing import CliRunner

from domain.errors import RuleViolation
from domain.exploding_kittens import rules as kitten_rules
from projections.export import format as export_format
from service.app.reverify import reverify_all
from service.store import portable
from service.tools.bot import play_game
from service.tools.cli import main
from service.tools.client import PlaylogClient
from tests.golden.corpus import load_export, names


async def _load_golden(database_url: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        for name in names():
            await portable.import_game(conn, load_export(name))
    finally:
        await conn.close()
    return len(names())


async def _played(api: PlaylogClient) -> dict[str, list[uuid.UUID]]:
    games: dict[str, list[uuid.UUID]] = {"exploding_kittens": [], "a_risk_cat": []}
    for kind, options in (
        ("exploding_kittens", {"players": 3, "reaction_window": 0, "seed": 11}),
        ("exploding_kittens", {"players": 3, "reaction_window": 0, "seed": 12}),
        ("exploding_kittens", {"players": 2, "reaction_window": 0}),
        ("a_risk_cat", {"players": 3, "mode": "full"}),
    ):
        report = await play_game(api, kind, options, rng=random.Random(7))
        assert report.finished
        games[kind].append(report.game_id)
    return games


async def _first_combo(database_url: str, game_id: uuid.UUID) -> int | None:
    """The seq of the first group a PlayCombo command produced (None: the game has none)."""
    conn = await asyncpg.connect(database_url)
    try:
        lines = [line async for line in portable.export_lines(conn, game_id, now=0, access=False)]
    finally:
        await conn.close()
    for event in export_format.read(lines).events:
        if "command" not in event.metadata:  # a later event of its group
            continue
        body = event.metadata["command"]["body"]
        if body["type"] == "table.play" and body["command"]["type"] == "PlayCombo":
            return event.seq
    return None


async def _verdicts(database_url: str) -> dict[str, tuple[bool, int | None, bool | None, str]]:
    conn = await asyncpg.connect(database_url)
    try:
        return {
            v.game_id: (v.ok, v.first_bad_seq, v.outcome_changes, v.level) async for v in reverify_all(conn)
        }
    finally:
        await conn.close()


async def test_verify_all_passes_the_golden_corpus_and_new_games_under_the_running_code(
    api: PlaylogClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    golden = await _load_golden(database_url)
    played = await _played(api)
    verdicts = await _verdicts(database_url)
    assert all(ok for ok, *_ in verdicts.values())
    levels = [level for *_, level in verdicts.values()]
    assert levels.count("replayed") == golden and levels.count("re-executed") == 4
    monkeypatch.setenv("PLAYLOG_DATABASE_URL", database_url)
    result = await asyncio.to_thread(CliRunner().invoke, main, ["verify", "--all"])
    assert result.exit_code == 0, result.output
    assert f"{golden + 4} games: 4 re-executed, {golden} replayed; 0 diverge" in result.output
    assert played


async def test_a_deliberate_rule_change_is_reported_for_exactly_the_games_it_affects(
    api: PlaylogClient, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _load_golden(database_url)
    played = await _played(api)
    combos = {str(g): await _first_combo(database_url, g) for g in played["exploding_kittens"]}
    affected = {game: seq for game, seq in combos.items() if seq is not None}
    assert affected, "the seeded games play combos"

    def no_combos(*_: object) -> None:
        raise RuleViolation("combo_forbidden", "Combos are no longer allowed.")

    monkeypatch.setattr(kitten_rules, "play_combo", no_combos)
    verdicts = await _verdicts(database_url)
    diverged = {game: seq for game, (ok, seq, _, _) in verdicts.items() if not ok}
    assert diverged == affected
    assert all(verdicts[game][2] is not None for game in affected)  # it says whether the outcome changes
    monkeypatch.setenv("PLAYLOG_DATABASE_URL", database_url)
    result = await asyncio.to_thread(CliRunner().invoke, main, ["verify", "--all"])
    assert result.exit_code == 1
    for game, seq in affected.items():
        assert (
            f"{game} exploding_kittens: diverges at seq {seq} (Combos are no longer allowed.)"
            in result.output
        )
