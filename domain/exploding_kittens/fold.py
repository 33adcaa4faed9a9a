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

from typing import Any, assert_never

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
    PendingDefuse,
    PendingDiscardPick,
    PendingFavor,
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


def _conceded(state: State, event: PlayerConceded) -> State:
    if event.kitten_left is None:  # stored before the choice was recorded: make it as it was made then
        kitten_left, position = leaving_kitten(state, event.seat)
    else:
        kitten_left, position = event.kitten_left, event.kitten_position
    pile = state.draw_pile
    out = state.out_of_game
    drawn_kitten = state.drawn_kitten
    seen, placed = state.seen_future, state.placed_kitten
    if kitten_left == "drawn":
        drawn_kitten = None
        out = (*out, Card.EXPLODING_KITTEN)
    elif kitten_left == "pile" and position is not None:
        pile = pile[:position] + pile[position + 1 :]
        out = (*out, Card.EXPLODING_KITTEN)
        seen, placed = knowledge.after_removal(seen, placed, position)
    window = state.window
    if window is not None and window.actor == event.seat:
        window = None
    pending = state.pending
    receiver = pending.receiver if isinstance(pending, PendingFavor) else None
    if pending is not None and event.seat in (pending.seat, receiver):
        pending = None
    return replace(
        state,
        alive=_with_item(state.alive, event.seat, False),
        discard=state.discard + state.hands[event.seat],
        hands=_with_item(state.hands, event.seat, ()),
        draw_pile=pile,
        out_of_game=out,
        drawn_kitten=drawn_kitten,
        window=window,
        pending=pending,
        turn_deadline=event.turn_deadline,
        seen_future=seen,
        placed_kitten=placed,
    )


def evolve(state: State, event: ExplodingKittensEvent) -> State:
    """Apply one event. Total over the game's events, deterministic, no RNG or clock."""
    match event:
        case DeckDealt():
            n = len(event.hands)
            return replace(
                state,
                phase="playing",
                hands=event.hands,
                draw_pile=event.draw_pile,
                discard=(),
                out_of_game=event.out_of_game,
                alive=(True,) * n,
                active_seat=event.first_seat,
                turns_owed=1,
                under_attack=False,
                turn_deadline=event.turn_deadline,
                commitment=event.commitment,
                salt=event.salt,
                seen_future=((),) * n,
                placed_kitten=(None,) * n,
            )
        case CardPlayed():
            window = ReactionWindow(
                actor=event.seat,
                cards=(event.card,),
                combo=False,
                target=event.target,
                named=None,
                nopes=(),
                deadline=event.deadline,
                passed=(),
            )
            hands = _with_item(state.hands, event.seat, _without(state.hands[event.seat], event.card))
            return replace(state, hands=hands, discard=(*state.discard, event.card), window=window)
        case ComboPlayed():
            window = ReactionWindow(
                actor=event.seat,
                cards=event.cards,
                combo=True,
                target=event.target,
                named=event.named,
                nopes=(),
                deadline=event.deadline,
                passed=(),
            )
            hand = state.hands[event.seat]
            for card in event.cards:
                hand = _without(hand, card)
            return replace(
                state,
                hands=_with_item(state.hands, event.seat, hand),
                discard=state.discard + event.cards,
                window=window,
            )
        case NopePlayed():
            hands = _with_item(state.hands, event.seat, _without(state.hands[event.seat], Card.NOPE))
            if state.window is not None:
                nopes = (*state.window.nopes, event.seat)
                state = replace(
                    state, window=replace(state.window, nopes=nopes, deadline=event.deadline, passed=())
                )
            return replace(state, hands=hands, discard=(*state.discard, Card.NOPE))
        case ReactionPassed():
            if state.window is None:
                return state
            return replace(state, window=replace(state.window, passed=(*state.window.passed, event.seat)))
        case ReactionsResolved():
            return replace(state, window=None, turn_deadline=event.turn_deadline)
        case OwedTurnStarted():
            return replace(
                state,
                active_seat=event.seat,
                turns_owed=event.turns_owed,
                under_attack=event.under_attack,
                turn_deadline=event.deadline,
            )
        case CardDrawn():
            top = state.draw_pile[0]
            hands = _with_item(state.hands, event.seat, (*state.hands[event.seat], top))
            seen, placed = knowledge.after_draw(state.seen_future, state.placed_kitten)
            return replace(
                state, hands=hands, draw_pile=state.draw_pile[1:], seen_future=seen, placed_kitten=placed
            )
        case KittenDrawn():
            defusable = event.defusable
            if defusable is None:  # stored before ``defusable`` was recorded: read the hand, as then
                defusable = Card.DEFUSE in state.hands[event.seat]
            pending = PendingDefuse(seat=event.seat, deadline=event.deadline) if defusable else None
            seen, placed = knowledge.after_draw(state.seen_future, state.placed_kitten)
            return replace(
                state,
                draw_pile=state.draw_pile[1:],
                drawn_kitten=event.seat,
                pending=pending,
                seen_future=seen,
                placed_kitten=placed,
            )
        case KittenDefused():
            position = event.position if event.position is not None else 0
            pile = (*state.draw_pile[:position], Card.EXPLODING_KITTEN, *state.draw_pile[position:])
            hands = _with_item(state.hands, event.seat, _without(state.hands[event.seat], Card.DEFUSE))
            seen, placed = knowledge.after_defuse(
                state.seen_future, state.placed_kitten, event.seat, position
            )
            return replace(
                state,
                hands=hands,
                discard=(*state.discard, Card.DEFUSE),
                draw_pile=pile,
                drawn_kitten=None,
                pending=None,
                commitment=event.commitment,
                salt=event.salt,
                seen_future=seen,
                placed_kitten=placed,
            )
        case PlayerExploded():
            return replace(
                state,
                alive=_with_item(state.alive, event.seat, False),
                discard=state.discard + state.hands[event.seat],
                hands=_with_item(state.hands, event.seat, ()),
                out_of_game=(*state.out_of_game, Card.EXPLODING_KITTEN),
                drawn_kitten=None,
                pending=None,
            )
        case FavorAsked():
            return replace(
                state,
                pending=PendingFavor(seat=event.giver, receiver=event.receiver, deadline=event.deadline),
            )
        case FavorGiven():
            if event.card is not None:
                state = _move_card(state, event.giver, event.receiver, event.card)
            return replace(state, pending=None, turn_deadline=event.turn_deadline)
        case CardStolen():
            if event.card is None:
                return state
            return _move_card(state, event.victim, event.thief, event.card)
        case NamedCardRequested():
            if not event.given:
                return state
            return _move_card(state, event.target, event.seat, event.named)
        case DiscardPickAsked():
            return replace(state, pending=PendingDiscardPick(seat=event.seat, deadline=event.deadline))
        case CardTakenFromDiscard():
            discard = state.discard
            for i in range(len(discard) - 1, -1, -1):
                if discard[i] == event.card:
                    discard = discard[:i] + discard[i + 1 :]
                    break
            hands = _with_item(state.hands, event.seat, (*state.hands[event.seat], event.card))
            return replace(
                state, discard=discard, hands=hands, pending=None, turn_deadline=event.turn_deadline
            )
        case FutureSeen():
            return replace(state, seen_future=_with_item(state.seen_future, event.seat, event.cards))
        case DeckShuffled():
            seen, placed = knowledge.voided(state.seen_future, state.placed_kitten)
            return replace(
                state,
                draw_pile=event.order,
                commitment=event.commitment,
                salt=event.salt,
                seen_future=seen,
                placed_kitten=placed,
            )
        case ActionHadNoEffect():
            return state
        case PlayerConceded():
            return _conceded(state, event)
        case ExplodingKittensWon():
            return replace(state, phase="over", winners=(event.winner,), window=None, pending=None)
    assert_never(event)
