"""Ratings: a kind's leaderboard, and the public results anyone recomputes it from."""

from __future__ import annotations

import uuid
from typing import Literal

import msgspec
from litestar import Controller, Response
from litestar.datastructures import State

from service.app.ratings import PublicResult, RatedPlayer, Ratings
from service.http import paging
from service.http.api.deps import AnyRequest
from service.http.api.problems import PARAMS, UNAVAILABLE, problems
from service.http.fast.routes import get
from service.http.paging import CURSOR_CODES, DEFAULT_LIMIT, LINK, Cursor, Limit


class Leaderboard(msgspec.Struct, frozen=True):
    kind: str
    players: list[RatedPlayer]  # the best first
    next: str | None  # the next page's URL (docs/api.md, "Pages"); None: the last page
    limit: int


class PublicResults(msgspec.Struct, frozen=True):
    kind: str
    results: list[PublicResult]  # in the order they are rated: by public_at, then game_id


class LeaderboardKey(paging.Key, frozen=True, array_like=True):
    list: Literal["ratings"]
    ordinal: float
    player_id: uuid.UUID


def _ratings(state: State) -> Ratings:
    ratings: Ratings = state.ratings
    return ratings


class RatingsController(Controller):
    path = "/ratings"
    tags = ["players"]

    @get(
        "/{kind:str}",
        operation_id="getLeaderboard",
        summary="A kind's leaderboard: every rated player, the best first",
        description="Weng-Lin ratings (OpenSkill's Plackett-Luce model) from the public results of "
        "rated games: a game counts once its end is a spectator delay old, as the rulings released "
        "by then left it (a voided game does not count). Ordered by `ordinal` (mu - 3 sigma), then "
        "player id. A rating is provisional until it counts 5 games.",
        responses=problems(PARAMS, {400: CURSOR_CODES}, {404: ["not_found"]}, UNAVAILABLE),
        response_headers=[LINK],
    )
    async def leaderboard(
        self,
        kind: str,
        state: State,
        request: AnyRequest,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
    ) -> Response[Leaderboard]:
        after = paging.decode(cursor, LeaderboardKey)
        key = (after.ordinal, after.player_id) if after else None
        players, last = await _ratings(state).leaderboard(kind, limit, key)
        more = paging.next_page(request, LeaderboardKey("ratings", *last) if last else None)
        return paging.page(Leaderboard(kind=kind, players=players, next=more, limit=limit), more)

    @get(
        "/{kind:str}/results",
        operation_id="getRatedResults",
        summary="The public results of a kind's rated games, to recompute its ratings",
        description="Each rated game whose end is public, with each rated player's place as the "
        "rulings released so far left it (voided games left out), in the order they are rated. "
        "`playlog ratings --url` recomputes the leaderboard from this list.",
        responses=problems(PARAMS, {404: ["not_found"]}, UNAVAILABLE),
    )
    async def results(self, kind: str, state: State) -> PublicResults:
        return PublicResults(kind=kind, results=await _ratings(state).results(kind))
