"""Setup (RULES.md 1.2 "Editions", 1.3 "Setup"): shuffle, deal, the Defuses and Kittens into the pile.

Rulings kept here (RULES.md 1.2, the editions): "2022" (default) follows seed 004: Defuses back
2/2/2/1 for 2/3/4/5 players. "classic" follows seed 000: 2 Defuses back with 2 players, else all
remaining (6 - players). In both, spare Defuses go into the deck after the deal (no hand starts
with two); the faster 2-3 player variant is not implemented. ``DeckDealt`` carries a public
``commitment`` of the draw pile's order and a hidden ``salt``.
"""

from __future__ import annotations

from domain import refusals
from domain.commitment import commit, new_salt
from domain.decider import Context
from domain.errors import RuleViolation
from domain.exploding_kittens.batch import timeout_at
from domain.exploding_kittens.cards import (
    HAND_DEAL,
    Card,
    dealable_cards,
    defuses_back,
)
from domain.exploding_kittens.events import (
    DeckDealt,
    ExplodingKittensEvent,
)
from domain.exploding_kittens.state import ExplodingKittensOptions, ExplodingKittensState

State = ExplodingKittensState


def initial_state(options: ExplodingKittensOptions) -> State:
    return ExplodingKittensState(options=options)


def start(state: State, ctx: Context) -> list[ExplodingKittensEvent]:
    if state.phase != "not_started":
        raise RuleViolation(refusals.GAME_ALREADY_STARTED, "The game has already started.")
    opts = state.options
    n = opts.players
    rng = ctx.rng
    rest = dealable_cards()
    rng.shuffle(rest)
    hands = tuple((Card.DEFUSE, *rest[i * HAND_DEAL : (i + 1) * HAND_DEAL]) for i in range(n))
    back = defuses_back(opts.edition, n)
    pile = rest[n * HAND_DEAL :] + [Card.DEFUSE] * back + [Card.EXPLODING_KITTEN] * (n - 1)
    rng.shuffle(pile)
    out = (Card.DEFUSE,) * (6 - n - back) + (Card.EXPLODING_KITTEN,) * (4 - (n - 1))
    first = opts.first_seat if opts.first_seat is not None else rng.randrange(n)
    salt = new_salt(rng)
    return [
        DeckDealt(
            players=n,
            first_seat=first,
            hands=hands,
            hand_sizes=tuple(len(h) for h in hands),
            draw_pile=tuple(pile),
            draw_pile_size=len(pile),
            out_of_game=out,
            commitment=commit(pile, salt),
            salt=salt,
            turn_deadline=timeout_at(state, ctx),
        )
    ]
