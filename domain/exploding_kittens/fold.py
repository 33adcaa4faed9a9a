"""``evolve``: an event applied to the state. Only facts: every choice a rule makes (which card,
which Kitten, whether a decision is pending) is made in ``decide`` and written in the event;
no RNG, no clock. Old events that predate a recorded choice fold through a fallback that makes
the choice as it was made when they were written (noted where it applies), so old logs replay
unchanged (tests/golden).

What evolve still derives from the state, deliberately: a drawn card is the pile's top; an
eliminated seat's hand is what it held (equal to the event's ``discarded``); a leaver's chain and
a Favor it was to answer end (RULES 1.8); a card taken from the discard pile is its last copy of
that title (cards of a title are identical).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from domain.exploding_kittens import knowledge
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.events import (
    ActionHadNoEffect,
    CardDrawn,
    CardPlayed,
    CardStolen,
    CardTakenFromDiscard,
    ComboPlayed,
    DeckDealt,
    DeckShuffled,
    DiscardPickAsked,
    ExplodingKittensEvent,
    ExplodingKittensWon,
    FavorAsked,
    FavorGiven,
    FutureSeen,
    KittenDefused,
    KittenDrawn,
    NamedCardRequested,
    NopePlayed,
    OwedTurnStarted,
    PlayerConceded,
    PlayerExploded,
    ReactionPassed,
    ReactionsResolved,
)
from domain.exploding_kittens.leaving import leaving_kitten
from domain.exploding_kittens.state import (
    ExplodingKittensState,
    PendingDecision,
    ReactionWindow,
)

State = ExplodingKittensState


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    """``cards`` minus one copy of ``card`` (the first); unchanged if absent."""
    try:
        i = cards.index(card)
    except ValueError:
        return cards
    return cards[:i] + cards[i + 1 :]


def _with_item(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1 :])


def _move_card(state: State, giver: int, receiver: int, card: Card) -> State:
    hands = state.hands
    if card not in hands[giver]:
        return state
    hands = _with_item(hands, giver, _without(hands[giver], card))
    hands = _with_item(hands, receiver, (*hands[receiver], card))
    return replace(state, hands=hands)


def _ev_deck_dealt(s: State, e: DeckDealt) -> State:
    n = len(e.hands)
    return replace(
        s,
        started=True,
        hands=e.hands,
        draw_pile=e.draw_pile,
        discard=(),
        out_of_game=e.out_of_game,
        alive=(True,) * n,
        active=e.first_seat,
        turns_owed=1,
        under_attack=False,
        turn_deadline=e.turn_deadline,
        commitment=e.commitment,
        salt=e.salt,
        seen_future=((),) * n,
        placed_kitten=(None,) * n,
    )


def _ev_card_played(s: State, e: CardPlayed) -> State:
    window = ReactionWindow(
        actor=e.seat,
        cards=(e.card,),
        combo=False,
        target=e.target,
        named=None,
        nopes=(),
        deadline=e.deadline,
        passed=(),
    )
    hands = _with_item(s.hands, e.seat, _without(s.hands[e.seat], e.card))
    return replace(s, hands=hands, discard=(*s.discard, e.card), window=window)


def _ev_combo_played(s: State, e: ComboPlayed) -> State:
    window = ReactionWindow(
        actor=e.seat,
        cards=e.cards,
        combo=True,
        target=e.target,
        named=e.named,
        nopes=(),
        deadline=e.deadline,
        passed=(),
    )
    hand = s.hands[e.seat]
    for card in e.cards:
        hand = _without(hand, card)
    return replace(s, hands=_with_item(s.hands, e.seat, hand), discard=s.discard + e.cards, window=window)


def _ev_nope_played(s: State, e: NopePlayed) -> State:
    hands = _with_item(s.hands, e.seat, _without(s.hands[e.seat], Card.NOPE))
    window = s.window
    if window is not None:
        window = replace(window, nopes=(*window.nopes, e.seat), deadline=e.deadline, passed=())
    return replace(s, hands=hands, discard=(*s.discard, Card.NOPE), window=window)


def _ev_reaction_passed(s: State, e: ReactionPassed) -> State:
    if s.window is None:
        return s
    return replace(s, window=replace(s.window, passed=(*s.window.passed, e.seat)))


def _ev_reactions_resolved(s: State, e: ReactionsResolved) -> State:
    return replace(s, window=None, turn_deadline=e.turn_deadline)


def _ev_owed_turn_started(s: State, e: OwedTurnStarted) -> State:
    return replace(
        s, active=e.seat, turns_owed=e.turns_owed, under_attack=e.under_attack, turn_deadline=e.deadline
    )


def _ev_card_drawn(s: State, e: CardDrawn) -> State:
    top = s.draw_pile[0]
    hands = _with_item(s.hands, e.seat, (*s.hands[e.seat], top))
    seen, placed = knowledge.after_draw(s.seen_future, s.placed_kitten)
    return replace(s, hands=hands, draw_pile=s.draw_pile[1:], seen_future=seen, placed_kitten=placed)


def _ev_kitten_drawn(s: State, e: KittenDrawn) -> State:
    defusable = e.defusable
    if defusable is None:  # stored before ``defusable`` was recorded: read the hand, as then
        defusable = Card.DEFUSE in s.hands[e.seat]
    pending = PendingDecision(kind="defuse", seat=e.seat, deadline=e.deadline) if defusable else None
    seen, placed = knowledge.after_draw(s.seen_future, s.placed_kitten)
    return replace(
        s,
        draw_pile=s.draw_pile[1:],
        drawn_kitten=e.seat,
        pending=pending,
        seen_future=seen,
        placed_kitten=placed,
    )


def _ev_kitten_defused(s: State, e: KittenDefused) -> State:
    position = e.position if e.position is not None else 0
    pile = (*s.draw_pile[:position], Card.EXPLODING_KITTEN, *s.draw_pile[position:])
    hands = _with_item(s.hands, e.seat, _without(s.hands[e.seat], Card.DEFUSE))
    seen, placed = knowledge.after_defuse(s.seen_future, s.placed_kitten, e.seat, position)
    return replace(
        s,
        hands=hands,
        discard=(*s.discard, Card.DEFUSE),
        draw_pile=pile,
        drawn_kitten=None,
        pending=None,
        commitment=e.commitment,
        salt=e.salt,
        seen_future=seen,
        placed_kitten=placed,
    )


def _ev_player_exploded(s: State, e: PlayerExploded) -> State:
    return replace(
        s,
        alive=_with_item(s.alive, e.seat, False),
        discard=s.discard + s.hands[e.seat],
        hands=_with_item(s.hands, e.seat, ()),
        out_of_game=(*s.out_of_game, Card.EXPLODING_KITTEN),
        drawn_kitten=None,
        pending=None,
    )


def _ev_favor_asked(s: State, e: FavorAsked) -> State:
    return replace(
        s, pending=PendingDecision(kind="favor", seat=e.giver, receiver=e.receiver, deadline=e.deadline)
    )


def _ev_favor_given(s: State, e: FavorGiven) -> State:
    if e.card is not None:
        s = _move_card(s, e.giver, e.receiver, e.card)
    return replace(s, pending=None, turn_deadline=e.turn_deadline)


def _ev_card_stolen(s: State, e: CardStolen) -> State:
    if e.card is None:
        return s
    return _move_card(s, e.victim, e.thief, e.card)


def _ev_named_card_requested(s: State, e: NamedCardRequested) -> State:
    if not e.given:
        return s
    return _move_card(s, e.target, e.seat, e.named)


def _ev_discard_pick_asked(s: State, e: DiscardPickAsked) -> State:
    return replace(s, pending=PendingDecision(kind="discard_pick", seat=e.seat, deadline=e.deadline))


def _ev_card_taken_from_discard(s: State, e: CardTakenFromDiscard) -> State:
    discard = s.discard
    for i in range(len(discard) - 1, -1, -1):
        if discard[i] == e.card:
            discard = discard[:i] + discard[i + 1 :]
            break
    hands = _with_item(s.hands, e.seat, (*s.hands[e.seat], e.card))
    return replace(s, discard=discard, hands=hands, pending=None, turn_deadline=e.turn_deadline)


def _ev_future_seen(s: State, e: FutureSeen) -> State:
    return replace(s, seen_future=_with_item(s.seen_future, e.seat, e.cards))


def _ev_deck_shuffled(s: State, e: DeckShuffled) -> State:
    seen, placed = knowledge.voided(s.seen_future, s.placed_kitten)
    return replace(
        s, draw_pile=e.order, commitment=e.commitment, salt=e.salt, seen_future=seen, placed_kitten=placed
    )


def _ev_action_had_no_effect(s: State, e: ActionHadNoEffect) -> State:
    return s


def _ev_player_conceded(s: State, e: PlayerConceded) -> State:
    if e.kitten_left is None:  # stored before the choice was recorded: make it as it was made then
        kitten_left, position = leaving_kitten(s, e.seat)
    else:
        kitten_left, position = e.kitten_left, e.kitten_position
    pile = s.draw_pile
    out = s.out_of_game
    drawn_kitten = s.drawn_kitten
    seen, placed = s.seen_future, s.placed_kitten
    if kitten_left == "drawn":
        drawn_kitten = None
        out = (*out, Card.EXPLODING_KITTEN)
    elif kitten_left == "pile" and position is not None:
        pile = pile[:position] + pile[position + 1 :]
        out = (*out, Card.EXPLODING_KITTEN)
        seen, placed = knowledge.after_removal(seen, placed, position)
    window = s.window
    if window is not None and window.actor == e.seat:
        window = None
    pending = s.pending
    if pending is not None and e.seat in (pending.seat, pending.receiver):
        pending = None
    return replace(
        s,
        alive=_with_item(s.alive, e.seat, False),
        discard=s.discard + s.hands[e.seat],
        hands=_with_item(s.hands, e.seat, ()),
        draw_pile=pile,
        out_of_game=out,
        drawn_kitten=drawn_kitten,
        window=window,
        pending=pending,
        turn_deadline=e.turn_deadline,
        seen_future=seen,
        placed_kitten=placed,
    )


def _ev_won(s: State, e: ExplodingKittensWon) -> State:
    return replace(s, winner=e.winner, window=None, pending=None)


_EVOLVERS: dict[type[Any], Callable[[State, Any], State]] = {
    DeckDealt: _ev_deck_dealt,
    CardPlayed: _ev_card_played,
    ComboPlayed: _ev_combo_played,
    NopePlayed: _ev_nope_played,
    ReactionPassed: _ev_reaction_passed,
    ReactionsResolved: _ev_reactions_resolved,
    OwedTurnStarted: _ev_owed_turn_started,
    CardDrawn: _ev_card_drawn,
    KittenDrawn: _ev_kitten_drawn,
    KittenDefused: _ev_kitten_defused,
    PlayerExploded: _ev_player_exploded,
    FavorAsked: _ev_favor_asked,
    FavorGiven: _ev_favor_given,
    CardStolen: _ev_card_stolen,
    NamedCardRequested: _ev_named_card_requested,
    DiscardPickAsked: _ev_discard_pick_asked,
    CardTakenFromDiscard: _ev_card_taken_from_discard,
    FutureSeen: _ev_future_seen,
    DeckShuffled: _ev_deck_shuffled,
    ActionHadNoEffect: _ev_action_had_no_effect,
    PlayerConceded: _ev_player_conceded,
    ExplodingKittensWon: _ev_won,
}


def evolve(state: State, event: ExplodingKittensEvent) -> State:
    """Apply one event. Total over the game's events, deterministic, no RNG or clock."""
    return _EVOLVERS[type(event)](state, event)
