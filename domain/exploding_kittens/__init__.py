"""Exploding Kittens (Original Edition, 56 cards, 2-5 players) as a decider.

The rules as enforced, in prose: docs/rules/exploding-kittens.md.

See RULES.md section 1. Options: ``ExplodingKittensOptions`` (players 2-5, edition "2022" |
"classic", special_combos, reaction_window seconds, decision_timeout seconds | None, seed,
first_seat). The state keeps the draw pile top first and the discard pile oldest first.

The rules, by the rulebook's sections (each module opens with the RULES.md sections it
implements and keeps the rulings that govern its code):

- setup.py: RULES 1.2 (editions) and 1.3, the deal.
- batch.py: the kernel's batch as this game's steps receive it, and the decision clock.
- turn.py: RULES 1.4 and 1.5, turns, drawing, exploding and defusing, decision timeouts.
- actions.py: RULES 1.6, the action cards.
- combos.py: RULES 1.6, special combos.
- reactions.py: RULES 1.7, Nope and the reaction window.
- leaving.py: RULES 1.8, a seat leaving a running game.
- knowledge.py: RULES 1.9, what a seat knows of the draw pile (its view shows it as it stands
  now: each draw moves it up, a Shuffle or another seat's Defuse voids it, its own Defuse keeps
  it exact; it keeps the position of the last Kitten it put back).
- rules.py: ``decide`` (who may act, then the section that answers) and RULES 3, the server's
  own commands; fold.py: ``evolve``, which only applies facts.

Every random outcome and every choice (a pair's stolen card, a shuffle's order, each timeout
choice, whether a Defuse is pending, which Kitten leaves) is made in ``decide`` from ``ctx.rng``
and the state, and written in the events; ``evolve`` never draws randomness nor chooses.

Refusal codes (``RuleViolation.code``; the ones every game shares are in domain/refusals.py):
``ABOUT.refusal_codes`` in about.py lists every one the rules raise (a test reads them off the
sources), ``ABOUT.race_codes`` those that only mean the game moved on.
"""

from __future__ import annotations

from domain.decider import Clock, Decider, Hidden, Seats, Types, Versions
from domain.exploding_kittens.about import ABOUT
from domain.exploding_kittens.commands import RENAMED_COMMANDS, ExplodingKittensCommand
from domain.exploding_kittens.events import ExplodingKittensEvent, PlayerConceded, PlayerExploded
from domain.exploding_kittens.legal import legal_commands
from domain.exploding_kittens.rules import (
    deadline,
    decide,
    decide_and_fold,
    evolve,
    initial_state,
    on_deadline,
    outcome,
    start,
    waiting_for,
)
from domain.exploding_kittens.state import PUBLIC_CLOCK, ExplodingKittensOptions, ExplodingKittensState
from domain.exploding_kittens.upcasters import RULES_VERSION, SCHEMA_VERSIONS, UPCASTERS
from domain.exploding_kittens.views import ExplodingKittensView, private_to, redact, view


def hidden_order(state: ExplodingKittensState) -> tuple[str, ...]:
    """The draw pile, top first: what every shuffle commitment commits to."""
    return state.draw_pile


def conceded_seat(event: object) -> int | None:
    """The seat that left the running game, if ``event`` says one did."""
    return event.seat if isinstance(event, PlayerConceded) else None


def out_seat(event: object) -> int | None:
    """The seat that went out of the running game (exploded or left), if ``event`` says one did:
    the finishing order, the winner first and the first one out last."""
    return event.seat if isinstance(event, PlayerConceded | PlayerExploded) else None


DECIDER: Decider[
    ExplodingKittensState, ExplodingKittensCommand, ExplodingKittensEvent, ExplodingKittensView
] = Decider(
    kind="exploding_kittens",
    seats=Seats(min=2, max=5, conceded=conceded_seat, out=out_seat),
    types=Types(
        options=ExplodingKittensOptions,
        command=ExplodingKittensCommand,
        event=ExplodingKittensEvent,
        view=ExplodingKittensView,
    ),
    initial_state=initial_state,
    start=start,
    decide=decide,
    decide_and_fold=decide_and_fold,
    evolve=evolve,
    outcome=outcome,
    view=view,
    redact=redact,
    legal_commands=legal_commands,
    clock=Clock(
        deadline=deadline, on_deadline=on_deadline, waiting_for=waiting_for, public_defaults=PUBLIC_CLOCK
    ),
    hidden=Hidden(order=hidden_order, private_to=private_to),
    versions=Versions(
        rules=RULES_VERSION, schemas=SCHEMA_VERSIONS, upcasters=UPCASTERS, renamed_commands=RENAMED_COMMANDS
    ),
    about=ABOUT,
)

__all__ = [
    "DECIDER",
    "ExplodingKittensCommand",
    "ExplodingKittensEvent",
    "ExplodingKittensOptions",
    "ExplodingKittensState",
]
