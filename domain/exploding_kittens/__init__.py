"""Exploding Kittens (Original Edition, 56 cards, 2-5 players) as a decider.

The rules as enforced, in prose: docs/rules/exploding-kittens.md.

See RULES.md section 1. Options: ``ExplodingKittensOptions`` (players 2-5, edition "2022" |
"classic", special_combos, reaction_window seconds, decision_timeout seconds | None, seed,
first_seat). The state keeps the draw pile top first and the discard pile oldest first.

Decisions of RULES.md, all kept and tested:

- Editions (1.2): "2022" (default) follows seed 004: Defuses back 2/2/2/1 for 2/3/4/5 players;
  an Attack by an Attack victim gives the next seat 2 + its remaining turns (current included);
  no five-different combo. "classic" follows seed 000: 2 Defuses back with 2 players, else all
  remaining (6 - players); an Attack always gives 2; five different with special combos. In both,
  spare Defuses go into the deck after the deal (no hand starts with two), Attack ends all of the
  player's owed turns, and the faster 2-3 player variant is not implemented.
- special_combos (default true): off = only pairs of one Cat kind. On = pairs and triples of any
  title (Defuse and Nope included) and, in classic, five different titles.
- Eliminated players' hands go face up to the discard pile; the exploded Kitten leaves the game.
- A player holding a Defuse always defuses; the only choice is the position (0 = top ..
  len(draw pile) = bottom). On decision timeout the Kitten goes to a uniformly random position.
- Nobody Nopes their own card (the actor may Nope a Nope against its action).
- An action targeting an opponent with no cards is refused when played; if the target's hand
  empties (or the target leaves) during the window, the action resolves with no effect.
- Leaving (1.8): eliminated as if exploded; a drawn Kitten awaiting placement leaves the game,
  otherwise the bottom-most Kitten of the draw pile leaves; owed turns are lost and the next
  living seat owes 1 if it was their turn; a chain they started is discarded unresolved; a Favor
  they were to answer resolves with nothing.

Interpretations of this engine (not spelled out by RULES.md):

- ``reaction_window == 0``: the window is opened and closed in the same batch of events
  (``CardPlayed``/``ComboPlayed`` then ``ReactionsResolved(closed_by="at_once")`` and the effect),
  so nobody can Nope; bots and tests use it.
- A Nope names ``chain_length`` = the number of Nopes already in the chain (0 answers the action).
- A seat that passed may still Nope while the window is open; passes are seen only by the passer
  and leave no trace in anyone else's numbering (``private_to``, projections/numbering).
- Once a window's deadline has passed, any command other than Nope/PassReaction (refused:
  ``window_closed``) first closes the window (``closed_by="deadline"``) in the same batch, then
  is decided on the resulting state; ``ResolveReactions`` does only the closing.
- A late answer to a pending decision is still accepted while the server has not acted.
- ``decision_timeout`` also bounds the active seat's turn: the clock restarts whenever the seat is
  free to act again (turn start, window close, a Favor given, a discard pick); on timeout the
  server draws for it. A five-different pick that times out takes a card uniformly at random
  among the discard pile's eligible cards (RULES 3; never a Kitten).
  Server-made choices carry ``by_server=True``.
- A pair's stolen card, a shuffle's order and every timeout choice come from ``ctx.rng`` in
  ``decide`` and are written in the events; ``evolve`` never draws randomness.
- Fair shuffles: ``DeckDealt``, ``DeckShuffled`` and ``KittenDefused`` carry a public
  ``commitment`` of the new draw pile order and a hidden ``salt``. Removing the bottom-most Kitten
  on a leave is deterministic, so it needs no new commitment.
- A seat's view shows its knowledge of the pile as it stands now (RULES 1.9, knowledge.py): each
  draw moves it up, a Shuffle or another seat's Defuse voids it, its own Defuse keeps it exact.
  It keeps the position of the last Kitten it put back (an earlier one stays known only if it is
  among the known top cards).
- A Favor's target chooses the card; which copy of a title moves never matters (cards of a title
  are identical).

Refusal codes (``RuleViolation.code``): unknown_command, invalid_command (malformed fields),
already_started, game_not_started, game_over, not_a_player, player_eliminated, not_your_turn,
decision_pending, window_open, window_closed, deadline_not_reached, no_decision_timeout,
no_pending_decision, not_your_decision, invalid_position, card_not_in_hand, card_not_in_discard,
not_playable (Defuse, Nope, Kitten via PlayCard), single_cat, invalid_combo, target_required,
invalid_target, target_not_alive, target_has_no_cards, named_card_required, invalid_named_card,
cannot_nope_own_card, stale_nope, not_eligible, already_passed, draw_pile_empty (unreachable).
"""

from __future__ import annotations

from domain.decider import Decider
from domain.exploding_kittens.about import ABOUT
from domain.exploding_kittens.commands import ExplodingKittensCommand, Leave
from domain.exploding_kittens.events import ExplodingKittensEvent, PlayerConceded
from domain.exploding_kittens.legal import legal_commands
from domain.exploding_kittens.rules import deadline, decide, evolve, on_deadline, outcome, start
from domain.exploding_kittens.state import ExplodingKittensOptions, ExplodingKittensState, initial_state
from domain.exploding_kittens.upcasters import RULES_VERSION, SCHEMA_VERSIONS, UPCASTERS
from domain.exploding_kittens.views import ExplodingKittensView, private_to, redact, view


def hidden_order(state: ExplodingKittensState) -> tuple[str, ...]:
    """The draw pile, top first: what every shuffle commitment commits to."""
    return state.draw_pile


def conceded_seat(event: object) -> int | None:
    """The seat that left the running game, if ``event`` says one did."""
    return event.seat if isinstance(event, PlayerConceded) else None


DECIDER = Decider(
    kind="exploding_kittens",
    min_players=2,
    max_players=5,
    options_type=ExplodingKittensOptions,
    command_type=ExplodingKittensCommand,
    event_type=ExplodingKittensEvent,
    view_type=ExplodingKittensView,
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
    concede=Leave,
    conceded_seat=conceded_seat,
    hidden_order=hidden_order,
    private_to=private_to,
    rules_version=RULES_VERSION,
    schema_versions=SCHEMA_VERSIONS,
    upcasters=UPCASTERS,
    about=ABOUT,
)

__all__ = [
    "DECIDER",
    "ExplodingKittensCommand",
    "ExplodingKittensEvent",
    "ExplodingKittensOptions",
    "ExplodingKittensState",
]
