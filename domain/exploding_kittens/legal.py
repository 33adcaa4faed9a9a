"""The exact list of commands a seat may send now (bots pick from it).

Time is not known here: the list assumes the open window and every deadline are still running,
so it never offers ``ResolveReactions`` or ``ActOnTimeout`` (the server's commands). A
five-different combo is offered once, with its cards in title order (``decide`` accepts any order).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import assert_never

from domain.decider import Concede
from domain.exploding_kittens.cards import ACTION_CARDS, ALL_TITLES, CAT_KINDS, NAMEABLE_TITLES, Card
from domain.exploding_kittens.commands import (
    Defuse,
    DrawCard,
    ExplodingKittensCommand,
    GiveCard,
    Nope,
    PassReaction,
    PlayCard,
    PlayCombo,
    TakeFromDiscard,
)
from domain.exploding_kittens.state import (
    ExplodingKittensPending,
    ExplodingKittensState,
    PendingDefuse,
    PendingDiscardPick,
    PendingFavor,
)


def _distinct(cards: tuple[Card, ...]) -> list[Card]:
    present = set(cards)
    return [card for card in ALL_TITLES if card in present]


def legal_commands(state: ExplodingKittensState, seat: int) -> list[ExplodingKittensCommand]:
    if state.phase != "playing":
        return []
    if type(seat) is not int or not 0 <= seat < state.players or not state.alive[seat]:
        return []
    out: list[ExplodingKittensCommand] = []
    hand = state.hands[seat]
    window = state.window
    pending = state.pending
    if window is not None:
        if seat != window.top_seat:
            if Card.NOPE in hand:
                out.append(Nope(chain_length=len(window.nopes)))
            if seat not in window.passed:
                out.append(PassReaction())
    elif pending is not None:
        if pending.seat == seat:
            out.extend(_answers(state, pending, hand))
    elif seat == state.active_seat:
        out.extend(_turn_commands(state, seat))
    out.append(Concede())
    return out


def _answers(
    state: ExplodingKittensState, pending: ExplodingKittensPending, hand: tuple[Card, ...]
) -> list[ExplodingKittensCommand]:
    """Every answer to the pending decision, from the seat it waits for."""
    match pending:
        case PendingDefuse():
            return [Defuse(position=k) for k in range(len(state.draw_pile) + 1)]
        case PendingFavor():
            return [GiveCard(card=card) for card in _distinct(hand)]
        case PendingDiscardPick():
            return [
                TakeFromDiscard(card=card)
                for card in _distinct(state.discard)
                if card is not Card.EXPLODING_KITTEN
            ]
    assert_never(pending)


def _turn_commands(state: ExplodingKittensState, seat: int) -> list[ExplodingKittensCommand]:
    opts = state.options
    hand = state.hands[seat]
    titles = _distinct(hand)
    counts = Counter(hand)
    targets = [t for t, alive in enumerate(state.alive) if alive and t != seat and state.hands[t]]
    out: list[ExplodingKittensCommand] = [DrawCard()]
    for card in titles:
        if card not in ACTION_CARDS:
            continue
        if card is Card.FAVOR:
            out.extend(PlayCard(card=card, target=t) for t in targets)
        else:
            out.append(PlayCard(card=card))
    for card in titles:
        if counts[card] >= 2 and (opts.special_combos or card in CAT_KINDS):
            out.extend(PlayCombo(cards=(card, card), target=t) for t in targets)
    if opts.special_combos:
        for card in titles:
            if counts[card] >= 3:
                out.extend(
                    PlayCombo(cards=(card, card, card), target=t, named=named)
                    for t in targets
                    for named in NAMEABLE_TITLES
                )
        if opts.edition == "classic" and len(titles) >= 5:
            out.extend(PlayCombo(cards=five) for five in combinations(titles, 5))
    return out
