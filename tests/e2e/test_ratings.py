"""Ratings anyone can recompute from the log (issue 54).

A few hundred games, played fast through the real app (players leave in a random order: each
leave is an elimination, so the finishing order is known), with guests, a computer player, private,
unrated and not-yet-public games and moderators' rulings among them: the service's leaderboards
and player pages equal what ``playlog ratings`` recomputes from the games' exports and from the
public results. Then a void and an award change the ratings exactly as the ruled results say,
checked against OpenSkill run by hand.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
from click.testing import CliRunner
from litestar import Litestar
from litestar.testing import AsyncTestClient
from openskill.models import PlackettLuce

from service.app.computer_players import PLAYERS
from service.config import Settings
from service.tools.cli import main
from service.tools.cli.ratings import boards, from_exports, from_results
from service.tools.client import CreatedPlayer, PlaylogClient
from tests.e2e.test_disputes import bearer, claim, moderator_headers, resolve
from tests.e2e.test_listing import eventually

KINDS = ("exploding_kittens", "a_risk_cat")


@dataclass
class Played:
    game_id: uuid.UUID
    kind: str
    tokens: list[str | None]  # per seat: its seat token (None: a computer player's)
    counts: bool  # public, rated and released: its result is in the ratings
    order: list[int] = field(default_factory=list)  # the seats that left, in order


async def caught_up(pool: asyncpg.Pool) -> bool:
    """The read models hold every event of every game."""
    behind = await pool.fetchval(
        "SELECT count(*) FROM streams s LEFT JOIN lobby_games g USING (game_id)"
        " WHERE s.seq > coalesce(g.version, 0)"
    )
    return behind == 0


async def create(
    http: AsyncTestClient[Litestar], kind: str, seats: int, **body: Any
) -> tuple[uuid.UUID, str]:
    response = await http.post("/games", json={"kind": kind, "options": {"players": seats}, **body})
    assert response.status_code == 201, response.text
    created = response.json()
    return uuid.UUID(created["game_id"]), created["host_token"]


async def play(
    http: AsyncTestClient[Litestar],
    rng: random.Random,
    people: list[CreatedPlayer],
    kind: str,
    *,
    computer: bool = False,
    **body: Any,
) -> Played:
    """A game whose seats leave in a random order until one is left (the winner)."""
    seats = rng.randint(2, 4) if kind == "exploding_kittens" else rng.randint(3, 4)
    game_id, host = await create(http, kind, seats, **body)
    tokens: list[str | None] = []
    for person in rng.sample(people, seats - int(computer)):
        guest = rng.random() < 0.1
        joined = await http.post(
            f"/games/{game_id}/seats",
            json={"name": "guest" if guest else person.name},
            headers={} if guest else bearer(person.token),
        )
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    if computer:
        seated = await http.post(
            f"/games/{game_id}/computer-players", json={"level": "easy"}, headers=bearer(host)
        )
        assert seated.status_code == 201, seated.text
        tokens.append(None)
    started = await http.post(f"/games/{game_id}/start", headers=bearer(host))
    assert started.status_code == 200, started.text
    played = Played(game_id, kind, tokens, counts=body.get("public", True) and body.get("rated", True))
    humans = [seat for seat, token in enumerate(tokens) if token is not None]
    for seat in rng.sample(humans, len(humans) - (0 if computer else 1)):
        left = await http.delete(f"/games/{game_id}/seats/{seat}", headers=bearer(tokens[seat] or ""))
        if left.status_code != 200:  # the computer player ended the game first
            break
        played.order.append(seat)
        if left.json()["status"] == "finished":
            break
    return played


async def rule(
    http: AsyncTestClient[Litestar], settings: Settings, game: Played, action: str, seats: list[int]
) -> None:
    """A seat's dispute, upheld with ``action`` (``void`` or ``award`` to ``seats``)."""
    seat = next(n for n, token in enumerate(game.tokens) if token is not None)
    raised = await http.post(
        f"/games/{game.game_id}/disputes",
        json={"seqs": [2], "category": "rules", "reason": "The result is wrong."},
        headers=bearer(game.tokens[seat] or ""),
    )
    assert raised.status_code == 201, raised.text
    mod = moderator_headers(settings)
    dispute = raised.json()["dispute_id"]
    await claim(http, dispute, mod)
    body: dict[str, Any] = {"verdict": "upheld", "action": action}
    if seats:
        body["seats"] = seats
    ruled = await resolve(http, dispute, mod, **body)
    assert ruled.status_code == 200, ruled.text


async def leaderboard(http: AsyncTestClient[Litestar], kind: str) -> list[dict[str, Any]]:
    """Every place of the kind's leaderboard, page after page."""
    places: list[dict[str, Any]] = []
    url: str | None = f"/ratings/{kind}?limit=7"
    while url is not None:
        page = (await http.get(url)).json()
        places += page["players"]
        url = page["next"]
    return places


def numbers(place: dict[str, Any]) -> tuple[Any, ...]:
    return (
        place["player_id"],
        place["ordinal"],
        place["mu"],
        place["sigma"],
        place["games"],
        place["provisional"],
    )


async def test_the_services_ratings_are_what_anyone_recomputes_from_exports_and_public_results(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    pool: asyncpg.Pool,
    settings: Settings,
    tmp_path: Path,
) -> None:
    rng = random.Random(54)
    people = [await api.create_player(f"p{n}") for n in range(12)]
    games: list[Played] = []
    for n in range(200):
        kind = "a_risk_cat" if n % 5 == 4 else "exploding_kittens"
        body: dict[str, Any] = {"spectator_delay": 0}
        if n % 37 == 5:
            body["public"] = False
        elif n % 41 == 7:
            body["rated"] = False
        elif n % 43 == 9:
            body["spectator_delay"] = 3600  # its end is not public during the test
        game = await play(http, rng, people, kind, computer=n % 50 == 11, **body)
        game.counts = game.counts and body["spectator_delay"] == 0
        games.append(game)
    for n, game in enumerate(
        g for g in games if g.counts and g.kind == "exploding_kittens" and len(g.tokens) > 2
    ):
        if n % 9 == 0:
            await rule(http, settings, game, "void", [])
        elif n % 9 == 4:
            await rule(http, settings, game, "award", [game.order[0]])  # the first one out wins
    await eventually(lambda: caught_up(pool), timeout=120)

    service = {kind: await leaderboard(http, kind) for kind in KINDS}
    assert all(len(board) >= 10 for board in service.values())  # the pool
    assert str(PLAYERS["easy"]) in {p["player_id"] for p in service["exploding_kittens"]}  # rated too
    assert [p["rank"] for p in service["exploding_kittens"]] == list(
        range(1, len(service["exploding_kittens"]) + 1)
    )

    # From the exports: every game anyone may export (the private and unreleased ones refused);
    # a game with disputes is exported to moderators only.
    files = []
    for game in games:
        exported = await http.get(f"/games/{game.game_id}/export")
        if exported.status_code == 403:
            exported = await http.get(f"/games/{game.game_id}/export", headers=moderator_headers(settings))
        if exported.status_code == 200:
            files.append(tmp_path / f"{game.game_id}.jsonl")
            files[-1].write_bytes(exported.content)
        else:
            assert not game.counts, exported.text
    recomputed = msgspec.to_builtins(boards(from_exports(files), time.time()))
    assert {kind: [numbers(p) for p in board] for kind, board in service.items()} == {
        kind: [numbers(p) for p in recomputed[kind]] for kind in KINDS
    }

    # The command line prints the same numbers.
    printed = CliRunner().invoke(main, ["ratings", "--json", *map(str, files)])
    assert printed.exit_code == 0, printed.output
    assert json.loads(printed.output) == recomputed

    # From the public results API (what `playlog ratings --url` reads).
    public = []
    for kind in KINDS:
        answer = await http.get(f"/ratings/{kind}/results")
        assert answer.status_code == 200
        public += from_results(answer.content)
    assert msgspec.to_builtins(boards(public, float("inf"))) == recomputed
    counted = {str(g.game_id) for g in games if g.counts}
    assert {r.game_id for r in public} <= counted  # voided games are left out too

    # Each player's page shows its rating in each kind, as the leaderboard does.
    for person in people[:4]:
        page = (await http.get(f"/players/{person.player_id}")).json()
        mine = {
            kind: p
            for kind, board in service.items()
            for p in board
            if p["player_id"] == str(person.player_id)
        }
        assert {r["kind"]: (r["ordinal"], r["games"]) for r in page["ratings"]} == {
            kind: (p["ordinal"], p["games"]) for kind, p in mine.items()
        }


async def test_a_void_takes_a_game_out_and_an_award_rates_the_ruled_order(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool, settings: Settings
) -> None:
    ann, ben, cy = [await api.create_player(name) for name in ("ann", "ben", "cy")]
    people = {ann.player_id: "ann", ben.player_id: "ben", cy.player_id: "cy"}

    async def game(first_out: CreatedPlayer, second_out: CreatedPlayer, winner: CreatedPlayer) -> Played:
        game_id, host = await create(http, "exploding_kittens", 3, spectator_delay=0)
        tokens: list[str | None] = []
        for person in (first_out, second_out, winner):
            joined = await http.post(
                f"/games/{game_id}/seats", json={"name": person.name}, headers=bearer(person.token)
            )
            tokens.append(joined.json()["token"])
        assert (await http.post(f"/games/{game_id}/start", headers=bearer(host))).status_code == 200
        for seat in (0, 1):
            assert (
                await http.delete(f"/games/{game_id}/seats/{seat}", headers=bearer(tokens[seat] or ""))
            ).status_code == 200
        return Played(game_id, "exploding_kittens", tokens, counts=True, order=[0, 1])

    async def ratings() -> dict[str, tuple[float, float, int]]:
        await eventually(lambda: caught_up(pool))
        board = await leaderboard(http, "exploding_kittens")
        return {people[uuid.UUID(p["player_id"])]: (p["mu"], p["sigma"], p["games"]) for p in board}

    def by_hand(*orders: tuple[str, ...]) -> dict[str, tuple[float, float, int]]:
        """OpenSkill itself over games given as finishing orders, the winner first."""
        model = PlackettLuce()
        known: dict[str, Any] = {}
        counts: dict[str, int] = {}
        for order in orders:
            players = sorted(order, key=lambda name: str(next(k for k, v in people.items() if v == name)))
            rated = model.rate(
                [[known.get(p) or model.rating()] for p in players], ranks=[order.index(p) for p in players]
            )
            for p, [r] in zip(players, rated, strict=True):
                known[p] = r
                counts[p] = counts.get(p, 0) + 1
        return {p: (r.mu, r.sigma, counts[p]) for p, r in known.items()}

    first = await game(ann, ben, cy)  # cy wins, ben second, ann third
    await game(cy, ann, ben)  # ben wins, ann second, cy third
    assert await ratings() == by_hand(("cy", "ben", "ann"), ("ben", "ann", "cy"))

    await rule(http, settings, first, "void", [])
    assert await ratings() == by_hand(("ben", "ann", "cy"))

    second = await game(ben, cy, ann)  # ann wins, cy second, ben third
    await rule(http, settings, second, "award", [0])  # to ben: then ann, then cy (the order stands)
    assert await ratings() == by_hand(("ben", "ann", "cy"), ("ben", "ann", "cy"))


async def test_the_leaderboard_and_player_pages_are_served_and_an_unknown_kind_is_not(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    ann = await api.create_player("ann")
    for path in ("/leaderboard/exploding_kittens", f"/player/{ann.player_id}"):
        page = await http.get(path)
        assert page.status_code == 200, path
        assert page.headers["content-type"].startswith("text/html")
        assert "unsafe-inline" not in page.headers["content-security-policy"]
        assert "/static/ratings.js?v=" in page.text
    assert (await http.get("/leaderboard/no_such_game")).status_code == 404
    missing = await http.get("/ratings/no_such_game")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
