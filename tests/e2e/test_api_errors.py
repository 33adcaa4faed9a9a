"""Every refused request: problem+json with a stable code, and nothing appended."""

from __future__ import annotations

import uuid

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.tools.client import ApiError, PlaylogClient
from tests.e2e.conftest import Game, started_game


async def _refused(coro: object, status: int, code: str) -> ApiError:
    with pytest.raises(ApiError) as raised:
        await coro  # type: ignore[misc]
    assert (raised.value.status, raised.value.code) == (status, code), raised.value.body
    assert raised.value.detail
    return raised.value


async def test_unknown_game_is_404(api: PlaylogClient) -> None:
    await _refused(api.game(uuid.uuid4()), 404, "not_found")


async def test_unknown_game_kind_is_refused(api: PlaylogClient) -> None:
    await _refused(api.create_game("chess", {"players": 2}), 404, "unknown_game_kind")


async def test_bad_options_are_refused_at_creation(api: PlaylogClient) -> None:
    error = await _refused(api.create_game("exploding_kittens", {"players": 9}), 422, "invalid_options")
    assert "players" in error.detail
    await _refused(
        api.create_game("exploding_kittens", {"players": 2, "colour": "red"}), 422, "invalid_options"
    )


async def test_unknown_command_type_names_the_field(game: Game) -> None:
    active = await game.active()
    error = await _refused(game.send(active, {"type": "Castle"}), 400, "invalid_body")
    assert "$.type" in error.detail


async def test_wrong_field_type_names_the_field(game: Game) -> None:
    active = await game.active()
    error = await _refused(game.send(active, {"type": "Defuse", "position": "top"}), 400, "invalid_body")
    assert "$.position" in error.detail


async def test_not_your_turn(game: Game) -> None:
    other = 1 - await game.active()
    before = (await game.view(0)).version
    await _refused(game.send(other, {"type": "DrawCard"}), 422, "not_your_turn")
    assert (await game.view(0)).version == before


async def test_card_not_in_hand(game: Game) -> None:
    active = await game.active()
    view = await game.view(active)
    assert view.view is not None
    titles = ("Attack", "Skip", "Shuffle", "See the Future", "Favor")
    missing = next(c for c in titles if c not in view.view["hand"])
    await _refused(game.send(active, {"type": "PlayCard", "card": missing}), 422, "card_not_in_hand")


async def test_no_token_is_401(api: PlaylogClient, game: Game) -> None:
    await _refused(api.view(game.id, 0, ""), 401, "unauthorized")
    await _refused(api.view(game.id, 0, "not-a-jwt"), 401, "unauthorized")


async def test_other_seats_token_is_403(api: PlaylogClient, game: Game) -> None:
    await _refused(api.view(game.id, 0, game.seats[1].token), 403, "forbidden")
    await _refused(api.send(game.id, 0, game.seats[1].token, {"type": "DrawCard"}), 403, "forbidden")


async def test_token_of_another_game_does_nothing(api: PlaylogClient, game: Game) -> None:
    other = await started_game(api, seed=8, reaction_window=0)
    await _refused(api.view(game.id, 0, other.seats[0].token), 403, "forbidden")
    await _refused(api.send(game.id, 0, other.seats[0].token, {"type": "DrawCard"}), 403, "forbidden")


async def test_the_host_or_a_seat_of_the_game_starts_it(api: PlaylogClient) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2})
    other = await api.create_game("exploding_kittens", {"players": 2})
    stranger = await api.join(other.game_id, "z")
    seat = await api.join(created.game_id, "a")
    await _refused(api.start(created.game_id, stranger.token), 403, "forbidden")
    await _refused(api.start(created.game_id, other.host_token), 403, "forbidden")
    await _refused(api.start(created.game_id, seat.token), 409, "seats_not_filled")
    await _refused(api.start(created.game_id, created.host_token), 409, "seats_not_filled")
    await api.join(created.game_id, "b")
    await _refused(api.join(created.game_id, "c"), 409, "game_full")
    await api.start(created.game_id, seat.token)  # the host never came back: a seat starts
    await _refused(api.start(created.game_id, created.host_token), 409, "game_already_started")
    # A seat that left holds it no more: its token starts nothing.
    third = await api.create_game("exploding_kittens", {"players": 2})
    gone = await api.join(third.game_id, "a")
    await api.leave(third.game_id, gone.seat, gone.token)
    await api.join(third.game_id, "b")
    await api.join(third.game_id, "c")
    await _refused(api.start(third.game_id, gone.token), 403, "seat_token_revoked")


async def test_stale_expected_version_is_409_with_the_current_version(game: Game) -> None:
    active = await game.active()
    version = (await game.view(active)).version
    error = await _refused(
        game.send(active, {"type": "DrawCard"}, expected_version=version - 1), 409, "version_conflict"
    )
    assert error.body["current_version"] == version


async def test_oversized_body_is_413(http: AsyncTestClient[Litestar], game: Game) -> None:
    active = await game.active()
    response = await http.post(
        f"/games/{game.id}/seats/{active}/commands",
        content=b'{"type": "DrawCard", "pad": "' + b"x" * 200_000 + b'"}',
        headers={"Authorization": f"Bearer {game.seats[active].token}"},
    )
    assert response.status_code == 413
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "body_too_large"


async def test_retried_idempotency_key_returns_the_original_and_appends_nothing(game: Game) -> None:
    active = await game.active()
    first = await game.send(active, {"type": "DrawCard"}, idempotency_key="k-1")
    again = await game.send(active, {"type": "DrawCard"}, idempotency_key="k-1")
    assert again == first
    assert (await game.view(0)).version == first.version


async def test_reused_idempotency_key_with_another_body_is_422(game: Game) -> None:
    active = await game.active()
    await game.send(active, {"type": "DrawCard"}, idempotency_key="k-2")
    await _refused(
        game.send(active, {"type": "Concede"}, idempotency_key="k-2"), 422, "idempotency_key_reused"
    )


async def test_problem_details_shape(http: AsyncTestClient[Litestar]) -> None:
    response = await http.get(f"/games/{uuid.uuid4()}")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert {"status", "code", "title", "detail", "type"} <= set(body)
