"""Ratings from the log: a Weng-Lin rating (OpenSkill's Plackett-Luce model) per player and kind.

Anyone can compute them again from public results alone (``playlog ratings`` over exports gives the
service's numbers), so everything that decides them is here, with no I/O:

- Which games count: finished, public and created ``rated`` (``lobby.created``), with at least two
  players holding seats (guests, who have no player id, are not rated; their seats still place).
- The order of a game's seats (``places``): the winners first; then by score where the game keeps
  scores (A Risk Cat), else by when each seat went out of the game (``Seats.out``, Exploding
  Kittens' eliminations: the last one out placed best); equal keys share a place. A player holding
  several seats is placed by its best one.
- A game's results (``results``): as the game ended, then after each ruling that changed it
  (projections/spectator.py's ``rulings``): a void ruling takes the game out (``places`` None),
  an award puts the awarded seats first and leaves the others' order; a penalty changes nothing.
- What is public at an instant (``public_places``): the latest result the spectator delay has
  released (the end from ``finished_at + delay``, a ruling from its time + delay); a game whose end
  is not released yet does not count.
- The order games are rated in: by the time the game's end became public, then by game id; every
  rating is recomputed from scratch, so a ruling released later changes what follows it exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from openskill.models import PlackettLuce

from domain.decider import Outcome
from projections.spectator import release_at, rulings
from projections.table import Table

# A rating stays provisional until it counts this many games.
PROVISIONAL_GAMES = 5

_MODEL = PlackettLuce()


class Placed(msgspec.Struct, frozen=True):
    """One result of a rated game: each rated player's place (0 the best; equal places tie)."""

    at: float | None  # None: as the game ended; else the ruling's time (epoch seconds)
    places: dict[str, int] | None  # None: the game was voided


class RatedGame(msgspec.Struct, frozen=True, kw_only=True):
    """A finished rated game, as the read model ``rated_games`` keeps it."""

    game_id: str
    kind: str
    finished_at: float  # when the event that ended it was recorded (epoch seconds)
    spectator_delay: float
    results: tuple[Placed, ...]  # as ended, then after each ruling that changed it


class Rating(msgspec.Struct, frozen=True):
    """A player's rating in one kind: ``mu`` and ``sigma`` of the model, ``ordinal`` (mu - 3 sigma,
    what the leaderboard orders by), the games counted, and whether it is still provisional."""

    mu: float
    sigma: float
    ordinal: float
    games: int
    provisional: bool


def rated(table: Table) -> bool:
    """Whether a game counts towards ratings once it is finished."""
    return table.public and table.rated


def places(table: Table, outcome: Outcome) -> dict[str, int]:
    """Each player's place under ``outcome`` (guests left out; several seats: the best one)."""
    winners = set(outcome.winners)
    scores = table.outcome.scores if table.outcome is not None else None
    out = {seat: n for n, seat in enumerate(table.out)}

    def key(seat: int) -> tuple[bool, int]:
        behind = -scores[seat] if scores is not None else -out.get(seat, len(table.seats))
        return seat not in winners, behind

    best: dict[str, tuple[bool, int]] = {}
    for seat, player in enumerate(table.players):
        if player is not None:
            best[player] = min(best.get(player, key(seat)), key(seat))
    ladder = sorted(set(best.values()))
    return {player: ladder.index(k) for player, k in best.items()}


def results(table: Table) -> tuple[Placed, ...] | None:
    """A finished rated game's results (see the module docstring); None when it does not count."""
    if table.status != "finished" or table.outcome is None or not rated(table):
        return None
    ended = places(table, table.outcome)
    if len(ended) < 2:
        return None
    out = [Placed(None, ended)]
    for ruling in rulings(table):
        ruled = ruling.outcome
        if ruled is None:  # a penalty: the game's own result stands
            out.append(Placed(ruling.at, ended))
        elif not ruled.winners:
            out.append(Placed(ruling.at, None))
        else:
            out.append(Placed(ruling.at, places(table, ruled)))
    return tuple(out)


def rated_game(game_id: str, table: Table, finished_at: float) -> RatedGame | None:
    """A finished game as ``rated_games`` keeps it (None: it does not count); ``finished_at`` is
    when the event that ended it was recorded (the export's ``recorded_at``, the database's clock)."""
    made = results(table)
    if made is None:
        return None
    return RatedGame(
        game_id=game_id,
        kind=table.kind,
        finished_at=finished_at,
        spectator_delay=table.spectator_delay,
        results=made,
    )


def released(game: RatedGame, now: float) -> int:
    """How many of the game's results the spectator delay has released at ``now`` (0: not its end
    yet). A game's results only grow (a ruling adds one), so this count names what is public."""
    count = 0
    for result in game.results:
        at = game.finished_at if result.at is None else result.at
        if release_at(at, game.spectator_delay) > now:
            break
        count += 1
    return count


def public_places(game: RatedGame, now: float) -> dict[str, int] | None:
    """The game's result the public may know at ``now`` (None: none yet, or voided)."""
    count = released(game, now)
    return game.results[count - 1].places if count else None


def _order(game: RatedGame) -> tuple[float, str]:
    return release_at(game.finished_at, game.spectator_delay), game.game_id


def ratings(games: Iterable[RatedGame], now: float) -> dict[str, dict[str, Rating]]:
    """Every player's rating per kind from the results public at ``now``."""
    model: dict[str, dict[str, Any]] = {}
    counted: dict[str, dict[str, int]] = {}
    for game in sorted(games, key=_order):
        shown = public_places(game, now)
        if shown is None:
            continue
        known = model.setdefault(game.kind, {})
        counts = counted.setdefault(game.kind, {})
        players = sorted(shown)
        before = [[known.get(player) or _MODEL.rating(name=player)] for player in players]
        after = _MODEL.rate(before, ranks=[float(shown[player]) for player in players])
        for player, [rating] in zip(players, after, strict=True):
            known[player] = rating
            counts[player] = counts.get(player, 0) + 1
    return {
        kind: {player: _rating(rating, counted[kind][player]) for player, rating in known.items()}
        for kind, known in model.items()
    }


def _rating(rating: Any, games: int) -> Rating:
    return Rating(
        mu=rating.mu,
        sigma=rating.sigma,
        ordinal=rating.ordinal(),
        games=games,
        provisional=games < PROVISIONAL_GAMES,
    )


def leaderboard(kind_ratings: Mapping[str, Rating]) -> list[tuple[str, Rating]]:
    """One kind's ratings, the best first (by ordinal, then by player id: a total order)."""
    return sorted(kind_ratings.items(), key=lambda item: (-item[1].ordinal, item[0]))
