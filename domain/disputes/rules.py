"""The dispute rules (issue 14): who may raise, reply, claim, note, ask, rule and review, and when.

- A seat raises while the game runs or until ``window_closes_at`` after it ended, about seqs of
  the log as it stands, at most ``MAX_OPEN_PER_SEAT`` not resolved per seat; a seat that left
  the lobby never held the game's seat, but a seat that conceded still may raise.
- Moderation is accepted whatever the game's status (it finished, usually). A moderator whose
  name is a seat's display name in this game held a seat in it (the only link between a
  moderator and a player playlog has): it may not work on the game's disputes.
- One moderator at a time: claim (refused while another holds it), release. Questions and the
  ruling need the caller's claim; notes do not. A resolved dispute is never ruled again; a
  review is a new dispute citing it.
- A ruling: ``dismissed`` (no action) or ``upheld`` with an action: ``none``; ``void`` and
  ``award`` (once the game is over: they change its outcome, the original stays in the log);
  ``penalize`` (one mark per named seat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.decider import Context
from domain.disputes.commands import (
    MAX_OPEN_PER_SEAT,
    TEXT_LENGTH,
    AskSeat,
    ClaimDispute,
    ModeratorCommand,
    NoteDispute,
    OpenReview,
    RaiseDispute,
    ReleaseDispute,
    ReleaseRevokedClaim,
    ReplyToQuestion,
    ResolveDispute,
)
from domain.disputes.events import (
    DisputeClaimed,
    DisputeNoted,
    DisputeRaised,
    DisputeReleased,
    DisputeResolved,
    QuestionAnswered,
    QuestionAsked,
)
from domain.disputes.state import DisputeState, find
from domain.table.refusals import TableRefusal
from domain.table.state import Table
from domain.text import is_text


def _text(text: str, code: str, what: str) -> str:
    text = text.strip()
    low, high = TEXT_LENGTH
    if len(text) > high:
        raise TableRefusal("invalid", code, f"A {what} has at most {high} characters.")
    if len(text) < low or not is_text(text):
        raise TableRefusal(
            "invalid",
            "invalid_text",
            f"A {what} has {low} to {high} characters, no control character but line breaks and tabs.",
        )
    return text


def _held(table: Table, seat: int, holder: str | None) -> None:
    if not 0 <= seat < len(table.seats) or (holder is not None and table.occupancies[seat] != holder):
        raise TableRefusal(
            "forbidden", "not_seated", "This token's holder does not hold a seat of this game."
        )


def _dispute(table: Table, dispute_id: str) -> DisputeState:
    dispute = find(table.disputes, dispute_id)
    if dispute is None:
        raise TableRefusal("invalid", "unknown_dispute", "This game has no such dispute.")
    return dispute


def _not_resolved(dispute: DisputeState) -> None:
    if dispute.status == "resolved":
        raise TableRefusal("conflict", "dispute_resolved", "This dispute is resolved; open a review instead.")


def _claimed_by(dispute: DisputeState, moderator: str) -> None:
    _not_resolved(dispute)
    if dispute.claimed_by != moderator:
        raise TableRefusal("conflict", "dispute_not_claimed", "Claim this dispute first.")


def _seqs(table: Table, seqs: Sequence[int]) -> tuple[int, ...]:
    if not seqs or any(not 1 <= seq <= table.version for seq in seqs):
        raise TableRefusal(
            "invalid", "seq_out_of_range", f"Disputed seqs are 1..{table.version}, at least one."
        )
    return tuple(sorted(set(seqs)))


def raise_dispute(table: Table, command: RaiseDispute, ctx: Context) -> list[Any]:
    _held(table, command.seat, command.holder)
    if table.status == "open":
        raise TableRefusal("conflict", "game_not_started", "The game has not started yet.")
    if command.window_closes_at is not None and ctx.now > command.window_closes_at:
        raise TableRefusal("conflict", "dispute_window_closed", "The time to dispute this game is over.")
    seqs = _seqs(table, command.seqs)
    reason = _text(command.reason, "reason_too_long", "reason")
    open_ones = [d for d in table.disputes if d.seat == command.seat and d.status != "resolved"]
    if len(open_ones) >= MAX_OPEN_PER_SEAT:
        raise TableRefusal(
            "conflict", "too_many_open_disputes", f"A seat has at most {MAX_OPEN_PER_SEAT} open disputes."
        )
    return [
        DisputeRaised(
            dispute_id=command.dispute_id,
            seat=command.seat,
            seqs=seqs,
            category=command.category,
            reason=reason,
            at=ctx.now,
        )
    ]


def reply(table: Table, command: ReplyToQuestion, ctx: Context) -> list[Any]:
    _held(table, command.seat, command.holder)
    dispute = _dispute(table, command.dispute_id)
    _not_resolved(dispute)
    if command.seat not in dispute.asked:
        raise TableRefusal("conflict", "not_asked", "No question to this seat is waiting on this dispute.")
    text = _text(command.text, "text_too_long", "reply")
    return [QuestionAnswered(dispute_id=dispute.dispute_id, seat=command.seat, text=text, at=ctx.now)]


def seat_held_by(table: Table, moderator: str) -> int | None:
    """The seat a moderator of this name held in the game (names compared as seats are), if any:
    such a moderator may neither moderate the game nor read its disputes beyond that seat."""
    name = moderator.strip().casefold()
    return next(
        (i for i, seat in enumerate(table.seats) if seat is not None and seat.strip().casefold() == name),
        None,
    )


def _not_seated(table: Table, moderator: str) -> None:
    if seat_held_by(table, moderator) is not None:
        raise TableRefusal(
            "conflict", "moderator_was_seated", "A moderator who held a seat in this game cannot moderate it."
        )


def _ruling(table: Table, command: ResolveDispute, ctx: Context) -> DisputeResolved:
    explanation = _text(command.explanation, "text_too_long", "explanation")
    seats = tuple(sorted(set(command.seats)))
    action = command.action or "none"
    if command.verdict == "dismissed":
        if action != "none" or seats:
            raise TableRefusal("invalid", "invalid_ruling", "A dismissal takes no action and no seats.")
    elif command.action is None:
        raise TableRefusal("invalid", "invalid_ruling", "An upheld dispute names its action.")
    if action in ("award", "penalize"):
        if not seats or any(not 0 <= s < len(table.seats) for s in seats):
            raise TableRefusal("invalid", "invalid_ruling", f"{action} names seats of this game.")
    elif seats:
        raise TableRefusal("invalid", "invalid_ruling", f"{action} takes no seats.")
    if action in ("void", "award") and table.status != "finished":
        raise TableRefusal(
            "conflict", "game_not_finished", f"{action} changes an outcome: the game is not over."
        )
    return DisputeResolved(
        dispute_id=command.dispute_id,
        verdict=command.verdict,
        action=action,
        seats=seats,
        explanation=explanation,
        moderator=command.moderator,
        at=ctx.now,
    )


def moderate(table: Table, command: ModeratorCommand, ctx: Context) -> list[Any]:
    _not_seated(table, command.moderator)
    dispute = _dispute(table, command.dispute_id)
    who, at = command.moderator, ctx.now
    match command:
        case ClaimDispute():
            _not_resolved(dispute)
            if dispute.claimed_by == who:
                return []
            if dispute.claimed_by is not None:
                raise TableRefusal("conflict", "dispute_claimed", f"{dispute.claimed_by} holds this dispute.")
            return [DisputeClaimed(dispute_id=dispute.dispute_id, moderator=who, at=at)]
        case ReleaseDispute():
            _claimed_by(dispute, who)
            return [DisputeReleased(dispute_id=dispute.dispute_id, moderator=who, at=at)]
        case ReleaseRevokedClaim():
            _claimed_by(dispute, who)
            return [
                DisputeReleased(
                    dispute_id=dispute.dispute_id, moderator=who, reason="moderator_revoked", at=at
                )
            ]
        case NoteDispute(text=text):
            note = _text(text, "text_too_long", "note")
            return [DisputeNoted(dispute_id=dispute.dispute_id, moderator=who, text=note, at=at)]
        case AskSeat(seat=seat, text=text):
            _claimed_by(dispute, who)
            if not 0 <= seat < len(table.seats) or table.seats[seat] is None:
                raise TableRefusal("invalid", "invalid_seat", "Ask a seat of this game.")
            question = _text(text, "text_too_long", "question")
            return [
                QuestionAsked(dispute_id=dispute.dispute_id, seat=seat, moderator=who, text=question, at=at)
            ]
        case ResolveDispute():
            _claimed_by(dispute, who)
            return [_ruling(table, command, ctx)]
        case OpenReview(review_id=review_id, reason=reason):
            if dispute.status != "resolved":
                raise TableRefusal("conflict", "dispute_not_resolved", "Only a resolved dispute is reviewed.")
            return [
                DisputeRaised(
                    dispute_id=review_id,
                    seqs=dispute.seqs,
                    category=dispute.category,
                    reason=_text(reason, "reason_too_long", "reason"),
                    review_of=dispute.dispute_id,
                    moderator=who,
                    at=at,
                )
            ]
    raise TableRefusal("invalid", "unknown_command", f"Unknown dispute command {type(command).__name__}.")


def decide(
    table: Table, command: RaiseDispute | ReplyToQuestion | ModeratorCommand, ctx: Context
) -> list[Any]:
    """The events a dispute command makes happen at ``table``; raises a ``TableRefusal``."""
    match command:
        case RaiseDispute():
            return raise_dispute(table, command, ctx)
        case ReplyToQuestion():
            return reply(table, command, ctx)
    return moderate(table, command, ctx)
