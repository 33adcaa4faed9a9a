"""A typed Python client for the playlog HTTP API (httpx, async).

Errors come back as ``ApiError`` carrying the problem+json ``code``.

With ``max_retries`` (0 by default), a request that may be repeated is retried on a transport error
or a 5xx, with a growing pause (the server's ``Retry-After`` when it gives one): reads, and
commands and lobby calls sent with an Idempotency-Key, which the server applies once however
often it receives them (a retried join gets the same seat and token). Lobby calls sent without a
key are retried only when they surely did nothing: the connection was never made, or the answer
was 503 (the database refused the write).

Every answer to a command carries the service's signed receipt (docs/receipts.md). The client
checks each against the log's keys (given as ``log_keys``, else fetched from ``GET /log/keys`` on
first use) and against the answer and the request it sent, and keeps it in ``receipts``: the
evidence a player holds should the game later be told differently. A receipt that does not
verify raises ``ReceiptRefused``.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import httpx
import msgspec

from projections import receipts as receipting
from projections.notes import Verifier
from projections.seat_view import SeatViewOut
from service.app.idempotency import fingerprint
from service.app.players import PlayerGameOut
from service.app.players import PlayerOut as Player

# The lobby's and the audit's answers decode into the server's own Structs; events and views
# are each game's own unions, so they stay plain JSON here.
from service.http.api.erasure import ErasureOut as Erased
from service.http.api.lobby import GameCreatedOut as CreatedGame
from service.http.api.lobby import SeatOut as JoinedSeat
from service.http.api.players import PlayerCreatedOut as CreatedPlayer
from service.http.api.players import PlayerGames
from service.store.events import ChainReport
from service.tools.transport import Retrying, RoundRobin
from service.views.summary import GameSummary

__all__ = [
    "ApiError",
    "ChainReport",
    "CommandResult",
    "CreatedGame",
    "CreatedPlayer",
    "Erased",
    "EventOut",
    "GameSummary",
    "JoinedSeat",
    "Player",
    "PlaylogClient",
    "ReceiptRefused",
    "RoundRobin",
    "SeatView",
]


class ApiError(Exception):
    def __init__(self, status: int, code: str, detail: str, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.body = body


class ReceiptRefused(Exception):
    """An answer whose receipt is missing, not signed by the log's key, or not of this answer."""


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
    receipt: str | None = None


class PlaylogClient:
    """``async with PlaylogClient(url) as api: ...``"""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 30.0,
        http: httpx.AsyncClient | None = None,
        max_retries: int = 0,
        first_pause: float = 0.2,
        max_pause: float = 3.0,
        log_keys: Sequence[str] | None = None,
    ):
        self.log_keys = None if log_keys is None else [Verifier.parse(k) for k in log_keys]
        self.receipts: list[str] = []  # every receipt checked, in the order received
        # Each seat's highest version this client was given, sent back as ``min_version`` on the
        # seat's reads: whichever instance answers, it includes the seat's own commands (read
        # your writes, docs/api.md).
        self.seen: dict[tuple[uuid.UUID, int], int] = {}
        self._own = http is None
        self.http = http or httpx.AsyncClient(base_url=base_url, timeout=timeout)
        self.retrying = Retrying(max_retries, first_pause, max_pause)

    @property
    def retries(self) -> int:
        """Requests sent again, over this client's life."""
        return self.retrying.sent_again

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
        idempotent: bool | None = None,
        answered: dict[str, str] | None = None,
    ) -> Any:
        all_headers = dict(headers or {})
        if token:
            all_headers["Authorization"] = f"Bearer {token}"
        if content is not None:
            all_headers.setdefault("Content-Type", "application/json")
        repeatable = method == "GET" if idempotent is None else idempotent
        response = await self.retrying.send(
            self.http,
            method,
            path,
            repeatable,
            json=json,
            content=content,
            params=params,
            headers=all_headers,
        )
        if response.status_code >= 400:
            try:
                body = response.json()
            except ValueError:
                body = {"detail": response.text}
            raise ApiError(response.status_code, body.get("code", "error"), body.get("detail", ""), body)
        if answered is not None:  # the caller reads the answer's headers too
            answered.update(response.headers)
        return msgspec.json.decode(response.content, type=type_)

    async def create_game(
        self,
        kind: str,
        options: dict[str, Any],
        *,
        public: bool = True,
        spectator_delay: float | None = None,
        idempotency_key: str | None = None,
        timeouts_to_remove: int | None = None,
        lobby_timeout: float | None = None,
    ) -> CreatedGame:
        """A new game; the clock's settings None: the defaults (docs/api.md, "Clocks")."""
        body: dict[str, Any] = {"kind": kind, "options": options, "public": public}
        if spectator_delay is not None:
            body["spectator_delay"] = spectator_delay
        if timeouts_to_remove is not None:
            body["timeouts_to_remove"] = timeouts_to_remove
        if lobby_timeout is not None:
            body["lobby_timeout"] = lobby_timeout
        result: CreatedGame = await self._call(
            "POST", "/games", CreatedGame, json=body, **_keyed(idempotency_key)
        )
        return result

    async def join(
        self,
        game_id: uuid.UUID,
        name: str | None = None,
        *,
        player_token: str | None = None,
        idempotency_key: str | None = None,
    ) -> JoinedSeat:
        """Take a free seat: as the player of ``player_token``, or as a guest."""
        body = {} if name is None else {"name": name}
        result: JoinedSeat = await self._call(
            "POST",
            f"/games/{game_id}/seats",
            JoinedSeat,
            json=body,
            token=player_token,
            **_keyed(idempotency_key),
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

    async def my_games(self, player_token: str, limit: int = 50, page: str | None = None) -> PlayerGames:
        """A page of the player's games, newest first: the first, or the one a page's ``next`` names."""
        result: PlayerGames = await self._call(
            "GET",
            page or "/players/me/games",
            PlayerGames,
            token=player_token,
            params=None if page else {"limit": limit},
        )
        return result

    async def all_my_games(self, player_token: str, limit: int = 50) -> list[PlayerGameOut]:
        """Every game of the player, following each page's ``next`` to the end."""
        page = await self.my_games(player_token, limit)
        games = list(page.games)
        while page.next is not None:
            page = await self.my_games(player_token, page=page.next)
            games += page.games
        return games

    async def revoke_player_token(self, token: str) -> None:
        response = await self.http.request(
            "DELETE", "/players/me", headers={"Authorization": f"Bearer {token}"}
        )
        if response.status_code >= 400:
            body = response.json()
            raise ApiError(response.status_code, body.get("code", "error"), body.get("detail", ""), body)

    async def erase_player(self, token: str) -> Erased:
        """Erase the player of ``token`` (docs/erasure.md), which also revokes it; cannot be undone.
        Not retried: the first attempt revokes the token a retry would send."""
        result: Erased = await self._call(
            "DELETE", "/players/me", Erased, token=token, params={"erase": "true"}, idempotent=False
        )
        return result

    async def erase_seat(self, game_id: uuid.UUID, seat: int, token: str) -> Erased:
        """Erase the guest holding ``seat`` with its seat token (docs/erasure.md); erasing again
        changes nothing, so it may be retried."""
        result: Erased = await self._call(
            "POST", f"/games/{game_id}/seats/{seat}/erase", Erased, token=token, idempotent=True
        )
        return result

    async def start(
        self, game_id: uuid.UUID, host_token: str, *, idempotency_key: str | None = None
    ) -> GameSummary:
        result: GameSummary = await self._call(
            "POST", f"/games/{game_id}/start", GameSummary, token=host_token, **_keyed(idempotency_key)
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
        params: dict[str, Any] = {}
        if expected_version is not None:
            params["expected_version"] = expected_version
        if with_view:
            params["view"] = "true"
        body = msgspec.json.encode(command)
        result: CommandResult = await self._call(
            "POST",
            f"/games/{game_id}/seats/{seat}/commands",
            CommandResult,
            token=token,
            content=body,
            params=params,
            **_keyed(idempotency_key),
        )
        self._saw(game_id, seat, result.version)
        if result.receipt is not None:  # None only when the command appended nothing
            await self.check_receipt(
                result.receipt,
                game_id=game_id,
                seat=seat,
                version=result.version,
                events=result.events,
                fingerprint=fingerprint("sendCommand", (game_id, seat), body),
                key=idempotency_key,
            )
        return result

    async def check_receipt(
        self,
        text: str,
        *,
        game_id: uuid.UUID,
        seat: int,
        version: int,
        events: Sequence[EventOut],
        fingerprint: str | None,
        key: str | None,
    ) -> receipting.Receipt:
        """Check ``text`` is the log's signed receipt of this answer, and keep it."""
        if self.log_keys is None:
            keys = await self.http.get("/log/keys")
            keys.raise_for_status()
            self.log_keys = [Verifier.parse(k) for k in keys.json()["log_keys"]]
        try:
            receipt = receipting.verify(text, self.log_keys).receipt
        except receipting.ReceiptError as exc:
            raise ReceiptRefused(str(exc)) from None
        wrong = receipting.contradiction(
            receipt,
            game_id=game_id,
            seat=seat,
            version=version,
            events=[(e.seq, e.type, e.data) for e in events],
            fingerprint=fingerprint,
            key=key,
        )
        if wrong:
            raise ReceiptRefused(wrong)
        self.receipts.append(text)
        return receipt

    def _saw(self, game_id: uuid.UUID, seat: int, version: int) -> None:
        if version > self.seen.get((game_id, seat), 0):
            self.seen[(game_id, seat)] = version

    def _at_least(self, game_id: uuid.UUID, seat: int) -> dict[str, int]:
        seen = self.seen.get((game_id, seat), 0)
        return {"min_version": seen} if seen else {}

    async def view(self, game_id: uuid.UUID, seat: int, token: str) -> SeatView:
        result: SeatView = await self._call(
            "GET",
            f"/games/{game_id}/seats/{seat}/view",
            SeatView,
            token=token,
            params=self._at_least(game_id, seat),
        )
        self._saw(game_id, seat, result.version)
        return result

    async def events(self, game_id: uuid.UUID, seat: int, token: str, after: int = 0) -> list[EventOut]:
        """The seat's events after its number ``after``; their receipt is checked and kept."""
        headers: dict[str, str] = {}
        result: list[EventOut] = await self._call(
            "GET",
            f"/games/{game_id}/seats/{seat}/events",
            list[EventOut],
            token=token,
            params={"after": after, **self._at_least(game_id, seat)},
            answered=headers,
        )
        if receipt := headers.get("playlog-receipt"):
            checked = await self.check_receipt(
                base64.b64decode(receipt).decode(),
                game_id=game_id,
                seat=seat,
                version=result[-1].seq if result else after,
                events=result,
                fingerprint=None,
                key=None,
            )
            if checked.before != after:
                raise ReceiptRefused("the receipt is of other events")
        return result

    async def verify(
        self, game_id: uuid.UUID, token: str | None = None, *, reason: str | None = None
    ) -> ChainReport:
        """The chain recomputed; a moderator reading a running game gives ``reason`` (recorded)."""
        result: ChainReport = await self._call(
            "GET",
            f"/games/{game_id}/audit/verify",
            ChainReport,
            token=token,
            params={"reason": reason} if reason else None,
        )
        return result


def _keyed(idempotency_key: str | None) -> dict[str, Any]:
    """A call's header and retry policy: with a key, the server answers a repeat as the first."""
    if idempotency_key is None:
        return {}
    return {"headers": {"Idempotency-Key": idempotency_key}, "idempotent": True}
