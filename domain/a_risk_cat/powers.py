"""Powers (RULES.md 2.5 "Full game powers"): the Cheater, the Banker, Robin Tell, the three ladies.

Rulings and interpretations kept here:

- A power triggers once; a later bust undoes nothing; tokens dealt by Robin Tell never trigger.
- The Cheater, drawn or stolen, spares the first duplicate drawn after it this turn (the spared
  token stays); a second duplicate busts.
- Robin Tell: among equal richest stacks the active seat picks (on a timeout, the first of them in
  seat order after the chooser, its own stack last); none: no effect. The pile is dealt one token
  at a time from its top onto the tops of stacks of the active seat's choice, any seat. While
  dealt, the robbed pile is off the table (the robbed stack is empty); its top is public, like a
  stack's top. Dealing everything back to the robbed seat, one by one from the top, reverses that
  stack (the literal rule).
- Banker: the top ceil(n/2) of the seat's own stack go back into the bag, unrevealed; blocked by
  an Angel on top of that stack; this turn's tokens are untouched. With an empty own stack it does
  nothing; its event still says so (count 0).
- The three ladies: once a turn, when the third joins, take 0-4 tokens one at a time from the
  tops of other seats' stacks that are not Angel-topped; they join this turn's tokens and their
  powers (Robin Tell, Banker, Cheater) resolve after the ladies are done, in order. No ladies'
  decision when no stack can give a token.
- The three ladies, the Cat swap and Robin Tell apply to stacks as they are at that moment.
"""

from __future__ import annotations

from domain.a_risk_cat.batch import ARiskCatBatch
from domain.a_risk_cat.events import (
    BankerReturned,
    CheaterArmed,
    LadiesAssembled,
    LadiesDismissed,
    RobinTellTargetChosen,
    RobinTellTokenDealt,
    RobinTellTriggered,
)
from domain.a_risk_cat.stacks import angel_protected, ladies_options, robin_candidates, top
from domain.a_risk_cat.state import (
    ARiskCatPending,
    PendingDrawOrStop,
    PendingLadiesTake,
    PendingRobinTellDeal,
    PendingRobinTellTarget,
)
from domain.a_risk_cat.tokens import (
    BANKER,
    CHEATER,
    ROBIN_TELL,
)

LADIES_MAX_TAKES = 4


def resolve_powers(batch: ARiskCatBatch) -> ARiskCatPending | None:
    """2.5: resolve the triggered powers in the order their tokens joined, then draw or stop."""
    while batch.state.power_queue:
        state = batch.state
        seat = state.active_seat
        token = state.power_queue[0]
        if token == CHEATER:
            batch.emit(CheaterArmed(seat=seat, token=token))
        elif token == BANKER:
            banker(batch)
        elif token == ROBIN_TELL:
            candidates = robin_candidates(state)
            if len(candidates) == 1:
                robbed = candidates[0]
                pile = state.stacks[robbed]
                batch.emit(
                    RobinTellTriggered(
                        seat=seat,
                        token=token,
                        candidates=candidates,
                        robbed_seat=robbed,
                        count=len(pile),
                        pile_top=pile[-1],
                        pile=pile,
                    )
                )
                return deal_pending(batch)
            batch.emit(RobinTellTriggered(seat=seat, token=token, candidates=candidates))
            if candidates:
                return PendingRobinTellTarget(seat=seat, candidates=candidates)
        else:  # the lady that completed the three ladies
            batch.emit(LadiesAssembled(seat=seat, token=token))
            pending = ladies_pending(batch, 0)
            if pending is not None:
                return pending
    return PendingDrawOrStop(seat=batch.state.active_seat, can_draw=bool(batch.state.bag))


def banker(batch: ARiskCatBatch) -> None:
    state = batch.state
    seat = state.active_seat
    stack = state.stacks[seat]
    blocked = angel_protected(state, seat)
    count = 0 if blocked else (len(stack) + 1) // 2
    if count == 0:
        batch.emit(
            BankerReturned(
                seat=seat,
                token=BANKER,
                count=0,
                blocked=blocked,
                new_top=top(stack),
                stack_size=len(stack),
                bag_size=len(state.bag),
                commitment="",  # nothing went back: no reshuffle, nothing new to commit to
            )
        )
        return
    returned = stack[len(stack) - count :]
    kept = stack[: len(stack) - count]
    bag, commitment, salt = batch.shuffled_bag(state.bag + returned)
    batch.emit(
        BankerReturned(
            seat=seat,
            token=BANKER,
            count=count,
            blocked=False,
            new_top=top(kept),
            stack_size=len(kept),
            bag_size=len(bag),
            commitment=commitment,
            returned=returned,
            bag=bag,
            salt=salt,
        )
    )


def rob(batch: ARiskCatBatch, robbed: int, *, by_server: bool) -> ARiskCatPending | None:
    state = batch.state
    pile = state.stacks[robbed]
    batch.emit(
        RobinTellTargetChosen(
            seat=state.active_seat,
            robbed_seat=robbed,
            count=len(pile),
            pile_top=pile[-1],
            pile=pile,
            by_server=by_server,
        )
    )
    return deal_pending(batch)


def deal_pending(batch: ARiskCatBatch) -> ARiskCatPending:
    state = batch.state
    assert state.robbed_seat is not None and state.robin_pile
    return PendingRobinTellDeal(
        seat=state.active_seat,
        robbed_seat=state.robbed_seat,
        remaining=len(state.robin_pile),
        next_token=state.robin_pile[-1],
    )


def deal(batch: ARiskCatBatch, to_seat: int, *, by_server: bool) -> None:
    state = batch.state
    pile = state.robin_pile
    batch.emit(
        RobinTellTokenDealt(
            seat=state.active_seat,
            token=pile[-1],
            to_seat=to_seat,
            remaining=len(pile) - 1,
            next_token=top(pile[:-1]),
            by_server=by_server,
        )
    )


def after_deal(batch: ARiskCatBatch) -> ARiskCatPending | None:
    if batch.state.robin_pile:
        return deal_pending(batch)
    return resolve_powers(batch)


def ladies_pending(batch: ARiskCatBatch, taken: int) -> ARiskCatPending | None:
    """The ladies wait for a take while fewer than four were taken and a stack can give one;
    otherwise they are dismissed at once."""
    state = batch.state
    sources = ladies_options(state)
    if taken < LADIES_MAX_TAKES and sources:
        return PendingLadiesTake(seat=state.active_seat, taken=taken, from_seats=sources)
    batch.emit(LadiesDismissed(seat=state.active_seat, taken=taken))
    return None


def after_lady_take(batch: ARiskCatBatch, taken: int) -> ARiskCatPending | None:
    pending = ladies_pending(batch, taken)
    return pending if pending is not None else resolve_powers(batch)
