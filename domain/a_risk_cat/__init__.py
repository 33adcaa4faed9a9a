"""A Risk Cat (3-8 players, base game and full game), as a decider.

Source: seed 003 (French rules); RULES.md section 2 is binding where they differ.
The rules as enforced, in prose: docs/rules/a-risk-cat.md.

Tokens: ``"p<painting>-<k>"``; ``"p<n>-1"`` bears the black cat; ``"p2-1"`` is the Banker and
``"p2-2"`` the Cheater. The bag is an ordered tuple (top first), shuffled with ``ctx.rng`` at setup
and whenever tokens go back into it; each shuffle publishes ``commit(order, salt)`` and hides the
order and the salt. Each draw event names the token drawn.

Decisions of RULES.md section 2 (kept as written):

- Painting 2's black-cat token is the Banker.
- Tokens of the same painting are identical, for duplicates and for steals (the Banker and the
  Cheater are identical to each other).
- Only tokens *drawn* this turn cause a bust; tokens that joined by a steal, a Cat swap or the
  three ladies never do; a Cat swapped away still counts as drawn. On a bust every token obtained
  this turn goes back into the bag (reshuffled), the turn ends, robbed stacks are not restored.
- Steals: per matching stack, the whole run of identical tokens on top, or nothing.
- Equal highest scores share the win.
- Full mode: a power triggers once, when its token joins this turn's tokens (drawn, stolen,
  swapped in, taken by the ladies); a later bust undoes nothing; tokens dealt by Robin Tell never
  trigger. An Angel on top protects its whole stack from every power and from the Cat swap, but
  not from ordinary steals, and it can still receive tokens.
- The Cheater, drawn or stolen, spares the first duplicate drawn after it this turn (the spared
  token stays); a second duplicate busts.
- Robin Tell: the richest stack is the largest; Angel-topped and empty stacks cannot be chosen;
  among equals the active seat picks; none: no effect. The pile is dealt one token at a time
  from its top onto the tops of stacks of the active seat's choice, any seat.
- Banker: the top ceil(n/2) of the seat's own stack go back into the bag, unrevealed; blocked by
  an Angel on top of that stack; this turn's tokens are untouched.
- The three ladies: once a turn, when the third joins, take 0-4 tokens one at a time from the tops
  of other seats' stacks that are not Angel-topped; they join this turn's tokens.
- Server timeouts (RULES 3): draw at the start of a turn; afterwards stop with the tokens in the
  order obtained (last on top); decline a steal; keep a Cat; Robin Tell deals everything left back
  to the robbed seat; Robin Tell's target among tied richest stacks is the first of them in seat
  order after the chooser (its own stack last); the ladies take nothing. Such events have
  ``by_server=True``.
- Leaving a running game (RULES 3, ``Concede``, the service's DELETE of a seat): the seat
  concedes (``SeatConceded``, public). Its turns are skipped from then on; if it was the active
  seat, its pending decisions resolve at once with the timeout choices above (by the server),
  except that a turn not yet begun is skipped without a draw. Its stack stays on the table
  (stealable, reachable by powers, a Robin Tell deal may still go onto it) and is scored at the
  end, but a conceded seat cannot win: the winners are the highest scores among the seats that
  did not concede. With fewer than two seats standing, the turn in progress is closed the same
  way (never drawing) and the game ends at once, scored.

Our interpretations where RULES.md is silent:

- The pending decision after each step is explicit; a choice with only one possible answer is
  not asked: no steal decision when no stack matches, no Musician Cat decision when no other
  stack is non-empty (the Cat is kept), no ladies' decision when no stack can give a token.
- Musician Cat option (a) takes the Cat runs of *every* Cat-topped other stack (no subset);
  it is offered only when there is at least one. The swap may target any non-empty stack of
  another seat (a Cat-topped one included; full mode: not Angel-topped). The Cat leaves this
  turn's tokens; the swapped-in token is appended to them (it is "obtained" last).
- Runs stolen at once join this turn's tokens clockwise from the active seat, each run top first;
  powers resolve in that order.
- A duplicate is checked before any power: the Cheater drawn after the Banker busts (it is the
  duplicate, not "after it"); the Banker drawn after the Cheater is spared and its power triggers.
- Robin Tell: the active seat's own stack can be the richest. With several candidates the
  chooser picks (on a timeout, see above); the deal is then a new decision. While dealt, the
  robbed pile is off the table (the robbed stack is empty); its top is public, like a stack's
  top. Dealing everything back to the robbed seat, one by one from the top, reverses that stack
  (the literal rule).
- The ladies fire for the lady that completes the trio; tokens they take join this turn's tokens
  and their powers (Robin Tell, Banker, Cheater) resolve after the ladies are done, in order.
- The three ladies, the Cat swap and Robin Tell apply to stacks as they are at that moment.
- The Banker with an empty own stack does nothing; its event still says so (count 0).
- A stop's order is hidden from everyone but moderators, the stopping seat included in streamed
  events (nobody looks at a stack's older tokens); the seat knows what it sent.
- A game-ending ``ARiskCatGameEnded`` reveals, per seat, how many tokens of each painting it
  holds (needed to check the scores), never the stacks' order.
- The server's timeout command (``ARiskCatActOnTimeout``) is refused before the deadline or when
  ``decision_timeout`` is off.
- Only the last event of a command carries the next pending decision (``awaiting``) and its
  ``deadline``; a state folded to the middle of one command's events waits for nobody.
- Views give this turn's tokens and the *paintings* drawn this turn (what a new draw must avoid),
  not the drawn tokens' ids (a Cat swapped away may be covered since, and stacks are shown by top
  and size only). Robin Tell's pile being dealt shows its top and size, like a stack.

Refusal codes (``RuleViolation.code``): ``invalid_command``, ``game_not_started``, ``game_over``,
``game_already_started``, ``not_a_player``, ``not_your_turn``, ``no_pending_decision``,
``must_draw_first``, ``bag_empty``, ``invalid_order``, ``stack_not_stealable``,
``duplicate_seat``, ``no_cats_to_take``, ``stack_not_swappable``, ``angel_protected``,
``invalid_target``, ``server_only``, ``no_deadline``, ``deadline_not_reached``, ``invalid_clock``,
``invalid_context``, ``already_conceded``.
"""

from __future__ import annotations

from domain.a_risk_cat.about import ABOUT
from domain.a_risk_cat.commands import ARiskCatCommand, Concede
from domain.a_risk_cat.events import ARiskCatEventUnion, SeatConceded
from domain.a_risk_cat.legal import legal_commands
from domain.a_risk_cat.rules import deadline, decide, evolve, initial_state, on_deadline, outcome, start
from domain.a_risk_cat.state import ARiskCatOptions, ARiskCatState
from domain.a_risk_cat.upcasters import RULES_VERSION, SCHEMA_VERSIONS, UPCASTERS
from domain.a_risk_cat.views import ARiskCatView, redact, view
from domain.decider import Decider


def conceded_seat(event: object) -> int | None:
    """The seat that left the running game, if ``event`` says one did."""
    return event.seat if isinstance(event, SeatConceded) else None


def hidden_order(state: ARiskCatState) -> tuple[str, ...]:
    """The bag, in draw order: what every bag commitment commits to."""
    return state.bag


DECIDER = Decider(
    kind="a_risk_cat",
    min_players=3,
    max_players=8,
    options_type=ARiskCatOptions,
    command_type=ARiskCatCommand,
    event_type=ARiskCatEventUnion,
    view_type=ARiskCatView,
    initial_state=initial_state,
    start=start,
    decide=decide,
    evolve=evolve,
    view=view,
    redact=redact,
    legal_commands=legal_commands,
    deadline=deadline,
    on_deadline=on_deadline,
    outcome=outcome,
    concede=Concede,
    conceded_seat=conceded_seat,
    hidden_order=hidden_order,
    rules_version=RULES_VERSION,
    schema_versions=SCHEMA_VERSIONS,
    upcasters=UPCASTERS,
    about=ABOUT,
)

__all__ = ["DECIDER", "ARiskCatOptions", "ARiskCatState"]
