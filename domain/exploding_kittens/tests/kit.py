"""Exploding Kittens' declarations for the conformance kit (tests/conformance/kit.py): in the
rules' own words (RULES.md 1.9 and the deck's 56 cards), never read off ``view`` or ``redact``.
The kit finds them through the registry (tests/declared.py)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import strategies as st
from msgspec.structs import replace

from domain.exploding_kittens import DECIDER
from domain.exploding_kittens import events as ek
from domain.exploding_kittens.cards import Card
from domain.exploding_kittens.commands import (
    Defuse,
    GiveCard,
    Nope,
    PlayCard,
    PlayCombo,
    TakeFromDiscard,
)
from domain.exploding_kittens.state import ExplodingKittensState
from domain.viewers import Seat, Viewer
from tests.conformance.kit import GameKit


def _me(viewer: Viewer) -> int | None:
    return viewer.index if isinstance(viewer, Seat) else None


def _salt(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


# --- Exploding Kittens: RULES 1.9 ---------------------------------------------------------------


def ek_cards(state: ExplodingKittensState) -> Counter[Card]:
    """Every card of the deck is somewhere: hands, pile, discard, out of the game, or the Kitten a
    seat is placing."""
    cards = Counter([*(c for hand in state.hands for c in hand), *state.draw_pile, *state.discard])
    cards.update(state.out_of_game)
    if state.drawn_kitten is not None:
        cards[Card.EXPLODING_KITTEN] += 1
    return cards


def ek_blind_view(state: ExplodingKittensState, viewer: Viewer, rng: random.Random) -> ExplodingKittensState:
    """Re-deal what ``viewer`` does not know: the other hands (sizes kept) and the pile's unknown
    places (Kittens stay in the pile), who else passed, the salt. A seat keeps its hand, the
    cards it saw on top of the pile and the place of the Kitten it put back."""
    me = _me(viewer)
    if state.phase == "not_started":
        return state
    pile = list(state.draw_pile)
    known: set[int] = set()
    if me is not None:
        known.update(range(len(state.seen_future[me])))
        if state.placed_kitten[me] is not None:
            known.add(state.placed_kitten[me])
    open_places = [i for i in range(len(pile)) if i not in known]
    hands = [list(hand) for hand in state.hands]
    others = [seat for seat in range(state.players) if seat != me]
    kittens = [i for i in open_places if pile[i] is Card.EXPLODING_KITTEN]
    loose = [pile[i] for i in open_places if pile[i] is not Card.EXPLODING_KITTEN]
    loose += [c for seat in others for c in hands[seat]]
    rng.shuffle(loose)
    kitten_places = set(rng.sample(open_places, len(kittens)))
    for i in open_places:
        pile[i] = Card.EXPLODING_KITTEN if i in kitten_places else loose.pop()
    for seat in others:
        hands[seat] = [loose.pop() for _ in hands[seat]]
    window = state.window
    if window is not None:
        mine = () if me is None or me not in window.passed else (me,)
        others_passed = tuple(s for s in state.eligible() if s != me and rng.random() < 0.5)
        window = replace(window, passed=tuple(sorted(mine + others_passed)))
    return replace(
        state,
        draw_pile=tuple(pile),
        hands=tuple(tuple(h) for h in hands),
        window=window,
        salt=_salt(rng) if state.salt is not None else None,
    )


def _some_cards(rng: random.Random, count: int) -> tuple[Card, ...]:
    return tuple(rng.choice(list(Card)) for _ in range(count))


def ek_blind_event(event: Any, viewer: Viewer, rng: random.Random) -> Any:
    """The event's hidden fields re-dealt, as RULES 1.9 hides them from ``viewer``."""
    me = _me(viewer)
    match event:
        case ek.DeckDealt():
            hands = tuple(h if s == me else _some_cards(rng, len(h)) for s, h in enumerate(event.hands))
            pile = list(event.draw_pile)
            rng.shuffle(pile)
            return replace(event, hands=hands, draw_pile=tuple(pile), salt=_salt(rng))
        case ek.CardDrawn() if event.seat != me:
            return replace(event, card=rng.choice([c for c in Card if c is not Card.EXPLODING_KITTEN]))
        case ek.FutureSeen() if event.seat != me:
            return replace(event, cards=_some_cards(rng, len(event.cards)))
        case ek.FavorGiven() if me not in (event.giver, event.receiver) and event.card is not None:
            return replace(event, card=rng.choice(list(Card)))
        case ek.CardStolen() if me not in (event.thief, event.victim) and event.card is not None:
            return replace(event, card=rng.choice(list(Card)))
        case ek.KittenDefused():
            position = event.position if event.seat == me else rng.randrange(60)
            return replace(event, position=position, salt=_salt(rng))
        case ek.DeckShuffled():
            order = list(event.order)
            rng.shuffle(order)
            return replace(event, order=tuple(order), salt=_salt(rng))
        case ek.PlayerConceded() if event.kitten_position is not None:
            return replace(event, kitten_position=rng.randrange(60))
    return event


def ek_probes(state: ExplodingKittensState, rng: random.Random) -> list[Any]:
    """Commands a client may get wrong: a card it does not hold, a bad target, a stale Nope."""
    card = rng.choice(list(Card))
    target = rng.choice([None, -1, *range(state.players + 1)])
    pair = (card, card)
    return [
        PlayCard(card=card, target=target),
        PlayCombo(cards=pair, target=target),
        PlayCombo(cards=(card, card, card), target=target, named=rng.choice(list(Card))),
        Nope(chain_length=rng.randrange(-1, 3)),
        Defuse(position=rng.randrange(-1, len(state.draw_pile) + 2)),
        GiveCard(card=card),
        TakeFromDiscard(card=card),
    ]


def ek_options(edition: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "players": st.integers(2, 5),
            "edition": st.just(edition),
            "special_combos": st.booleans(),
            "reaction_window": st.sampled_from([0.0, 2.0]),
            "decision_timeout": st.sampled_from([None, 10.0]),
        }
    )


KITS: tuple[GameKit, ...] = tuple(
    GameKit(
        name=f"exploding_kittens[{edition}]",
        decider=DECIDER,
        options=ek_options(edition),
        conserved=ek_cards,
        blind_view=ek_blind_view,
        blind_event=ek_blind_event,
        probes=ek_probes,
    )
    for edition in ("2022", "classic")
)
