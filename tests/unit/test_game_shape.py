"""Both games in one shape: the kernel's batch, one code per shared refusal, the same answer to
a viewer or a command that does not belong to the game."""

from __future__ import annotations

import importlib
import random

import pytest

from domain import refusals, registry
from domain.batch import Batch
from domain.decider import Command, Context
from domain.errors import RuleViolation
from domain.viewers import Seat


class _Foreign(Command, frozen=True, kw_only=True):
    """A command no game knows."""


def test_a_batch_folds_each_event_as_it_is_emitted_and_can_complete_the_last() -> None:
    batch: Batch[int, int] = Batch(10, lambda state, event: state + event)
    batch.emit(1)
    batch.emit(2)
    assert (batch.state, batch.events) == (13, [1, 2])
    batch.replace_last(5)
    assert (batch.state, batch.events) == (16, [1, 5])


def test_every_shared_code_has_one_meaning_and_no_renamed_code_is_still_shared() -> None:
    assert set(refusals.RENAMED.values()) <= set(refusals.SHARED)
    assert not set(refusals.RENAMED) & set(refusals.SHARED)


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_every_game_refuses_a_foreign_command_as_unknown_command(kind: str) -> None:
    decider = registry.get(kind)
    state = decider.initial_state(decider.parse_options({"players": decider.seats.min}))
    state = decider.fold(state, decider.start(state, Context(rng=random.Random(1), now=0.0, seat=None)))
    with pytest.raises(RuleViolation) as err:
        decider.decide(state, _Foreign(), Context(rng=random.Random(1), now=0.0, seat=0))
    assert err.value.code == refusals.UNKNOWN_COMMAND


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_every_game_refuses_a_second_start_with_the_lobbys_code(kind: str) -> None:
    decider = registry.get(kind)
    state = decider.initial_state(decider.parse_options({"players": decider.seats.min}))
    ctx = Context(rng=random.Random(1), now=0.0, seat=None)
    state = decider.fold(state, decider.start(state, ctx))
    with pytest.raises(RuleViolation) as err:
        decider.start(state, ctx)
    assert err.value.code == refusals.GAME_ALREADY_STARTED


@pytest.mark.parametrize("kind", sorted(registry.games()))
def test_every_game_refuses_the_view_of_a_seat_it_does_not_have(kind: str) -> None:
    decider = registry.get(kind)
    state = decider.initial_state(decider.parse_options({"players": decider.seats.min}))
    state = decider.fold(state, decider.start(state, Context(rng=random.Random(1), now=0.0, seat=None)))
    with pytest.raises(RuleViolation) as err:
        decider.view(state, Seat(decider.seats.max))
    assert err.value.code == refusals.NOT_A_PLAYER


# The modules both house games have, each for the same concern (docs/game-authors.md, "The two
# games side by side"): a reader who knows one game finds everything in the other.
_SHARED_MODULES = (
    "about",
    "batch",
    "commands",
    "events",
    "fold",
    "legal",
    "rules",
    "setup",
    "state",
    "turn",
    "upcasters",
    "views",
)


@pytest.mark.parametrize("game", ["exploding_kittens", "a_risk_cat"])
def test_both_games_keep_each_shared_concern_in_the_same_module(game: str) -> None:
    modules = {name: importlib.import_module(f"domain.{game}.{name}") for name in _SHARED_MODULES}
    assert "initial_state" in vars(modules["setup"]) and "start" in vars(modules["setup"])
    assert "evolve" in vars(modules["fold"]) and "decide" in vars(modules["rules"])
    assert "legal_commands" in vars(modules["legal"]) and "view" in vars(modules["views"])
