"""A Risk Cat (3-8 players, base game and full game), as a decider.

Source: seed 003 (French rules); RULES.md section 2 is binding where they differ.
The rules as enforced, in prose: docs/rules/a-risk-cat.md.

Tokens: ``"p<painting>-<k>"``; ``"p<n>-1"`` bears the black cat; ``"p2-1"`` is the Banker and
``"p2-2"`` the Cheater. The bag is an ordered tuple (top first), shuffled with ``ctx.rng`` at setup
and whenever tokens go back into it; each shuffle publishes ``commit(order, salt)`` and hides the
order and the salt. Each draw event names the token drawn.

The rules, by the rulebook's sections (each module opens with the RULES.md sections it
implements and keeps the rulings, RULES.md's and ours, that govern its code):

- setup.py: RULES 2.2, the bag and the first seat.
- batch.py: the kernel's batch for one decision (``finish`` names the next one), the clock.
- turn.py: RULES 2.3, drawing, busts, the end of a turn.
- steals.py: RULES 2.3, steals, the Musician Cat, stopping.
- powers.py: RULES 2.5, the full game's powers.
- scoring.py: RULES 2.4, the end and the scores (equal highest scores share the win; a conceded
  seat is scored but cannot win; ``ARiskCatGameEnded`` reveals, per seat, how many tokens of each
  painting it holds, never the stacks' order).
- stacks.py: reading the table (runs, Angels, what a power may reach).
- rules.py: ``decide`` and RULES 3 (server timeouts, conceding); fold.py: ``evolve``, facts only.

Painting 2's black-cat token is the Banker. Views give this turn's tokens and the *paintings*
drawn this turn (what a new draw must avoid), not the drawn tokens' ids (a Cat swapped away may
be covered since, and stacks are shown by top and size only).

Refusal codes (``RuleViolation.code``; the ones every game shares are in domain/refusals.py):
``ABOUT.refusal_codes`` in about.py lists every one the rules raise (a test reads them off the
sources), ``ABOUT.race_codes`` those that only mean the game moved on.
"""

from __future__ import annotations

from domain.a_risk_cat.about import ABOUT
from domain.a_risk_cat.commands import RENAMED_COMMANDS, ARiskCatCommand
from domain.a_risk_cat.events import ARiskCatEvent, ARiskCatEventUnion, SeatConceded
from domain.a_risk_cat.legal import legal_commands
from domain.a_risk_cat.rules import (
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
from domain.a_risk_cat.state import PUBLIC_CLOCK, ARiskCatOptions, ARiskCatState
from domain.a_risk_cat.upcasters import RULES_VERSION, SCHEMA_VERSIONS, UPCASTERS
from domain.a_risk_cat.views import ARiskCatView, ARiskCatViewBase, redact, view
from domain.decider import Clock, Command, Decider, Hidden, Seats, Types, Versions


def conceded_seat(event: object) -> int | None:
    """The seat that left the running game, if ``event`` says one did."""
    return event.seat if isinstance(event, SeatConceded) else None


def hidden_order(state: ARiskCatState) -> tuple[str, ...]:
    """The bag, in draw order: what every bag commitment commits to."""
    return state.bag


DECIDER: Decider[ARiskCatState, Command, ARiskCatEvent, ARiskCatViewBase] = Decider(
    kind="a_risk_cat",
    seats=Seats(min=3, max=8, conceded=conceded_seat),
    types=Types(
        options=ARiskCatOptions, command=ARiskCatCommand, event=ARiskCatEventUnion, view=ARiskCatView
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
    hidden=Hidden(order=hidden_order),
    versions=Versions(
        rules=RULES_VERSION, schemas=SCHEMA_VERSIONS, upcasters=UPCASTERS, renamed_commands=RENAMED_COMMANDS
    ),
    about=ABOUT,
)

__all__ = ["DECIDER", "ARiskCatOptions", "ARiskCatState"]
