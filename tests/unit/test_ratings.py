"""The ratings' rules with no database (projections/ratings.py): who is placed where, what a ruling
changes, what the spectator delay has released, and the one order games are rated in."""

from __future__ import annotations

import msgspec
from openskill.models import PlackettLuce

from domain import registry
from domain.decider import Outcome
from domain.table.events import GameCreated
from domain.table.state import Table, created
from projections.ratings import Placed, RatedGame, places, rated_game, ratings, results


def finished(
    kind: str,
    players: tuple[str | None, ...],
    outcome: Outcome,
    out: tuple[int, ...] = (),
    *,
    public: bool = True,
    rated: bool = True,
) -> Table:
    seats = len(players)
    event = GameCreated(
        kind=kind, options={"players": seats}, public=public, spectator_delay=0.0, created_at=0.0, rated=rated
    )
    table = created(registry.get(kind), event)
    return msgspec.structs.replace(table, players=players, out=out, outcome=outcome, status="finished")


def test_the_winner_first_then_the_last_one_out_and_guests_are_left_out() -> None:
    table = finished("exploding_kittens", ("a", None, "c", "d"), Outcome(winners=(3,)), out=(0, 1, 2))
    assert places(table, Outcome(winners=(3,))) == {"d": 0, "c": 1, "a": 2}


def test_scores_order_the_losers_and_equal_scores_share_a_place() -> None:
    table = finished("a_risk_cat", ("a", "b", "c"), Outcome(winners=(1,), scores=(3, 5, 3)))
    assert places(table, table.outcome or Outcome(())) == {"b": 0, "a": 1, "c": 1}


def test_a_player_of_several_seats_is_placed_by_its_best() -> None:
    table = finished("exploding_kittens", ("a", "b", "a"), Outcome(winners=(2,)), out=(0, 1))
    assert places(table, Outcome(winners=(2,))) == {"a": 0, "b": 1}


def test_private_unrated_and_one_player_games_do_not_count() -> None:
    two = ("a", "b")
    assert results(finished("exploding_kittens", two, Outcome((1,)), (0,), public=False)) is None
    assert results(finished("exploding_kittens", two, Outcome((1,)), (0,), rated=False)) is None
    assert results(finished("exploding_kittens", ("a", None), Outcome((1,)), (0,))) is None
    assert results(finished("exploding_kittens", two, Outcome((1,)), (0,))) == (
        Placed(None, {"b": 0, "a": 1}),
    )


def test_an_award_puts_the_awarded_first_and_keeps_the_others_order() -> None:
    table = finished("exploding_kittens", ("a", "b", "c"), Outcome(winners=(2,)), out=(0, 1))
    assert places(table, Outcome(winners=(0,))) == {"a": 0, "c": 1, "b": 2}


def game(game_id: str, finished_at: float, *made: Placed, delay: float = 0.0) -> RatedGame:
    return RatedGame(
        game_id=game_id, kind="k", finished_at=finished_at, spectator_delay=delay, results=tuple(made)
    )


def by_hand(*orders: tuple[str, ...]) -> dict[str, tuple[float, float]]:
    model = PlackettLuce()
    known: dict[str, object] = {}
    for order in orders:
        players = sorted(order)
        before = [[known.get(p) or model.rating(name=p)] for p in players]
        for p, [r] in zip(
            players, model.rate(before, ranks=[float(order.index(p)) for p in players]), strict=True
        ):
            known[p] = r
    return {p: (r.mu, r.sigma) for p, r in known.items()}  # type: ignore[attr-defined]


def shown(games: list[RatedGame], now: float) -> dict[str, tuple[float, float]]:
    return {p: (r.mu, r.sigma) for p, r in ratings(games, now).get("k", {}).items()}


def test_games_count_once_released_in_the_order_their_ends_became_public() -> None:
    first = game("g2", 10.0, Placed(None, {"a": 0, "b": 1}))
    second = game("g1", 5.0, Placed(None, {"b": 0, "c": 1}), delay=10.0)  # public at 15
    assert shown([second, first], 12.0) == by_hand(("a", "b"))
    assert shown([second, first], 15.0) == by_hand(("a", "b"), ("b", "c"))
    tie = game("g0", 15.0, Placed(None, {"c": 0, "a": 1}))  # public at 15 too: by game id, first
    assert shown([first, second, tie], 20.0) == by_hand(("a", "b"), ("c", "a"), ("b", "c"))


def test_a_ruling_counts_once_released_in_its_games_place_and_a_void_takes_the_game_out() -> None:
    earlier = game("g1", 1.0, Placed(None, {"a": 0, "b": 1}), Placed(50.0, {"b": 0, "a": 1}), delay=5.0)
    later = game("g2", 2.0, Placed(None, {"b": 0, "c": 1}), delay=10.0)  # public at 12, after g1's 6
    assert shown([earlier, later], 54.0) == by_hand(("a", "b"), ("b", "c"))
    assert shown([earlier, later], 55.0) == by_hand(("b", "a"), ("b", "c"))
    voided = game("g1", 1.0, Placed(None, {"a": 0, "b": 1}), Placed(50.0, None))
    assert shown([voided, later], 49.0) == by_hand(("a", "b"), ("b", "c"))
    assert shown([voided, later], 50.0) == by_hand(("b", "c"))


def test_a_rated_game_is_what_the_read_model_keeps() -> None:
    table = finished("exploding_kittens", ("a", "b"), Outcome(winners=(0,)), out=(1,))
    made = rated_game("g", table, 7.0)
    assert made == RatedGame(
        game_id="g", kind="exploding_kittens", finished_at=7.0, spectator_delay=0.0,
        results=(Placed(None, {"a": 0, "b": 1}),),
    )  # fmt: skip
