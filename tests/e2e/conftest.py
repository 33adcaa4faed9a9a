"""Helpers for tests that play through the HTTP API."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.client import CreatedGame, JoinedSeat, PlaylogClient, SeatView
from tests.e2e.contract import Contract
from tests.e2e.examples import RECORDING, Recorder


@pytest.fixture
async def http(http: AsyncTestClient[Litestar]) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The app's client (tests/conftest.py), every answer it receives held to the committed
    OpenAPI document: status, media type and JSON body (tests/e2e/contract.py)."""
    contract = Contract()
    hooks = [contract.hook, *([Recorder(contract).hook] if RECORDING else [])]
    http.event_hooks["response"].extend(hooks)
    yield http
    for hook in hooks:
        http.event_hooks["response"].remove(hook)
    assert contract.violations == [], "answers the document does not describe"


@dataclass
class Game:
    api: PlaylogClient
    created: CreatedGame
    seats: list[JoinedSeat]

    @property
    def id(self) -> uuid.UUID:
        return self.created.game_id

    async def view(self, seat: int) -> SeatView:
        return await self.api.view(self.id, seat, self.seats[seat].token)

    async def active(self) -> int:
        view = await self.view(0)
        assert view.view is not None
        active: int = view.view["public"]["active_seat"]
        return active

    async def send(self, seat: int, command: dict[str, Any], **kwargs: Any) -> Any:
        return await self.api.send(self.id, seat, self.seats[seat].token, command, **kwargs)


async def started_game(api: PlaylogClient, kind: str = "exploding_kittens", **options: Any) -> Game:
    options.setdefault("players", 2)
    created = await api.create_game(kind, options, spectator_delay=0)
    seats = [await api.join(created.game_id, f"p{n}") for n in range(created.seats)]
    await api.start(created.game_id, created.host_token)
    return Game(api, created, seats)


@pytest.fixture
async def game(api: PlaylogClient) -> Game:
    return await started_game(api, seed=7, reaction_window=0)


@pytest.fixture
def moderator(settings: Settings) -> dict[str, str]:
    """A moderator's headers (tests/e2e/dealt.py reads the server's seed with them)."""
    token = issue(settings.keyring(), Principal(role="moderator", name="mod"), 3600)
    return {"Authorization": f"Bearer {token}"}
