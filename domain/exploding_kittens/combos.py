"""Combos (RULES.md 1.6 "Actions that can be Noped, and combos"): pairs, triples, five different.

Rulings kept here (RULES.md 1.2):

- special_combos (default true): off = only pairs of one Cat kind. On = pairs and triples of any
  title (Defuse and Nope included) and, in the classic edition, five different titles.
- A pair's stolen card comes from ``ctx.rng`` in ``decide`` and is written in the event.
- A five-different pick that times out takes a card uniformly at random among the discard
  pile's eligible cards (RULES 3; never a Kitten).
"""

from __future__ import annotations

from collections import Counter

from domain import refusals
from domain.decider import Context
from domain.errors import RuleViolation
from domain.exploding_kittens.actions import check_target, target_ok, window_deadline
from domain.exploding_kittens.batch import ExplodingKittensBatch, timeout_at
from domain.exploding_kittens.cards import (
    CAT_KINDS,
    Card,
)
from domain.exploding_kittens.commands import (
    PlayCombo,
    TakeFromDiscard,
)
from domain.exploding_kittens.events import (
    ActionHadNoEffect,
    CardStolen,
    CardTakenFromDiscard,
    ComboPlayed,
    DiscardPickAsked,
    NamedCardRequested,
)
from domain.exploding_kittens.state import (
    ExplodingKittensState,
    PendingDiscardPick,
    ReactionWindow,
)
from domain.exploding_kittens.turn import pending_for

State = ExplodingKittensState


def play_combo(batch: ExplodingKittensBatch, seat: int, cmd: PlayCombo, ctx: Context) -> None:
    s = batch.state
    opts = s.options
    cards = cmd.cards
    size = len(cards)
    titles = set(cards)
    if size == 1:
        if cards[0] in CAT_KINDS:
            raise RuleViolation("single_cat", "A Cat card alone has no effect; play a pair.")
        raise RuleViolation("invalid_combo", "A combo needs 2, 3 or 5 cards; play one card with PlayCard.")
    if size in (2, 3) and len(titles) == 1:
        if not opts.special_combos and (size == 3 or cards[0] not in CAT_KINDS):
            raise RuleViolation(
                "invalid_combo", "Without special combos only pairs of one Cat kind are allowed."
            )
    elif size == 5 and len(titles) == 5:
        if opts.edition != "classic" or not opts.special_combos:
            raise RuleViolation(
                "invalid_combo",
                "Five different cards is a combo only in the classic edition with special combos.",
            )
    else:
        raise RuleViolation(
            "invalid_combo",
            "A combo is 2 or 3 cards of one title, or (classic) 5 cards of 5 different titles.",
        )
    have = Counter(s.hands[seat])
    for card, count in Counter(cards).items():
        if have[card] < count:
            raise RuleViolation("card_not_in_hand", f"You do not hold {count} {card}.")
    if size == 5:
        if cmd.target is not None:
            raise RuleViolation(refusals.INVALID_TARGET, "Five different cards take no target.")
        if cmd.named is not None:
            raise RuleViolation("invalid_named_card", "Only a triple names a card.")
    else:
        check_target(s, seat, cmd.target)
        if size == 2 and cmd.named is not None:
            raise RuleViolation("invalid_named_card", "Only a triple names a card.")
        if size == 3:
            if cmd.named is None:
                raise RuleViolation("named_card_required", "A triple names the title it asks for.")
            if cmd.named is Card.EXPLODING_KITTEN:
                raise RuleViolation("invalid_named_card", "A triple cannot ask for an Exploding Kitten.")
    batch.emit(
        ComboPlayed(
            seat=seat, cards=cards, target=cmd.target, named=cmd.named, deadline=window_deadline(s, ctx)
        )
    )


def take(batch: ExplodingKittensBatch, seat: int, card: Card, ctx: Context, *, by_server: bool) -> None:
    batch.emit(
        CardTakenFromDiscard(
            seat=seat, card=card, by_server=by_server, turn_deadline=timeout_at(batch.state, ctx)
        )
    )


def answer_discard_pick(batch: ExplodingKittensBatch, seat: int, cmd: TakeFromDiscard, ctx: Context) -> None:
    pending_for(batch.state, seat, PendingDiscardPick)
    if cmd.card is Card.EXPLODING_KITTEN or cmd.card not in batch.state.discard:
        raise RuleViolation("card_not_in_discard", f"There is no {cmd.card} to take in the discard pile.")
    take(batch, seat, cmd.card, ctx, by_server=False)


def resolve_combo(batch: ExplodingKittensBatch, window: ReactionWindow, ctx: Context) -> None:
    """A combo no Nope cancelled: a pair steals at random, a triple asks for a title, five
    different let the player pick from the discard pile."""
    s = batch.state
    actor = window.actor
    size = len(window.cards)
    if size == 5:
        batch.emit(DiscardPickAsked(seat=actor, deadline=timeout_at(s, ctx)))
        return
    target = window.target
    if target is None or not target_ok(s, target):
        batch.emit(ActionHadNoEffect(seat=actor, reason="the target has no cards or left"))
        return
    if size == 2:
        batch.emit(CardStolen(thief=actor, victim=target, card=ctx.rng.choice(s.hands[target])))
    else:
        named = window.named
        assert named is not None
        batch.emit(NamedCardRequested(seat=actor, target=target, named=named, given=named in s.hands[target]))
