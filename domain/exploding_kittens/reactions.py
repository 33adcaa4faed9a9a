"""Reactions (RULES.md 1.7 "Nope and the reaction window"): Nopes, passes, the window's close.

Rulings and interpretations kept here:

- Nobody Nopes their own card (the actor may Nope a Nope against its action).
- ``reaction_window == 0``: the window is opened and closed in the same batch of events
  (``CardPlayed``/``ComboPlayed`` then ``ReactionsResolved(closed_by="at_once")`` and the effect),
  so nobody can Nope; bots and tests use it.
- A Nope names ``chain_length`` = the number of Nopes already in the chain (0 answers the action).
- A seat that passed may still Nope while the window is open; passes are seen only by the passer
  and leave no trace in anyone else's numbering (``private_to``, projections/numbering).
- Once a window's deadline has passed, any command other than Nope/PassReaction (refused:
  ``window_closed``) first closes the window (``closed_by="deadline"``) in the same batch, then
  is decided on the resulting state; ``ResolveReactions`` does only the closing.
"""

from __future__ import annotations

from domain.decider import Context
from domain.errors import RuleViolation
from domain.exploding_kittens.actions import resolve_action
from domain.exploding_kittens.batch import ExplodingKittensBatch, timeout_at
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.combos import resolve_combo
from domain.exploding_kittens.commands import Nope
from domain.exploding_kittens.events import (
    ClosedBy,
    NopePlayed,
    ReactionPassed,
    ReactionsResolved,
)
from domain.exploding_kittens.state import (
    ExplodingKittensState,
    ReactionWindow,
)

State = ExplodingKittensState


def open_window_checks(state: State, ctx: Context) -> ReactionWindow:
    window = state.window
    if window is None or ctx.now >= window.deadline:
        raise RuleViolation("window_closed", "No reaction window is open.")
    return window


def nope(batch: ExplodingKittensBatch, seat: int, cmd: Nope, ctx: Context) -> None:
    window = open_window_checks(batch.state, ctx)
    if seat == window.top_seat:
        raise RuleViolation("cannot_nope_own_card", "You cannot Nope a card you played yourself.")
    if cmd.chain_length != len(window.nopes):
        raise RuleViolation(
            "stale_nope", f"The chain now holds {len(window.nopes)} Nope(s); your Nope answered an older one."
        )
    if Card.NOPE not in batch.state.hands[seat]:
        raise RuleViolation("card_not_in_hand", "You hold no Nope.")
    batch.emit(
        NopePlayed(
            seat=seat,
            chain_length=len(window.nopes) + 1,
            deadline=ctx.now + batch.state.options.reaction_window,
        )
    )


def pass_reaction(batch: ExplodingKittensBatch, seat: int, ctx: Context) -> None:
    window = open_window_checks(batch.state, ctx)
    eligible = batch.state.eligible()
    if seat not in eligible:
        raise RuleViolation("not_eligible", "You played the top card of the chain; others answer it.")
    if seat in window.passed:
        raise RuleViolation("already_passed", "You have already passed on this card.")
    batch.emit(ReactionPassed(seat=seat))
    new_window = batch.state.window
    assert new_window is not None
    if all(other in new_window.passed for other in eligible):
        close_window(batch, ctx, "passes")


def close_window(batch: ExplodingKittensBatch, ctx: Context, closed_by: ClosedBy) -> None:
    window = batch.state.window
    assert window is not None
    noped = len(window.nopes) % 2 == 1
    batch.emit(
        ReactionsResolved(noped=noped, closed_by=closed_by, turn_deadline=timeout_at(batch.state, ctx))
    )
    if not noped:
        (resolve_combo if window.combo else resolve_action)(batch, window, ctx)
