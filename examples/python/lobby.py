"""The lobby on the client generated from playlog's OpenAPI document: create, join, start.

It creates a game of ``kind`` (options as JSON), a player for each seat, joins each of them and
starts the game, every write with its own ``Idempotency-Key`` and sent again, unchanged, while its
answer is lost (``--drop``: a share of the answers dropped on purpose, drops.py). Then it finds the
game in the public listing, read page by page as every list is (each page's ``next``). It prints
the game, each seat's token and how many public games of its kind it read, as one line of JSON,
for bot.py:

    python examples/python/lobby.py http://127.0.0.1:8000 exploding_kittens '{"players": 2}'
"""

from __future__ import annotations

import argparse
import json
import random
import time
import uuid
from collections.abc import Callable
from functools import partial
from urllib.parse import parse_qs, urlsplit

from drops import dropping, retried
from playlog_client import AuthenticatedClient, Client
from playlog_client.api.lobby import create_game, join_game, list_games, start_game
from playlog_client.api.players import create_player
from playlog_client.models import (
    ARiskCatCreateGame,
    CreatePlayer,
    ExplodingKittensCreateGame,
    GameCreatedOut,
    GameKind,
    GameListing,
    GameSummary,
    JoinSeat,
    PlayerCreatedOut,
    SeatOut,
)

# Each kind's create-game body: the document's union on `kind`.
BODIES: dict[GameKind, type[ExplodingKittensCreateGame] | type[ARiskCatCreateGame]] = {
    GameKind.EXPLODING_KITTENS: ExplodingKittensCreateGame,
    GameKind.A_RISK_CAT: ARiskCatCreateGame,
}


def create(client: Client, kind: GameKind, options: dict[str, object]) -> GameCreatedOut:
    body = BODIES[kind].from_dict({"kind": kind.value, "options": options, "spectator_delay": 0})
    key = str(uuid.uuid4())
    created = retried(lambda: create_game.sync(client=client, body=body, idempotency_key=key), "create")
    if not isinstance(created, GameCreatedOut):
        raise SystemExit(f"create refused: {created}")
    return created


def join(
    client: Client, game_id: uuid.UUID, name: str, as_player: Callable[[str], AuthenticatedClient]
) -> SeatOut:
    """A new player takes a free seat (a player, not a guest: the document's join is bearer)."""
    player = create_player.sync(client=client, body=CreatePlayer(name=name))  # no key: never dropped
    if not isinstance(player, PlayerCreatedOut):
        raise SystemExit(f"player refused: {player}")
    key = str(uuid.uuid4())
    with as_player(player.token) as player_client:
        seat = retried(
            lambda: join_game.sync(game_id, client=player_client, body=JoinSeat(), idempotency_key=key),
            "join",
        )
    if not isinstance(seat, SeatOut):
        raise SystemExit(f"join refused: {seat}")
    return seat


def every_game(client: Client, kind: GameKind) -> list[uuid.UUID]:
    """Every public game of ``kind``, newest first, page by page: a page's ``next`` is the URL of
    the next (None: the last), whose ``cursor`` the generated call takes. Paging is by key, so a
    game created meanwhile shifts no page: none is read twice."""
    games: list[uuid.UUID] = []
    cursor: str | None = None
    while True:
        read = partial(list_games.sync, client=client, kind=kind.value, limit=2, cursor=cursor)
        page = retried(read, "list")
        if not isinstance(page, GameListing):
            raise SystemExit(f"listing refused: {page}")
        games += [game.game_id for game in page.games]
        if page.next_ is None:
            return games
        cursor = parse_qs(urlsplit(page.next_).query)["cursor"][0]


def listed(client: Client, kind: GameKind, game_id: uuid.UUID) -> int:
    """How many public games of ``kind`` there are once ``game_id`` is among them (the listing is
    a read model, a moment behind the lobby)."""
    for _ in range(100):
        games = every_game(client, kind)
        assert len(games) == len(set(games)), "a game listed twice"
        if game_id in games:
            return len(games)
        time.sleep(0.1)
    raise SystemExit(f"game {game_id} never showed in the public listing")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("url")
    parser.add_argument("kind", type=GameKind)
    parser.add_argument("options", type=json.loads)
    parser.add_argument("--drop", type=float, default=0.0, help="share of answers to drop")
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    def authenticated(token: str) -> AuthenticatedClient:
        return AuthenticatedClient(base_url=args.url, token=token, httpx_args=dropping(args.drop, rng))

    with Client(base_url=args.url, httpx_args=dropping(args.drop, rng)) as client:
        created = create(client, args.kind, args.options)
        seats = [join(client, created.game_id, f"bot-{n}", authenticated) for n in range(created.seats)]
    key = str(uuid.uuid4())
    with authenticated(created.host_token) as host:
        started = retried(lambda: start_game.sync(created.game_id, client=host, idempotency_key=key), "start")
        if not isinstance(started, GameSummary):
            raise SystemExit(f"start refused: {started}")
    with Client(base_url=args.url, httpx_args=dropping(args.drop, rng)) as client:
        public = listed(client, args.kind, created.game_id)
    seated = [s.to_dict() for s in seats]
    print(json.dumps({"game_id": str(created.game_id), "seats": seated, "listed": public}), flush=True)


if __name__ == "__main__":
    main()
