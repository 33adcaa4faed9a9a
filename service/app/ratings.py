"""Ratings: each player's rating per kind, computed when read from the public results.

The read model ``rated_games`` holds every finished rated game's results with their times
(projections/read_models.py); projections/ratings.py decides which of them the spectator delay
has released at the database's clock and rates the games in their one order. Computing from
scratch keeps every number exactly what ``playlog ratings`` recomputes from exports or from
``GET /ratings/{kind}/results``; each read still reads the kind's rows, but rates them again only
when a result was added or released since the last read.
"""

from __future__ import annotations

import uuid

import msgspec

from domain import registry
from projections.ratings import Placed, RatedGame, Rating, leaderboard, public_places, ratings, released
from service.app.errors import not_found
from service.store.replica import Reads


class KindRating(msgspec.Struct, frozen=True):
    """A player's rating in one kind (docs/api.md, "Ratings")."""

    kind: str
    ordinal: float  # mu - 3 sigma: what the leaderboard orders by
    mu: float
    sigma: float
    games: int  # the rated games counted
    provisional: bool  # fewer than 5 games counted


class RatedPlayer(msgspec.Struct, frozen=True):
    """One place on a kind's leaderboard."""

    rank: int  # 1 the best
    player_id: uuid.UUID
    name: str
    ordinal: float
    mu: float
    sigma: float
    games: int
    provisional: bool


class PublicResult(msgspec.Struct, frozen=True):
    """A rated game's result as the public may know it now: enough to recompute every rating."""

    game_id: uuid.UUID
    public_at: float  # when its end became public (epoch seconds): games are rated in this order
    places: dict[str, int]  # each rated player's place, 0 the best


# Every row the ratings need, and the database's clock the spectator delay is measured by.
_ROWS = """
SELECT game_id, kind, extract(epoch FROM finished_at)::float8 AS finished_at, spectator_delay,
       results::text AS results, extract(epoch FROM now())::float8 AS now
  FROM rated_games
 WHERE finished_at IS NOT NULL AND ($1::text IS NULL OR kind = $1)
"""

_RESULTS = msgspec.json.Decoder(tuple[Placed, ...])


def _kind(kind: str) -> str:
    if kind not in registry.KINDS:
        raise not_found(f"Game kind {kind!r}")
    return kind


class Ratings:
    def __init__(self, reads: Reads) -> None:
        self._reads = reads
        # Per kind (None: every kind), the last ratings computed and the public results they were
        # computed from: rated again only when a result was added or released since.
        self._computed: dict[str | None, tuple[frozenset[tuple[str, int]], dict[str, dict[str, Rating]]]] = {}

    async def rated(self, kind: str | None) -> dict[str, dict[str, Rating]]:
        """Every player's rating per kind (of ``kind``, or all) from what is public now."""
        games, now = await self.games(kind)
        public = frozenset((game.game_id, released(game, now)) for game in games)
        last = self._computed.get(kind)
        if last is not None and last[0] == public:
            return last[1]
        computed = ratings(games, now)
        self._computed[kind] = (public, computed)
        return computed

    async def games(self, kind: str | None) -> tuple[list[RatedGame], float]:
        """The rated games (of ``kind``, or all) and the database's now."""
        rows = await self._reads.fetch(_ROWS, kind)
        now = rows[0]["now"] if rows else 0.0
        return [
            RatedGame(
                game_id=str(row["game_id"]),
                kind=row["kind"],
                finished_at=row["finished_at"],
                spectator_delay=row["spectator_delay"],
                results=_RESULTS.decode(row["results"]),
            )
            for row in rows
        ], now

    async def of_player(self, player_id: uuid.UUID) -> list[KindRating]:
        """The player's rating in each kind it has one in (by kind)."""
        player = str(player_id)
        return [
            _kind_rating(kind, of_kind[player])
            for kind, of_kind in sorted((await self.rated(None)).items())
            if player in of_kind
        ]

    async def leaderboard(
        self, kind: str, limit: int, after: tuple[float, uuid.UUID] | None
    ) -> tuple[list[RatedPlayer], tuple[float, uuid.UUID] | None]:
        """A page of the kind's leaderboard, the best first, after the key ``(ordinal, player)``
        of the previous page's last place; and the key of this page's last when more follow."""
        board = leaderboard((await self.rated(_kind(kind))).get(kind, {}))
        start = 0
        if after is not None:
            key = (-after[0], str(after[1]))
            start = next((n for n, (p, r) in enumerate(board) if (-r.ordinal, p) > key), len(board))
        chosen = board[start : start + limit]
        names = await self._names([uuid.UUID(player) for player, _ in chosen])
        page = [
            _rated_player(start + n + 1, uuid.UUID(player), names.get(player, ""), rating)
            for n, (player, rating) in enumerate(chosen)
        ]
        more = start + limit < len(board)
        return page, (page[-1].ordinal, page[-1].player_id) if more and page else None

    async def results(self, kind: str) -> list[PublicResult]:
        """Every rated game of ``kind`` whose result is public now, in the order they are rated."""
        games, now = await self.games(_kind(kind))
        out = []
        for game in games:
            places = public_places(game, now)
            if places is not None:
                out.append(
                    PublicResult(uuid.UUID(game.game_id), game.finished_at + game.spectator_delay, places)
                )
        return sorted(out, key=lambda r: (r.public_at, str(r.game_id)))

    async def _names(self, players: list[uuid.UUID]) -> dict[str, str]:
        rows = await self._reads.fetch(
            "SELECT player_id, name FROM players WHERE player_id = ANY($1::uuid[])", players
        )
        return {str(row["player_id"]): row["name"] for row in rows}


def _kind_rating(kind: str, rating: Rating) -> KindRating:
    return KindRating(kind, rating.ordinal, rating.mu, rating.sigma, rating.games, rating.provisional)


def _rated_player(rank: int, player: uuid.UUID, name: str, rating: Rating) -> RatedPlayer:
    return RatedPlayer(
        rank, player, name, rating.ordinal, rating.mu, rating.sigma, rating.games, rating.provisional
    )
