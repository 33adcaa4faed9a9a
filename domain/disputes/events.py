"""The dispute facts, in the game's own log next to the lobby's and the game's (hash-chained).

Their tags start with ``dispute.``. Texts a viewer may not read (a reason, a note, a question to
another seat) are optional fields: ``views.redact`` sets them to None and ``omit_defaults`` leaves
them out of what that viewer receives. In the log they are always present.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.personal import Fields

Category = Literal["rules", "timeout", "misconduct", "technical", "other"]
Verdict = Literal["dismissed", "upheld"]
Action = Literal["none", "void", "award", "penalize"]


class DisputeEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    """Base of the dispute events; their tags start with ``dispute.``."""

    dispute_id: str


class DisputeRaised(DisputeEvent, frozen=True, kw_only=True, tag="dispute.raised"):
    # The raising seat (None: a review opened by a moderator), the log seqs disputed.
    seat: int | None = None
    seqs: tuple[int, ...] | None = None
    category: Category | None = None
    reason: str | None = None
    review_of: str | None = None
    moderator: str | None = None  # who opened a review
    at: float = 0.0
    sealed: dict[str, str] | msgspec.UnsetType = msgspec.UNSET  # read back: the seals (domain/personal.py)


class DisputeClaimed(DisputeEvent, frozen=True, kw_only=True, tag="dispute.claimed"):
    moderator: str | None = None
    at: float = 0.0


class DisputeReleased(DisputeEvent, frozen=True, kw_only=True, tag="dispute.released"):
    moderator: str | None = None
    # Why, when not the moderator's own choice: "moderator_revoked" (the server released it).
    reason: Literal["moderator_revoked"] | None = None
    at: float = 0.0


class DisputeNoted(DisputeEvent, frozen=True, kw_only=True, tag="dispute.noted"):
    """A moderator-only note."""

    moderator: str | None = None
    text: str | None = None
    at: float = 0.0


class QuestionAsked(DisputeEvent, frozen=True, kw_only=True, tag="dispute.asked"):
    seat: int
    moderator: str | None = None
    text: str | None = None
    at: float = 0.0


class QuestionAnswered(DisputeEvent, frozen=True, kw_only=True, tag="dispute.answered"):
    seat: int
    text: str | None = None
    at: float = 0.0
    sealed: dict[str, str] | msgspec.UnsetType = msgspec.UNSET  # read back: the seals (domain/personal.py)


class DisputeResolved(DisputeEvent, frozen=True, kw_only=True, tag="dispute.resolved"):
    """The ruling, public: ``seats`` are the winners (award) or the penalized seats (penalize)."""

    verdict: Verdict
    action: Action = "none"
    seats: tuple[int, ...] = ()
    explanation: str = ""
    moderator: str = ""
    at: float = 0.0


DisputeEvents = (
    DisputeRaised
    | DisputeClaimed
    | DisputeReleased
    | DisputeNoted
    | QuestionAsked
    | QuestionAnswered
    | DisputeResolved
)


# What a seat writes (domain/personal.py): sealed in the log, opened when read. A review's reason
# is a moderator's, sealed alike.
PERSONAL_FIELDS: Fields = {"dispute.raised": {"reason": "text"}, "dispute.answered": {"text": "text"}}


def is_dispute_type(event_type: str) -> bool:
    return event_type.startswith("dispute.")
