"""What each viewer may read of a dispute event (issue 14, "who sees what").

- Moderators: everything.
- The seat an event is about (the raiser of ``dispute.raised``, the seat asked or answering):
  all of it. Notes are never a seat's.
- The other seats: that a dispute exists, its category, claims and the ruling (public, with its
  explanation); no reason, no raiser, no disputed seqs, no note, no question's text.
- Spectators: that a dispute exists and is under review, and the ruling.
Every dispute event stays visible in every viewer's numbering (only its body is cut), so no
viewer's numbers skip one.
"""

from __future__ import annotations

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


def _bare(event: DisputeEvent) -> DisputeEvent:
    """Only the id and the time (and, for a question, whom it asks)."""
    match event:
        case DisputeRaised() | DisputeClaimed() | DisputeReleased() | DisputeNoted():
            return type(event)(dispute_id=event.dispute_id, at=event.at)
        case QuestionAsked(seat=seat) | QuestionAnswered(seat=seat):
            return type(event)(dispute_id=event.dispute_id, seat=seat, at=event.at)
    return event


def redact(event: DisputeEvent, viewer: Viewer) -> DisputeEvent:
    if isinstance(viewer, Moderator) or isinstance(event, DisputeResolved):
        return event
    if isinstance(viewer, Seat):
        match event:
            case DisputeRaised(seat=seat) if seat == viewer.index:
                return event
            case DisputeRaised():
                return DisputeRaised(dispute_id=event.dispute_id, category=event.category, at=event.at)
            case QuestionAsked(seat=seat) | QuestionAnswered(seat=seat) if seat == viewer.index:
                return event
            case DisputeClaimed() | DisputeReleased():
                return event
    return _bare(event)
