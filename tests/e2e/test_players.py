"""Players: an identity across games, tied to the seats it joins, revocable by its holder."""

from __future__ import annotations

import uuid
from contextlib import AsyncExitStack

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from projections.table import SeatJoined
from service.config import Settings
from service.http.app import create_app
from service.store.events import EventStore
from service.tools.client import ApiError, PlaylogClient


async def test_joining_with_a_player_token_ties_the_seat_to_the_player(
    api: PlaylogClient, store: EventStore
) -> None:
    pat = await api.create_player("  pat ")
    created = await api.create_game("exploding_kittens", {"players": 2})
    seat = await api.join(created.game_id, player_token=pat.token)
    guest = await api.join(created.game_id, "guest")

    assert (pat.name, seat.player_id, guest.player_id) == ("pat", pat.player_id, None)
    joined = [
        msgspec.json.decode(e.data, type=SeatJoined)
        for e in await store.read(created.game_id)
        if e.type == "lobby.joined"
    ]
    assert [(j.name, j.player) for j in joined] == [("pat", str(pat.player_id)), ("guest", None)]
    assert joined[0].occupancy and joined[0].occupancy != joined[1].occupancy
    assert (await api.game(created.game_id)).seats == ["pat", "guest"]


async def test_a_refreshed_player_token_is_the_same_player_s(api: PlaylogClient) -> None:
    pat = await api.create_player("pat")
    fresh = await api.http.post("/players/me/token", headers={"Authorization": f"Bearer {pat.token}"})
    assert fresh.status_code == 200, fresh.text
    assert (fresh.json()["player_id"], fresh.json()["name"]) == (str(pat.player_id), "pat")
    created = await api.create_game("exploding_kittens", {"players": 2})
    seat = await api.join(created.game_id, player_token=fresh.json()["token"])
    assert seat.player_id == pat.player_id


async def test_a_player_revokes_its_own_token(api: PlaylogClient) -> None:
    pat = await api.create_player("pat")
    await api.revoke_player_token(pat.token)
    created = await api.create_game("exploding_kittens", {"players": 2})
    with pytest.raises(ApiError) as refused:
        await api.join(created.game_id, player_token=pat.token)
    assert (refused.value.status, refused.value.code) == (401, "token_revoked")
    with pytest.raises(ApiError) as again:
        await api.revoke_player_token(pat.token)
    assert again.value.status == 401
    assert (await api.player(pat.player_id)).name == "pat"  # the record and its statistics stay


async def test_only_a_player_token_or_none_joins_a_seat(api: PlaylogClient) -> None:
    created = await api.create_game("exploding_kittens", {"players": 3})
    with pytest.raises(ApiError) as host:
        await api.join(created.game_id, "h", player_token=created.host_token)
    assert (host.value.status, host.value.code) == (403, "forbidden")
    with pytest.raises(ApiError) as nameless:
        await api.join(created.game_id)
    assert (nameless.value.status, nameless.value.code) == (422, "invalid_name")


async def test_an_unknown_player_is_not_found_and_a_new_one_has_no_statistics(api: PlaylogClient) -> None:
    with pytest.raises(ApiError) as missing:
        await api.player(uuid.uuid4())
    assert missing.value.status == 404
    pat = await api.create_player("pat")
    assert (await api.player(pat.player_id)).stats == []
    with pytest.raises(ApiError) as empty:
        await api.create_player("   ")
    assert (empty.value.status, empty.value.code) == (422, "invalid_name")  # the pattern's own rule


async def test_a_revoked_player_token_is_refused_by_every_instance(settings: Settings) -> None:
    async with AsyncExitStack() as stack:
        apps = [await stack.enter_async_context(AsyncTestClient(create_app(settings))) for _ in range(2)]
        first, second = [PlaylogClient(str(http.base_url), http=http) for http in apps]
        pat = await first.create_player("pat")
        assert (await second.my_games(pat.token)).games == []
        await first.revoke_player_token(pat.token)
        for api in (first, second):
            with pytest.raises(ApiError) as refused:
                await api.my_games(pat.token)
            assert (refused.value.status, refused.value.code) == (401, "token_revoked")


async def test_a_player_gets_a_new_token_for_a_seat_it_holds_and_for_no_other(api: PlaylogClient) -> None:
    pat, sam = await api.create_player("pat"), await api.create_player("sam")
    created = await api.create_game("exploding_kittens", {"players": 2, "first_seat": 0})
    await api.join(created.game_id, player_token=pat.token)
    await api.join(created.game_id, "guest")
    await api.start(created.game_id, created.host_token)

    def asked(seat: int) -> str:
        return f"/players/me/games/{created.game_id}/seats/{seat}/token"

    again = await api.http.post(asked(0), headers={"Authorization": f"Bearer {pat.token}"})
    assert again.status_code == 200, again.text
    assert (again.json()["seat"], again.json()["player_id"]) == (0, str(pat.player_id))
    drawn = await api.send(created.game_id, 0, again.json()["token"], {"type": "DrawCard"})
    assert drawn.events  # the new token acts for the seat

    for token, seat, status, code in (
        (pat.token, 1, 403, "seat_not_held"),  # the guest's seat
        (sam.token, 0, 403, "seat_not_held"),  # another player's
        (created.host_token, 0, 403, "forbidden"),  # not a player token
    ):
        refused = await api.http.post(asked(seat), headers={"Authorization": f"Bearer {token}"})
        assert (refused.status_code, refused.json()["code"]) == (status, code)
