"""A host seats computer players beside a person (issue 53): they join as players of their own,
the service plays their seats through each seat's own use case, and the game is played to its
end; every computer move is in the log under its seat, keyed by the seat's version."""

from __future__ import annotations

import asyncio
import random
import uuid

import asyncpg
import pytest

from service.tools.bot import pick
from service.tools.client import ApiError, PlaylogClient

GAMES = [
    ("exploding_kittens", {"players": 3, "reaction_window": 0}, ["normal", "easy"]),
    ("a_risk_cat", {"players": 3}, ["normal", "normal"]),
]


@pytest.mark.parametrize(("kind", "options", "levels"), GAMES)
async def test_a_person_plays_to_the_end_beside_two_computer_players(
    api: PlaylogClient, database_url: str, kind: str, options: dict[str, object], levels: list[str]
) -> None:
    created = await api.create_game(kind, dict(options), spectator_delay=0)
    person = await api.join(created.game_id, "hana")
    host = {"Authorization": f"Bearer {created.host_token}"}
    seated = []
    for level in levels:
        response = await api.http.post(
            f"/games/{created.game_id}/computer-players", json={"level": level}, headers=host
        )
        assert response.status_code == 201, response.text
        seated.append(response.json())
    assert [s["seat"] for s in seated] == [1, 2]
    assert [s["name"] for s in seated] == [f"Computer ({level})" for level in levels]
    await api.start(created.game_id, created.host_token)

    rng = random.Random(7)
    async with asyncio.timeout(120):
        while True:
            view = await api.view(created.game_id, person.seat, person.token)
            if view.status == "finished":
                break
            command = pick(rng, view.legal_commands)
            if command is None:
                await asyncio.sleep(0.02)  # the computer players' turn
                continue
            try:
                await api.send(
                    created.game_id, person.seat, person.token, command, expected_version=view.version
                )
            except ApiError as exc:
                assert exc.status in (409, 422), exc  # the computer players moved first

    conn = await asyncpg.connect(database_url)
    try:
        keyed = await conn.fetch(
            "SELECT command_id FROM commands WHERE game_id = $1 AND command_id LIKE 'seat:%:computer-%'",
            created.game_id,
        )
    finally:
        await conn.close()
    seats = {int(row["command_id"].split(":")[1]) for row in keyed}
    assert seats == {1, 2}, "both computer players moved"


async def test_a_computer_player_needs_the_host_or_a_seat(api: PlaylogClient) -> None:
    created = await api.create_game("a_risk_cat", {"players": 3}, spectator_delay=0)
    response = await api.http.post(f"/games/{created.game_id}/computer-players", json={"level": "normal"})
    assert response.status_code == 401
    host = {"Authorization": f"Bearer {created.host_token}"}
    response = await api.http.post(
        f"/games/{created.game_id}/computer-players", json={"level": "hard"}, headers=host
    )
    assert response.status_code == 400 and response.json()["code"] == "invalid_body"
    response = await api.http.post(f"/games/{uuid.uuid4()}/computer-players", json={}, headers=host)
    assert response.status_code in (403, 404)
