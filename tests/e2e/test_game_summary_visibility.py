"""GET /games/{id} shows what the caller may see: a private game only to its host, its seats and
moderators; a public game to anyone else only as spectators see it (the delay applied)."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.tools.client import PlaylogClient

EK = {"players": 2, "reaction_window": 0}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_private_game_is_shown_to_its_host_and_seats_only(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game("exploding_kittens", EK, public=False, spectator_delay=0)
    seat = await api.join(created.game_id, "alice")
    anonymous = await http.get(f"/games/{created.game_id}")
    assert (anonymous.status_code, anonymous.json()["code"]) == (403, "private_game")
    assert (
        await http.get(f"/games/{created.game_id}", headers=bearer(created.host_token))
    ).status_code == 200
    assert (await http.get(f"/games/{created.game_id}", headers=bearer(seat.token))).status_code == 200


async def test_a_public_game_shows_spectators_only_what_the_delay_has_released(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game("exploding_kittens", EK, public=True, spectator_delay=600)
    await api.join(created.game_id, "alice")
    await api.join(created.game_id, "bob")
    await api.start(created.game_id, created.host_token)
    spectator = (await http.get(f"/games/{created.game_id}")).json()
    host = (await http.get(f"/games/{created.game_id}", headers=bearer(created.host_token))).json()
    assert host["status"] == "running"
    # Nothing after the creation is ten minutes old: the status and version are the creation's.
    assert (spectator["status"], spectator["version"]) == ("open", 1)
    assert spectator["seats"] == ["alice", "bob"]  # lobby information shows at once
