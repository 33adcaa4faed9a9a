"""A turn (RULES.md 2.3 "A turn"): draw, the bust check, the end of a turn and the next seat.

Rulings and interpretations kept here:

- On a bust every token obtained this turn goes back into the bag (reshuffled, a new
  commitment), the turn ends, robbed stacks are not restored.
- A duplicate is checked before any power: the Cheater drawn after the Banker busts (it is the
  duplicate, not "after it"); the Banker drawn after the Cheater is spared and its power triggers.
- The pending decision after each step is explicit; a choice with only one possible answer is
  not asked: no steal decision when no stack matches, no Musician Cat decision when no other
  stack is non-empty (the Cat is kept).
- Only the last event of a command carries the next pending decision (``awaiting``) and its
  ``deadline``; a state folded to the middle of one command's events waits for nobody.
- The game ends when a turn ends with the bag empty or (RULES 3) fewer than two seats standing.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.a_risk_cat.batch import ARiskCatBatch
from domain.a_risk_cat.events import (
    ARiskCatGameEnded,
    ARiskCatTurnStarted,
    TokenDrawn,
    TurnBusted,
)
from domain.a_risk_cat.powers import resolve_powers
from domain.a_risk_cat.scoring import score
from domain.a_risk_cat.stacks import cat_swap_options, cat_take_options, is_bust, steal_options, triggers
from domain.a_risk_cat.state import (
    ARiskCatPending,
    ARiskCatState,
    PendingFirstDraw,
    PendingMusicianCat,
    PendingRunSteal,
)
from domain.a_risk_cat.tokens import (
    MUSICIAN_CATS,
    painting,
)


def draw(batch: ARiskCatBatch, *, by_server: bool) -> ARiskCatPending | None:
    """2.3: draw the bag's top token; bust check; then the steal or Cat choice; then powers."""
    state = batch.state
    seat = state.active_seat
    token = state.bag[0]
    duplicate = is_bust(state, token)
    spared = duplicate and state.full and state.cheater == "armed"
    batch.emit(
        TokenDrawn(
            seat=seat,
            token=token,
            spared=spared,
            triggers=() if duplicate and not spared else triggers(state, [token]),
            by_server=by_server,
        )
    )
    if duplicate and not spared:
        returned = batch.state.turn_tokens
        bag, commitment, salt = batch.shuffled_bag(batch.state.bag + returned)
        batch.emit(
            TurnBusted(
                seat=seat,
                token=token,
                returned=returned,
                bag_size=len(bag),
                commitment=commitment,
                bag=bag,
                salt=salt,
            )
        )
        return end_turn(batch)
    state = batch.state
    if painting(token) == MUSICIAN_CATS:
        take_from = cat_take_options(state)
        swap_with = cat_swap_options(state)
        if take_from or swap_with:
            return PendingMusicianCat(seat=seat, token=token, take_from=take_from, swap_with=swap_with)
    else:
        matching = steal_options(state, token)
        if matching:
            return PendingRunSteal(seat=seat, token=token, from_seats=matching)
    return resolve_powers(batch)


def end_turn(batch: ARiskCatBatch) -> ARiskCatPending | None:
    """2.4: the game ends when a turn ends with the bag empty (or, RULES 3, with fewer than two
    seats standing); else the next standing seat's turn (conceded seats are skipped)."""
    state = batch.state
    standing = state.standing()
    if not state.bag or len(standing) < 2:
        sheet = score(state.stacks, state.removed_paintings, state.conceded)
        batch.emit(
            ARiskCatGameEnded(
                holdings=sheet.holdings,
                paintings_won=sheet.paintings_won,
                scores=sheet.scores,
                winners=sheet.winners,
            )
        )
        return None
    seat = first_after(state, state.active_seat, standing)
    batch.emit(ARiskCatTurnStarted(seat=seat, turn_number=state.turn_number + 1))
    return PendingFirstDraw(seat=seat)


def first_after(state: ARiskCatState, chooser: int, seats: Sequence[int]) -> int:
    """RULES 3: the first of ``seats`` in seat order after ``chooser`` (the chooser's own last)."""
    n = state.players
    return min(seats, key=lambda s: (s - chooser - 1) % n)
