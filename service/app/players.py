"""Players: an identity across games (an id and a display name, not unique) and its token.

The ``players`` table is the source of truth for who exists and whose token was revoked; what a
player did lives in the log (``lobby.joined`` names the player), its games in the read model
``player_games``, keyed by the player's id. Its statistics, read by anyone, are counted from
those rows as the public may know them (projections/spectator.py): a game counts once its end
is released by the spectator delay, as the last ruling released left its result. No
passwords, no e-mail: the player token is the credential, and its holder can revoke it
(``DELETE /players/me``). A player reads the transcript of each seat it held with that token,
long after the seat token has expired; who held a seat is read from the game's log. A player
that lost a seat token (a closed tab) gets a new one for a seat it holds now.
"""

from __future__ import annotations

import uuid
from datetime import datetime

import msgspec

from domain.text import is_name
from domain.viewers import Seat
from projections.read_models import PlayerOutcome
from projections.replay import transcript
from projections.spectator import released_sql, ruling_released_sql
from projections.table import Status
from service.app import auth
from service.app.audit import replayed
from service.app.auth import Keyring, Principal
from service.app.errors import ServiceError, not_found
from service.app.games import GameService
from service.app.ratings import KindRating
from service.store.pool import Pool


class KindStats(msgspec.Struct, frozen=True):
    kind: str
    played: int
    won: int  # as the outcomes stand after the rulings released
    penalties: int = 0  # marks by moderators' rulings (disputes upheld with "penalize")


class PlayerOut(msgspec.Struct, frozen=True):
    player_id: uuid.UUID
    name: str
    created_at: datetime
    stats: list[KindStats]
    ratings: list[KindRating] = []  # per kind it has played rated games of (docs/api.md, "Ratings")


class PlayerGameOut(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    seats: list[int]  # the seats this player holds (one, unless it joined several)
    status: Status
    outcome: PlayerOutcome | None  # for this player, once the game is finished
    created_at: datetime


# A page of a player's games starts after this row: newest first (service/http/paging.py).
PlayerGameKey = tuple[datetime, uuid.UUID]


def check_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= 40 or not is_name(name):
        raise ServiceError(
            422, "invalid_name", "A display name has 1 to 40 characters, no control character."
        )
    return name


# Per kind: the games whose end is released, won as the last released ruling (else the end) left
# them, and the penalty marks that ruling counted.
_STATS = f"""
SELECT g.kind, count(*)::int AS played,
       count(*) FILTER (WHERE coalesce(last.outcome, g.ended) = 'won')::int AS won,
       coalesce(sum(last.penalties), 0)::int AS penalties
  FROM player_games g
  LEFT JOIN LATERAL (
    SELECT r ->> 'outcome' AS outcome, (r ->> 'penalties')::int AS penalties
      FROM jsonb_array_elements(g.rulings) WITH ORDINALITY AS made(r, n)
     WHERE {ruling_released_sql("r", "g.spectator_delay")}
     ORDER BY n DESC LIMIT 1
  ) last ON true
 WHERE g.player_id = $1 AND {released_sql("g.finished_at", "g.spectator_delay")}
 GROUP BY g.kind
 ORDER BY g.kind
"""


class Players:
    def __init__(self, pool: Pool, keys: Keyring, token_lifetime: float) -> None:
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
        """Refuse this player's tokens from now on (the record and its statistics stay), and stop
        their webhooks: nobody could see or delete them any more."""
        await self._pool.execute(
            "UPDATE players SET revoked_at = now() WHERE player_id = $1 AND revoked_at IS NULL",
            player_id,
        )
        await self._pool.execute("DELETE FROM webhook_subscriptions WHERE player_id = $1", player_id)

    async def get(self, player_id: uuid.UUID) -> PlayerOut:
        row = await self._pool.fetchrow(
            "SELECT name, created_at FROM players WHERE player_id = $1", player_id
        )
        if row is None:
            raise not_found(f"Player {player_id}")
        stats = await self._pool.fetch(_STATS, player_id)
        return PlayerOut(
            player_id=player_id,
            name=row["name"],
            created_at=row["created_at"],
            stats=[
                KindStats(kind=s["kind"], played=s["played"], won=s["won"], penalties=s["penalties"])
                for s in stats
            ],
        )

    async def games(
        self, player_id: uuid.UUID, limit: int, after: PlayerGameKey | None = None, offset: int = 0
    ) -> tuple[list[PlayerGameOut], PlayerGameKey | None]:
        """A page of the games this player holds a seat in, newest first (from the read model),
        and the key of its last game when more follow. Keyed by (created_at, game_id): a game
        joined while the player pages shows on a new read, never shifting the pages to come."""
        rows = await self._pool.fetch(
            "SELECT game_id, kind, seats, status, outcome, created_at FROM player_games"
            " WHERE player_id = $1 AND ($4::timestamptz IS NULL OR (created_at, game_id) < ($4, $5::uuid))"
            " ORDER BY created_at DESC, game_id DESC LIMIT $2 OFFSET $3",
            player_id,
            limit + 1,
            offset,
            *(after or (None, None)),
        )
        games = [PlayerGameOut(**dict(row)) for row in rows[:limit]]
        return games, (games[-1].created_at, games[-1].game_id) if len(rows) > limit else None


def seat_not_held(game_id: uuid.UUID) -> ServiceError:
    return ServiceError(403, "seat_not_held", f"This player held no such seat of game {game_id}.")


async def player_transcript(
    games: GameService, player_id: uuid.UUID, game_id: uuid.UUID, seat: int | None
) -> str:
    """The transcript of a seat this player held at the end of the game (``seat``, or its first).

    The same text as the seat's own transcript route gives, whatever became of the seat token."""
    steps = await replayed(games, game_id)
    if not steps:
        raise not_found(f"Game {game_id}")
    final = steps[-1].table
    held = [n for n, player in enumerate(final.players) if player == str(player_id)]
    if not held or (seat is not None and seat not in held):
        raise seat_not_held(game_id)
    if final.status != "finished":
        raise ServiceError(409, "game_not_finished", "Transcripts are given once the game is over.")
    return transcript(steps, Seat(held[0] if seat is None else seat))


async def seat_token(
    games: GameService, keys: Keyring, lifetime: float, player_id: uuid.UUID, game_id: uuid.UUID, seat: int
) -> str:
    """A new token for a seat this player holds now: it names the seat's occupancy (the join's
    id), so it acts for the seat exactly as the token the join gave did."""
    table = await games.load(game_id)
    held = 0 <= seat < len(table.players) and table.players[seat] == str(player_id)
    occupancy = table.occupancies[seat] if held else None
    if occupancy is None:
        raise seat_not_held(game_id)
    return auth.issue(keys, Principal(role="seat", game_id=game_id, seat=seat, occupancy=occupancy), lifetime)
