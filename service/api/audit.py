"""Moderator audit: chain verification (and, for moderators, everything of a game).

Open to a moderator token for any game, and to anyone once a public game is finished.
"""

from __future__ import annotations

import uuid

from litestar import Controller, get
from litestar.di import Provide

from service.api.deps import provide_optional_principal
from service.auth import Principal
from service.errors import ServiceError
from service.games import GameService
from service.store import ChainReport


async def require_auditor(games: GameService, game_id: uuid.UUID, principal: Principal | None) -> None:
    if principal is not None and principal.role == "moderator":
        return
    table = await games.load(game_id)
    if table.public and table.status == "finished":
        return
    if principal is None:
        raise ServiceError(401, "unauthorized", "A moderator token is required until the game is over.")
    raise ServiceError(403, "forbidden", "A moderator token is required until the game is over.")


class AuditController(Controller):
    path = "/games/{game_id:uuid}/audit"
    tags = ["audit"]
    dependencies = {"principal": Provide(provide_optional_principal, sync_to_thread=False)}

    @get("/verify", operation_id="verifyChain", summary="Recompute the game's hash chain")
    async def verify(
        self, game_id: uuid.UUID, games: GameService, principal: Principal | None
    ) -> ChainReport:
        await require_auditor(games, game_id, principal)
        return await games.store.verify(game_id)
