"""Players: an identity across games (an id and a display name, not unique) and its token.

The ``players`` table is the source of truth for who exists and whose token was revoked; what a
player did lives in the log (``lobby.joined`` names the player) and its statistics in the read
model ``player_stats``, keyed by the player's id. No passwords, no e-mail: the player token is
the credential, and its holder can revoke it (``DELETE /players/me``).
"""

from __future__ import annotations

import uuid
from datetime import datetime

import asyncpg
import msgspec

from service import auth
from service.auth import Keyring, Principal
from service.errors import ServiceError, not_found


class KindStats(msgspec.Struct, frozen=True):
    kind: str
    played: int
    won: int  # as the outcomes stand after any ruling
    penalties: int = 0  # marks by moderators' rulings (disputes upheld with "penalize")


class PlayerOut(msgspec.Struct, frozen=True):
    player_id: uuid.UUID
    name: str
    created_at: datetime
    stats: list[KindStats]


def check_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= 40:
        raise ServiceError(422, "invalid_name", "A display name has 1 to 40 characters.")
    return name


class Players:
    def __init__(self, pool: asyncpg.Pool, keys: Keyring, token_lifetime: float) -> None:
        self._pool = pool
        self._keys = keys
        self._lifetime = token_lifetime

    async def create(self, name: str) -> tuple[uuid.UUID, str]:
        """A new player named ``name``, and its token."""
        name = check_name(name)
        player_id = uuid.uuid4()
        await self._pool.execute("INSERT INTO players (player_id, name) VALUES ($1, $2)", player_id, name)
        return player_id, self.token(player_id)

    def token(self, player_id: uuid.UUID) -> str:
        """A player token for ``player_id``, signed with the newest key."""
        return auth.issue(self._keys, Principal(role="player", player_id=player_id), self._lifetime)

    async def check(self, principal: Principal) -> None:
        """401 unless this player token's player exists and its tokens are not revoked."""
        revoked = await self._pool.fetchval(
            "SELECT revoked_at IS NOT NULL FROM players WHERE player_id = $1", principal.player_id
        )
        if revoked is None or revoked:
            raise ServiceError(401, "token_revoked", "This player token has been revoked.")

    async def name(self, player_id: uuid.UUID) -> str:
        name: str | None = await self._pool.fetchval(
            "SELECT name FROM players WHERE player_id = $1", player_id
        )
        if name is None:
            raise not_found(f"Player {player_id}")
        return name

    async def revoke(self, player_id: uuid.UUID) -> None:
        """Refuse this player's tokens from now on (the record and its statistics stay)."""
        await self._pool.execute(
            "UPDATE players SET revoked_at = now() WHERE player_id = $1 AND revoked_at IS NULL",
            player_id,
        )

    async def get(self, player_id: uuid.UUID) -> PlayerOut:
        row = await self._pool.fetchrow(
            "SELECT name, created_at FROM players WHERE player_id = $1", player_id
        )
        if row is None:
            raise not_found(f"Player {player_id}")
        stats = await self._pool.fetch(
            "SELECT kind, played, won, penalties FROM player_stats WHERE player_id = $1 ORDER BY kind",
            player_id,
        )
        return PlayerOut(
            player_id=player_id,
            name=row["name"],
            created_at=row["created_at"],
            stats=[
                KindStats(kind=s["kind"], played=s["played"], won=s["won"], penalties=s["penalties"])
                for s in stats
            ],
        )
