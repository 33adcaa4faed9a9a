"""The kit catches what it claims to: each test breaks one promise of the guessing game
(tests/games/guessing; Exploding Kittens for its shuffle commitments) and the kit must fail on
it within a few random games."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable
from typing import Any

import pytest
from msgspec.structs import replace

from domain.decider import Context
from domain.errors import RuleViolation
from domain.viewers import Viewer
from tests.conformance.games import KITS
from tests.conformance.kit import GameKit, play
from tests.games.guessing import DECIDER
from tests.games.guessing.commands import Swap
from tests.games.guessing.events import Marked, Swapped
from tests.games.guessing.tests import kit as guessing
from tests.games.guessing.views import GuessingSeatView, GuessingSpectatorView

RAW = {"players": 3, "rounds": 30, "decision_timeout": 5.0}


def fails(kit: GameKit, games: int = 12) -> str:
    """The first failure of the kit over a few random games (the test fails if there is none)."""
    for seed in range(games):
        try:
            for _ in play(kit, RAW, seed):
                pass
        except AssertionError as failure:
            return str(failure)
    raise AssertionError("the kit passed a broken game")


def broken(**changes: Any) -> GameKit:
    return dataclasses.replace(guessing.KITS[0], decider=dataclasses.replace(DECIDER, **changes))


def test_the_real_guessing_game_passes() -> None:
    for seed in range(4):
        for _ in play(guessing.KITS[0], RAW, seed):
            pass


def test_a_redaction_that_shows_another_seat_s_swap_fails() -> None:
    def redact(event: Any, viewer: Viewer) -> Any:
        return event if isinstance(event, Swapped) else DECIDER.redact(event, viewer)

    assert "sees too much" in fails(broken(redact=redact))


def test_a_view_that_shows_a_count_of_the_pile_s_cards_above_the_seat_s_own_fails() -> None:
    def view(state: Any, viewer: Viewer) -> Any:
        seen = DECIDER.view(state, viewer)
        if isinstance(seen, GuessingSeatView | GuessingSpectatorView) and state.phase == "playing":
            higher = sum(1 for card in state.pile if card > (state.hands[state.active_seat] or 0))
            return replace(seen, public=replace(seen.public, pile_size=higher))
        return seen

    assert "sees what it may not" in fails(broken(view=view))


def test_a_private_note_that_shows_in_the_turn_number_fails() -> None:
    def evolve(state: Any, event: Any) -> Any:
        after = DECIDER.evolve(state, event)
        return replace(after, turn=after.turn + 1) if isinstance(event, Marked) else after

    assert "changed what it reads" in fails(broken(evolve=evolve))


def test_a_draw_from_the_global_generator_fails() -> None:
    calls = itertools.count()  # a generator of its own, seeded anew at each call: not the context's

    def decide(state: Any, command: Any, ctx: Context) -> Any:
        if isinstance(command, Swap):
            ctx = replace(ctx, rng=random.Random(next(calls)))
        return DECIDER.decide(state, command, ctx)

    failure = fails(broken(decide=decide))
    # Caught by deciding again with the same context, or (when the two draws happen to agree)
    # by deciding with other seeds: the draws it made were not the context's.
    assert "same recorded context" in failure or "depends on the seeds" in failure


def _offers(change: Callable[[list[Any]], list[Any]]) -> GameKit:
    return broken(legal_commands=lambda state, seat: change(list(DECIDER.legal_commands(state, seat))))


def test_legal_commands_that_leave_out_an_accepted_command_fail() -> None:
    assert "accepted but not offered" in fails(_offers(lambda offered: [c for c in offered if c != Swap()]))


def test_legal_commands_that_offer_a_refused_command_fail() -> None:
    assert "offered but refused" in fails(_offers(lambda offered: offered or [Swap()]))


def test_an_undeclared_refusal_code_fails() -> None:
    about = dataclasses.replace(DECIDER.about, refusal_codes=DECIDER.about.refusal_codes - {"invalid_target"})
    assert "undeclared refusal code" in fails(broken(about=about))


def test_a_card_that_vanishes_fails() -> None:
    def evolve(state: Any, event: Any) -> Any:
        after = DECIDER.evolve(state, event)
        return replace(after, pile=after.pile[1:]) if isinstance(event, Swapped) else after

    assert "conserved" in fails(broken(evolve=evolve))


def test_a_fold_that_remembers_more_than_the_events_fails() -> None:
    calls = {"n": 0}  # a fold with a memory: the same event does not always do the same

    def evolve(state: Any, event: Any) -> Any:
        after = DECIDER.evolve(state, event)
        if isinstance(event, Swapped):
            calls["n"] += 1
            return replace(after, pile=after.pile[::-1]) if calls["n"] % 2 else after
        return after

    assert "replay" in fails(broken(evolve=evolve))


def test_a_decide_that_raises_an_undeclared_error_is_not_a_refusal() -> None:
    def decide(state: Any, command: Any, ctx: Context) -> Any:
        raise RuleViolation("made_up", "no such rule")

    assert "undeclared refusal code" in fails(broken(decide=decide))


def test_a_commitment_to_another_order_than_the_hidden_one_fails() -> None:
    kit = next(k for k in KITS if k.decider.kind == "exploding_kittens")
    wrong = dataclasses.replace(
        kit.decider, hidden=dataclasses.replace(kit.decider.hidden, order=lambda state: state.draw_pile[::-1])
    )
    with pytest.raises(AssertionError, match="commitment"):
        for _ in play(dataclasses.replace(kit, decider=wrong), {"players": 3}, 0):
            pass
