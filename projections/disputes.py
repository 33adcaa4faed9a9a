"""A game's disputes as each viewer may read them: folded from the dispute events of its log.

The table keeps what the rules need (domain/disputes/state.py); the texts (reasons, notes,
questions, replies) live in the events only, and this fold gathers them into one record per
dispute with its history. ``shown_to`` then cuts a record for a viewer (issue 14):

- moderators: everything, seqs as the log's;
- the raising seat: all but the notes and what concerns other seats, seqs in its numbering;
- the other seats: id, category, status and the ruling;
- spectators: id, "under_review" or "resolved", and the ruling.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from domain.disputes.events import (
    DisputeClaimed,
    DisputeEvent,
    DisputeNoted,
    DisputeRaised,
    DisputeReleased,
    DisputeResolved,
    QuestionAnswered,
    QuestionAsked,
)
from domain.viewers import Moderator, Seat, Viewer
from projections.table import Table

UNSET: Any = msgspec.UNSET


class RuledOutcome(msgspec.Struct, frozen=True):
    """The outcome as an upheld verdict ruled it, shown next to the original ``winners``."""

    winners: list[int]  # empty: the game was voided, it counts for nobody


def ruled_outcome(table: Table) -> RuledOutcome | None:
    """None while no verdict changed the outcome."""
    ruled = table.ruled_outcome
    return RuledOutcome(winners=list(ruled.winners)) if ruled is not None else None


def ruled_from_row(winners: list[int] | None) -> RuledOutcome | None:
    """The listing's ruled winners (the last ruling released; None: none) as shown."""
    return RuledOutcome(winners=list(winners)) if winners is not None else None


class VerdictOut(msgspec.Struct, frozen=True):
    verdict: str  # dismissed | upheld
    action: str  # none | void | award | penalize
    seats: list[int]  # the winners (award) or the penalized seats (penalize)
    explanation: str
    moderator: str
    at: float


class HistoryEntry(msgspec.Struct, frozen=True, omit_defaults=True):
    """One action on a dispute: raised, claimed, released, noted, asked, answered, resolved."""

    type: str
    by: str  # a moderator's name, or "seat:N"
    at: float
    seq: int  # in the reader's numbering
    text: str | msgspec.UnsetType = msgspec.UNSET
    seat: int | msgspec.UnsetType = msgspec.UNSET


class DisputeOut(msgspec.Struct, frozen=True, omit_defaults=True):
    """A dispute as one viewer may read it: the fields it may not see are absent."""

    dispute_id: uuid.UUID
    game_id: uuid.UUID
    status: str  # open | claimed | resolved; spectators: under_review | resolved
    category: str | msgspec.UnsetType = msgspec.UNSET
    seat: int | msgspec.UnsetType = msgspec.UNSET  # the raising seat (absent: a moderator's review)
    seqs: list[int] | msgspec.UnsetType = msgspec.UNSET
    # Moderators only: ``seqs`` as the raising seat numbered them (RULES 3), to relate its words
    # ("event 12") to the log's seqs. A seat never reads a log seq.
    seat_seqs: list[int] | msgspec.UnsetType = msgspec.UNSET
    reason: str | msgspec.UnsetType = msgspec.UNSET
    claimed_by: str | msgspec.UnsetType = msgspec.UNSET
    raised_at: float | msgspec.UnsetType = msgspec.UNSET
    raised_seq: int | msgspec.UnsetType = msgspec.UNSET
    review_of: uuid.UUID | msgspec.UnsetType = msgspec.UNSET
    verdict: VerdictOut | msgspec.UnsetType = msgspec.UNSET
    history: list[HistoryEntry] | msgspec.UnsetType = msgspec.UNSET


class Record(msgspec.Struct, kw_only=True):
    """Everything about one dispute (moderators' view), seqs as the log's."""

    dispute_id: str
    seat: int | None
    seqs: tuple[int, ...]
    category: str
    reason: str
    raised_at: float
    raised_seq: int
    review_of: str | None
    status: str = "open"
    claimed_by: str | None = None
    verdict: VerdictOut | None = None
    history: list[HistoryEntry] = msgspec.field(default_factory=list)


REVOKED = "Released by the server: this moderator's tokens were revoked."


def records(items: Iterable[tuple[int, float, Any]]) -> list[Record]:
    """Every dispute of a log ``(seq, recorded_at, event)``, oldest first, with its history."""
    found: dict[str, Record] = {}
    for seq, _, event in items:
        if not isinstance(event, DisputeEvent):
            continue
        if isinstance(event, DisputeRaised):
            by = f"seat:{event.seat}" if event.seat is not None else (event.moderator or "-")
            found[event.dispute_id] = Record(
                dispute_id=event.dispute_id,
                seat=event.seat,
                seqs=event.seqs or (),
                category=event.category or "other",
                reason=event.reason or "",
                raised_at=event.at,
                raised_seq=seq,
                review_of=event.review_of,
                history=[HistoryEntry(type="raised", by=by, at=event.at, seq=seq, text=event.reason or "")],
            )
            continue
        record = found.get(event.dispute_id)
        if record is not None:
            _apply(record, seq, event)
    return list(found.values())


def _apply(record: Record, seq: int, event: DisputeEvent) -> None:
    entry: HistoryEntry
    match event:
        case DisputeClaimed(moderator=who, at=at):
            record.status, record.claimed_by = "claimed", who
            entry = HistoryEntry(type="claimed", by=who or "-", at=at, seq=seq)
        case DisputeReleased(moderator=who, reason=reason, at=at):
            record.status, record.claimed_by = "open", None
            why = REVOKED if reason == "moderator_revoked" else msgspec.UNSET
            entry = HistoryEntry(type="released", by=who or "-", at=at, seq=seq, text=why)
        case DisputeNoted(moderator=who, text=text, at=at):
            entry = HistoryEntry(type="noted", by=who or "-", at=at, seq=seq, text=text or "")
        case QuestionAsked(moderator=who, seat=seat, text=text, at=at):
            entry = HistoryEntry(type="asked", by=who or "-", at=at, seq=seq, text=text or "", seat=seat)
        case QuestionAnswered(seat=seat, text=text, at=at):
            entry = HistoryEntry(
                type="answered", by=f"seat:{seat}", at=at, seq=seq, text=text or "", seat=seat
            )
        case DisputeResolved():
            record.status, record.claimed_by = "resolved", None
            record.verdict = VerdictOut(
                verdict=event.verdict,
                action=event.action,
                seats=list(event.seats),
                explanation=event.explanation,
                moderator=event.moderator,
                at=event.at,
            )
            entry = HistoryEntry(
                type="resolved", by=event.moderator, at=event.at, seq=seq, text=event.explanation
            )
        case _:
            return
    record.history.append(entry)


def _concerns(entry: HistoryEntry, seat: int) -> bool:
    """Whether the raising ``seat`` may read ``entry`` (never a note, nothing of another seat)."""
    if entry.type == "noted":
        return False
    return entry.seat is msgspec.UNSET or entry.seat == seat


def shown_to(
    game_id: uuid.UUID,
    record: Record,
    viewer: Viewer,
    numbers: Mapping[int, int] | None = None,
    raiser: Mapping[int, int] | None = None,
) -> DisputeOut:
    """``record`` as ``viewer`` may read it; ``numbers`` maps log seqs to the viewer's numbering
    (None: the same), ``raiser`` to the raising seat's (for a moderator; None: the same)."""
    verdict = record.verdict if record.verdict is not None else UNSET
    base = DisputeOut(dispute_id=uuid.UUID(record.dispute_id), game_id=game_id, status=record.status)
    replace = msgspec.structs.replace
    if isinstance(viewer, Moderator):
        return replace(
            base,
            category=record.category,
            seat=record.seat if record.seat is not None else UNSET,
            seqs=list(record.seqs),
            seat_seqs=[raiser.get(s, 0) if raiser is not None else s for s in record.seqs]
            if record.seat is not None
            else UNSET,
            reason=record.reason,
            claimed_by=record.claimed_by or UNSET,
            raised_at=record.raised_at,
            raised_seq=record.raised_seq,
            review_of=uuid.UUID(record.review_of) if record.review_of else UNSET,
            verdict=verdict,
            history=list(record.history),
        )
    if isinstance(viewer, Seat) and viewer.index == record.seat:

        def number(seq: int) -> int:
            return seq if numbers is None else numbers.get(seq, 0)

        return replace(
            base,
            category=record.category,
            seat=record.seat,
            seqs=[number(s) for s in record.seqs],
            reason=record.reason,
            claimed_by=record.claimed_by or UNSET,
            raised_at=record.raised_at,
            raised_seq=number(record.raised_seq),
            verdict=verdict,
            history=[
                replace(entry, seq=number(entry.seq))
                for entry in record.history
                if _concerns(entry, viewer.index)
            ],
        )
    if isinstance(viewer, Seat):
        return replace(base, category=record.category, raised_at=record.raised_at, verdict=verdict)
    status = "resolved" if record.status == "resolved" else "under_review"
    return replace(base, status=status, verdict=verdict)


def numbering(items: Iterable[tuple[int, bool]]) -> dict[int, int]:
    """Log seq -> a viewer's number, from ``(seq, seen)`` in log order (projections/numbering)."""
    out: dict[int, int] = {}
    number = 0
    for seq, seen in items:
        if seen:
            number += 1
            out[seq] = number
    return out
