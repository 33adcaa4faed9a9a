"""Actions (RULES.md 1.6 "Actions that can be Noped, and combos"): the action cards.

A played card opens a reaction window (reactions.py); what it does once the window closes
un-Noped is ``resolve_action``.

Rulings kept here (RULES.md 1.2, the editions):

- "2022" (default): an Attack by an Attack victim gives the next seat 2 + its remaining turns
  (current included). "classic": an Attack always gives 2. In both, Attack ends all of the
  player's owed turns.
- An action targeting an opponent with no cards is refused when played; if the target's hand
  empties (or the target leaves) during the window, the action resolves with no effect.
- A Favor's target chooses the card; which copy of a title moves never matters (cards of a title
  are identical). On a timeout the server gives a card at random (in ``decide``).
- A shuffle's order comes from ``ctx.rng`` in ``decide`` and is written in ``DeckShuffled`` with a
  public ``commitment`` and a hidden ``salt``; ``evolve`` never draws randomness.
"""

from __future__ import annotations

from domain import refusals
from domain.commitment import commit, new_salt
from domain.decider import Context
from domain.errors import RuleViolation
from domain.exploding_kittens.batch import ExplodingKittensBatch, timeout_at
from domain.exploding_kittens.cards import (
    ACTION_CARDS,
    CAT_KINDS,
    SEE_THE_FUTURE_COUNT,
    Card,
)
from domain.exploding_kittens.commands import (
    GiveCard,
    PlayCard,
)
from domain.exploding_kittens.events import (
    ActionHadNoEffect,
    CardPlayed,
    DeckShuffled,
    FavorAsked,
    FavorGiven,
    FutureSeen,
    OwedTurnStarted,
)
from domain.exploding_kittens.state import (
    ExplodingKittensState,
    PendingFavor,
    ReactionWindow,
)
from domain.exploding_kittens.turn import end_one_turn, pending_for

State = ExplodingKittensState


def check_target(state: State, seat: int, target: int | None) -> int:
    if target is None:
        raise RuleViolation("target_required", "This action needs a target seat.")
    if not 0 <= target < state.players or target == seat:
        raise RuleViolation(refusals.INVALID_TARGET, "The target must be another seat of this game.")
    if not state.alive[target]:
        raise RuleViolation("target_not_alive", f"Seat {target} is out of the game.")
    if not state.hands[target]:
        raise RuleViolation("target_has_no_cards", f"Seat {target} has no cards.")
    return target


def target_ok(state: State, target: int | None) -> bool:
    return target is not None and state.alive[target] and bool(state.hands[target])


def window_deadline(state: State, ctx: Context) -> float:
    return ctx.now + state.options.reaction_window


def play_card(batch: ExplodingKittensBatch, seat: int, cmd: PlayCard, ctx: Context) -> None:
    s = batch.state
    card = cmd.card
    if card in CAT_KINDS:
        raise RuleViolation("single_cat", "A Cat card alone has no effect; play a pair (PlayCombo).")
    if card not in ACTION_CARDS:
        raise RuleViolation("not_playable", f"{card} cannot be played as an action.")
    if card not in s.hands[seat]:
        raise RuleViolation("card_not_in_hand", f"You hold no {card}.")
    if card is Card.FAVOR:
        check_target(s, seat, cmd.target)
    elif cmd.target is not None:
        raise RuleViolation(refusals.INVALID_TARGET, f"{card} takes no target.")
    batch.emit(CardPlayed(seat=seat, card=card, target=cmd.target, deadline=window_deadline(s, ctx)))


def give(
    batch: ExplodingKittensBatch, pending: PendingFavor, card: Card, ctx: Context, *, by_server: bool
) -> None:
    batch.emit(
        FavorGiven(
            giver=pending.seat,
            receiver=pending.receiver,
            card=card,
            by_server=by_server,
            turn_deadline=timeout_at(batch.state, ctx),
        )
    )


def answer_favor(batch: ExplodingKittensBatch, seat: int, cmd: GiveCard, ctx: Context) -> None:
    pending = pending_for(batch.state, seat, PendingFavor)
    if cmd.card not in batch.state.hands[seat]:
        raise RuleViolation("card_not_in_hand", f"You hold no {cmd.card}.")
    give(batch, pending, cmd.card, ctx, by_server=False)


def resolve_action(batch: ExplodingKittensBatch, window: ReactionWindow, ctx: Context) -> None:
    """An action card no Nope cancelled takes effect (RULES 1.6)."""
    s = batch.state
    actor = window.actor
    rng = ctx.rng
    card = window.cards[0]
    if card is Card.ATTACK:
        owed = 2
        if s.options.edition == "2022" and s.under_attack:
            owed += s.turns_owed
        batch.emit(
            OwedTurnStarted(
                seat=s.next_living(actor), turns_owed=owed, under_attack=True, deadline=timeout_at(s, ctx)
            )
        )
    elif card is Card.SKIP:
        end_one_turn(batch, ctx)
    elif card is Card.FAVOR:
        target = window.target
        if target is None or not target_ok(s, target):
            batch.emit(ActionHadNoEffect(seat=actor, reason="the target has no cards or left"))
            return
        batch.emit(FavorAsked(giver=target, receiver=actor, deadline=timeout_at(s, ctx)))
    elif card is Card.SHUFFLE:
        order = list(s.draw_pile)
        rng.shuffle(order)
        salt = new_salt(rng)
        batch.emit(DeckShuffled(seat=actor, order=tuple(order), commitment=commit(order, salt), salt=salt))
    else:  # See the Future
        batch.emit(FutureSeen(seat=actor, cards=s.draw_pile[:SEE_THE_FUTURE_COUNT]))
