"""Match traces (issue 53): a seat's trace of a finished game holds exactly what the seat was
shown; `playlog verify-trace` finds it in the game's export, and finds any step changed; every
decision a computer player made is the level's choice on the trace's observation at that step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

import bots
from service.config import Settings
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.e2e.commandline import playlog

GAMES = [
    ("exploding_kittens", {"players": 2, "reaction_window": 0}, ("normal", "easy")),
    ("a_risk_cat", {"players": 3}, ("easy", "normal", "normal")),
]


@pytest.mark.parametrize(("kind", "options", "levels"), GAMES)
async def test_a_seat_s_trace_verifies_against_the_export_and_holds_every_decision(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    settings: Settings,
    tmp_path: Path,
    kind: str,
    options: dict[str, object],
    levels: tuple[bots.Level, ...],
) -> None:
    report = await play_game(api, kind, dict(options), levels=levels)
    assert report.finished, report.errors
    game = str(report.game_id)
    export = tmp_path / "game.jsonl"
    export.write_bytes((await http.get(f"/games/{game}/export")).content)
    seat = 1
    token = report.tokens[seat]
    answer = await http.get(f"/games/{game}/seats/{seat}/trace", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    trace = tmp_path / "seat.trace.jsonl"
    trace.write_bytes(answer.content)
    lines = [json.loads(line) for line in answer.text.splitlines()]
    assert lines[0]["trace"] == "playlog/trace/v1" and lines[0]["seat"] == seat
    assert [line["n"] for line in lines[1:]] == list(range(1, len(lines)))

    code, out, err = await playlog(settings, "verify-trace", str(export), str(trace))
    assert code == 0, out + err
    assert "trace: ok" in out

    steps = {line["n"]: line for line in lines[1:]}
    mine = [d for d in report.decisions if d.seat == seat]
    assert mine
    for decision in mine:
        step = steps[decision.version]
        assert step["observation"] == decision.view and step["moves"] == decision.moves
        rng = bots.seeded(game, seat, decision.version)
        assert bots.choose(kind, decision.level, step["observation"], step["moves"], rng) == decision.move

    doctored = lines[:]
    changed = next(i for i, line in enumerate(doctored) if i and line["moves"])
    doctored[changed] = {**doctored[changed], "moves": doctored[changed]["moves"][:-1] or [{"type": "X"}]}
    trace.write_text("".join(json.dumps(line) + "\n" for line in doctored))
    code, out, _ = await playlog(settings, "verify-trace", str(export), str(trace))
    assert code == 1 and f"line {changed + 1}" in out and "moves" in out


async def test_a_trace_waits_for_the_end_of_the_game(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=0
    )
    seat = await api.join(created.game_id, "ada")
    answer = await http.get(
        f"/games/{created.game_id}/seats/{seat.seat}/trace", headers={"Authorization": f"Bearer {seat.token}"}
    )
    assert answer.status_code == 409 and answer.json()["code"] == "game_not_finished"
    assert (await http.get(f"/games/{created.game_id}/seats/{seat.seat}/trace")).status_code == 401
