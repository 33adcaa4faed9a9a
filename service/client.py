"""A typed Python client for the playlog HTTP API (httpx, async).

Errors come back as ``ApiError`` carrying the problem+json ``code``.
"""

from __future__ import annotations

import uuid
from types import TracebackType
from typing import Any

import httpx
import msgspec

# The lobby's and the audit's answers decode into the server's own Structs; events and views
# are each game's own unions, so they stay plain JSON here.
from service.api.lobby import GameCreatedOut as CreatedGame
from service.api.lobby import GameSummary
from service.api.lobby import SeatOut as JoinedSeat
from service.api.players import PlayerCreatedOut as CreatedPlayer
from service.games import SeatViewOut
from service.players import PlayerOut as Player
from service.store import ChainReport

__all__ = [
    "ApiError",
    "ChainReport",
    "CommandResult",
    "CreatedGame",
    "CreatedPlayer",
    "EventOut",
    "GameSummary",
    "JoinedSeat",
    "Player",
    "PlaylogClient",
    "SeatView",
]


class ApiError(Exception):
    def __init__(self, status: int, code: str, detail: str, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.body = body


class EventOut(msgspec.Struct, frozen=True):
    seq: int
    type: str
    recorded_at: float
    data: dict[str, Any]


class SeatView(SeatViewOut, frozen=True):
    """The server's seat view (its ``view`` decoded as plain JSON), with a shortcut."""

    @property
    def legal_commands(self) -> list[dict[str, Any]]:
        if not self.view:
            return []
        commands: list[dict[str, Any]] = self.view.get("legal_commands", [])
        return commands


class CommandResult(msgspec.Struct, frozen=True):
    version: int
    events: list[EventOut]
    view: SeatView | None = None


class PlaylogClient:
    """``async with PlaylogClient(url) as api: ...``"""

    def __init__(self, base_url: str, *, timeout: float = 30.0, http: httpx.AsyncClient | None = None):
        self._own = http is None
        self.http = http or httpx.AsyncClient(base_url=base_url, timeout=timeout)

    async def __aenter__(self) -> PlaylogClient:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own:
            await self.http.aclose()

    async def _call(
        self,
        method: str,
        path: str,
        type_: type[Any],
        *,
        token: str | None = None,
        json: Any = None,
        content: bytes | None = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        if content is not None:
            all_headers.setdefault("Content-Type", "application/json")
        response = await self.http.request(
            method, path, json=json, content=content, params=params, headers=all_headers
        )
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = {"detail": response.text}
            raise ApiError(response.status_code, body.get("code", "error"), body.get("detail", ""), body)
        return msgspec.json.decode(response.content, type=type_)

    async def create_game(
        self,
        kind: str,
        options: dict[str, Any],
        *,
        public: bool = True,
        spectator_delay: float | None = None,
    ) -> CreatedGame:
        body: dict[str, Any] = {"kind": kind, "options": options, "public": public}
        if spectator_delay is not None:
            body["spectator_delay"] = spectator_delay
        result: CreatedGame = await self._call("POST", "/games", CreatedGame, json=body)
        return result

    async def join(
        self, game_id: uuid.UUID, name: str | None = None, *, player_token: str | None = None
    ) -> JoinedSeat:
        """Take a free seat: as the player of ``player_token``, or as a guest."""
        body = {} if name is None else {"name": name}
        result: JoinedSeat = await self._call(
            "POST", f"/games/{game_id}/seats", JoinedSeat, json=body, token=player_token
        )
        return result

    async def create_player(self, name: str) -> CreatedPlayer:
        result: CreatedPlayer = await self._call("POST", "/players", CreatedPlayer, json={"name": name})
        return result

    async def player(self, player_id: uuid.UUID) -> Player:
        result: Player = await self._call("GET", f"/players/{player_id}", Player)
        return result

    async def refresh_player_token(self, token: str) -> CreatedPlayer:
        result: CreatedPlayer = await self._call("POST", "/players/me/token", CreatedPlayer, token=token)
        return result

    async def revoke_player_token(self, token: str) -> None:
        response = await self.http.request(
            "DELETE", "/players/me", headers={"Authorization": f"Bearer {token}"}
        )
        if response.status_code >= 400:
            body = response.json()
            raise ApiError(response.status_code, body.get("code", "error"), body.get("detail", ""), body)

    async def start(self, game_id: uuid.UUID, host_token: str) -> GameSummary:
        result: GameSummary = await self._call(
            "POST", f"/games/{game_id}/start", GameSummary, token=host_token
        )
        return result

    async def game(self, game_id: uuid.UUID) -> GameSummary:
        result: GameSummary = await self._call("GET", f"/games/{game_id}", GameSummary)
        return result

    async def leave(self, game_id: uuid.UUID, seat: int, token: str) -> GameSummary:
        result: GameSummary = await self._call(
            "DELETE", f"/games/{game_id}/seats/{seat}", GameSummary, token=token
        )
        return result

    async def send(
        self,
        game_id: uuid.UUID,
        seat: int,
        token: str,
        command: dict[str, Any],
        *,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
        with_view: bool = False,
    ) -> CommandResult:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        params: dict[str, Any] = {}
        if expected_version is not None:
            params["expected_version"] = expected_version
        if with_view:
            params["view"] = "true"
        result: CommandResult = await self._call(
            "POST",
            f"/games/{game_id}/seats/{seat}/commands",
            CommandResult,
            token=token,
            content=msgspec.json.encode(command),
            params=params,
            headers=headers,
        )
        return result

    async def view(self, game_id: uuid.UUID, seat: int, token: str) -> SeatView:
        result: SeatView = await self._call(
            "GET", f"/games/{game_id}/seats/{seat}/view", SeatView, token=token
        )
        return result

    async def events(self, game_id: uuid.UUID, seat: int, token: str, after: int = 0) -> list[EventOut]:
        result: list[EventOut] = await self._call(
            "GET",
            f"/games/{game_id}/seats/{seat}/events",
            list[EventOut],
            token=token,
            params={"after": after},
        )
        return result

    async def verify(self, game_id: uuid.UUID, token: str | None = None) -> ChainReport:
        result: ChainReport = await self._call(
            "GET", f"/games/{game_id}/audit/verify", ChainReport, token=token
        )
        return result
