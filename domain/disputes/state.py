"""What the table keeps of each dispute: enough to decide and to list, never a reason or a note.

The texts stay in the log's events only, so a state shown to anyone (an audit snapshot, a diff)
carries none of them. ``apply`` folds one dispute event into the table's tuple of disputes.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.disputes.events import (
    Action,
    Category,
    DisputeClaimed,
    DisputeEvent,
    DisputeNoted,
    DisputeRaised,
    DisputeReleased,
    DisputeResolved,
    QuestionAnswered,
    QuestionAsked,
    Verdict,
)

Status = Literal["open", "claimed", "resolved"]


class Ruling(msgspec.Struct, frozen=True):
    verdict: Verdict
    action: Action
    seats: tuple[int, ...]
    explanation: str
    moderator: str
    at: float


class DisputeState(msgspec.Struct, frozen=True, kw_only=True):
    dispute_id: str
    seat: int | None  # None: a review opened by a moderator
    seqs: tuple[int, ...]
    category: Category
    raised_at: float
    raised_seq: int  # the seq of its dispute.raised
    review_of: str | None = None
    status: Status = "open"
    claimed_by: str | None = None
    asked: tuple[int, ...] = ()  # seats with a question not answered yet
    ruling: Ruling | None = None


def find(disputes: tuple[DisputeState, ...], dispute_id: str) -> DisputeState | None:
    return next((d for d in disputes if d.dispute_id == dispute_id), None)


def _replace(disputes: tuple[DisputeState, ...], changed: DisputeState) -> tuple[DisputeState, ...]:
    return tuple(changed if d.dispute_id == changed.dispute_id else d for d in disputes)


def apply(disputes: tuple[DisputeState, ...], event: DisputeEvent, seq: int) -> tuple[DisputeState, ...]:
    """``disputes`` after ``event`` (the log's ``seq``)."""
    if isinstance(event, DisputeRaised):
        raised = DisputeState(
            dispute_id=event.dispute_id,
            seat=event.seat,
            seqs=event.seqs or (),
            category=event.category or "other",
            raised_at=event.at,
            raised_seq=seq,
            review_of=event.review_of,
        )
        return (*disputes, raised)
    current = find(disputes, event.dispute_id)
    if current is None:  # the rules never write one; a replay stays total
        return disputes
    replace = msgspec.structs.replace
    match event:
        case DisputeClaimed(moderator=moderator):
            return _replace(disputes, replace(current, status="claimed", claimed_by=moderator))
        case DisputeReleased():
            return _replace(disputes, replace(current, status="open", claimed_by=None))
        case QuestionAsked(seat=seat):
            return _replace(disputes, replace(current, asked=tuple(sorted({*current.asked, seat}))))
        case QuestionAnswered(seat=seat):
            return _replace(disputes, replace(current, asked=tuple(s for s in current.asked if s != seat)))
        case DisputeResolved():
            ruling = Ruling(
                event.verdict, event.action, event.seats, event.explanation, event.moderator, event.at
            )
            return _replace(disputes, replace(current, status="resolved", ruling=ruling, asked=()))
        case DisputeNoted():
            return disputes
    return disputes
