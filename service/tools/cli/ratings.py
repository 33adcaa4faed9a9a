"""``playlog ratings``: every rating recomputed by anyone, from exports or from the public results."""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import click
import msgspec

from projections.ratings import Placed, RatedGame, Rating, leaderboard, rated_game, ratings
from service.tools.cli.common import main


def from_exports(files: list[Path]) -> list[RatedGame]:
    """The rated games among exported games (each file one game, as ``GET /games/{id}/export``)."""
    from projections.export import format as export_format
    from projections.export.opened import opened
    from projections.export.reexecute import replay

    games = []
    for file in files:
        export = opened(export_format.read(file.read_bytes().splitlines()))
        table = replay(export).table
        if table is None or table.finished_version is None:
            continue
        finished_at = float(export.events[table.finished_version - 1].recorded_at)
        game = rated_game(export.header.game_id, table, finished_at)
        if game is not None:
            games.append(game)
    return games


class _Result(msgspec.Struct, frozen=True):
    game_id: str
    public_at: float
    places: dict[str, int]


class _Results(msgspec.Struct, frozen=True):
    kind: str
    results: list[_Result]


def from_results(body: bytes) -> list[RatedGame]:
    """The rated games of one kind as its public results give them (``GET /ratings/{kind}/results``):
    each with its one public result, released at ``public_at``."""
    public = msgspec.json.decode(body, type=_Results)
    return [
        RatedGame(
            game_id=r.game_id,
            kind=public.kind,
            finished_at=r.public_at,
            spectator_delay=0.0,
            results=(Placed(None, r.places),),
        )
        for r in public.results
    ]


def from_url(url: str, kinds: list[str]) -> list[RatedGame]:
    """The rated games of ``kinds`` from the public results of the service at ``url``."""
    import httpx

    games = []
    with httpx.Client(base_url=url, timeout=30.0) as client:
        for kind in kinds:
            response = client.get(f"/ratings/{kind}/results")
            response.raise_for_status()
            games += from_results(response.content)
    return games


class _Rated(msgspec.Struct, frozen=True):
    player_id: str
    ordinal: float
    mu: float
    sigma: float
    games: int
    provisional: bool


def boards(games: list[RatedGame], now: float) -> dict[str, list[_Rated]]:
    """Each kind's leaderboard, the best first, as ``playlog ratings --json`` prints it."""
    return {
        kind: [_rated(player, rating) for player, rating in leaderboard(of_kind)]
        for kind, of_kind in sorted(ratings(games, now).items())
    }


def _rated(player: str, rating: Rating) -> _Rated:
    return _Rated(player, rating.ordinal, rating.mu, rating.sigma, rating.games, rating.provisional)


@main.command("ratings")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--url", metavar="URL", help="Recompute from the public results of the service at URL.")
@click.option("--kind", "kinds", multiple=True, help="With --url: the kinds to read (default: every kind).")
@click.option("--json", "as_json", is_flag=True, help="Print the leaderboards as JSON, numbers in full.")
def ratings_command(files: tuple[Path, ...], url: str | None, kinds: tuple[str, ...], as_json: bool) -> None:
    """Recompute every rating (docs/api.md, "Ratings"): from exported games (FILES), or with --url
    from the service's public results; the same numbers as GET /ratings/{kind}."""
    if bool(files) == bool(url):
        raise click.UsageError("Give exported files or --url, one of the two.")
    if url:
        from domain import registry

        games = from_url(url, list(kinds) or sorted(registry.KINDS))
        now = math.inf  # the service gave only what is public
    else:
        games = from_exports(list(files))
        now = time.time()
    found = boards(games, now)
    if as_json:
        sys.stdout.write(msgspec.json.encode(found).decode() + "\n")
        return
    for kind, board in found.items():
        click.echo(kind)
        for rank, rated in enumerate(board, start=1):
            note = "  provisional" if rated.provisional else ""
            click.echo(
                f"  {rank:>4}  {rated.player_id}  {rated.ordinal:8.3f}  mu {rated.mu:7.3f}"
                f"  sigma {rated.sigma:6.3f}  games {rated.games}{note}"
            )
