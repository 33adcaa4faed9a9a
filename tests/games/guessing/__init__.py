"""Guessing: a tiny hidden-information game used only by the tests, in the shape of the real
games (domain/<game>/): each seat holds one secret card, names another's or swaps its own for a
random one from the pile, and may keep private notes nobody else learns exist.

Modules: state.py (options, state), commands.py, events.py, rules.py (``start``, ``decide``,
``evolve``, the deadline), legal.py, views.py (``view``, ``redact``, ``private_to``), about.py
(title, refusal codes), rules.md (its rules document), tests/kit.py (its declarations for the
conformance kit).
"""

from __future__ import annotations

from domain.decider import Clock, Decider, Hidden, Seats, Types
from tests.games.guessing.about import ABOUT
from tests.games.guessing.commands import GuessingCommand
from tests.games.guessing.events import GuessingEvent, SeatConceded
from tests.games.guessing.legal import legal_commands
from tests.games.guessing.rules import deadline, decide, evolve, on_deadline, outcome, start
from tests.games.guessing.state import GuessingOptions, GuessingState, initial_state
from tests.games.guessing.views import GuessingView, private_to, redact, view


def conceded_seat(event: object) -> int | None:
    return event.seat if isinstance(event, SeatConceded) else None


DECIDER: Decider[GuessingState, GuessingCommand, GuessingEvent, GuessingView] = Decider(
    kind="guessing",
    seats=Seats(min=2, max=4, conceded=conceded_seat),
    types=Types(options=GuessingOptions, command=GuessingCommand, event=GuessingEvent, view=GuessingView),
    initial_state=initial_state,
    start=start,
    decide=decide,
    evolve=evolve,
    outcome=outcome,
    view=view,
    redact=redact,
    legal_commands=legal_commands,
    clock=Clock(deadline=deadline, on_deadline=on_deadline),
    hidden=Hidden(private_to=private_to),
    about=ABOUT,
)

__all__ = ["DECIDER", "GuessingOptions", "GuessingState"]
