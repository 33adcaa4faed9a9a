"""What the dispute routes take and answer (service/http/api/disputes.py, moderation.py), and the
refusals they share."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from domain.disputes.events import Action, Category, Verdict
from domain.text import TEXT_PATTERN
from projections.disputes import DisputeOut
from service.app.audit import ChainReport
from service.app.disputes import DisputeSummary
from service.http import paging
from service.http.api.params import INT32_MAX
from service.http.api.problems import KEYED, Codes

Text = Annotated[
    str, msgspec.Meta(min_length=1, max_length=1000, extra_json_schema={"pattern": TEXT_PATTERN})
]
Seq = Annotated[int, msgspec.Meta(ge=1, le=INT32_MAX)]
SeatIndex = Annotated[int, msgspec.Meta(ge=0, le=INT32_MAX)]
# Refusals shared by the routes that change a dispute.
CHANGE: Codes = {
    **KEYED,
    422: ["idempotency_key_reused", "invalid_text", "text_too_long"],
    409: ["version_conflict", "game_under_incident"],
}
UNKNOWN_DISPUTE: Codes = {404: ["not_found"]}
MODERATOR_WORK: Codes = {409: ["moderator_was_seated", "dispute_resolved"], 422: ["unknown_dispute"]}


class RaiseBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # The disputed events, as numbered for this seat (its events' seqs).
    seqs: Annotated[list[Seq], msgspec.Meta(min_length=1, max_length=100)]
    category: Category
    reason: Text


class TextBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    text: Text


class QuestionBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: SeatIndex
    text: Text


class ResolveBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A ruling: the verdict, the explanation every seat and spectator reads, and what an upheld
    dispute changes."""

    # How verdict, action and seats go together is said in words (the descriptions) rather than
    # as one schema per verdict: clients generated from the document read one body type.
    verdict: Verdict
    explanation: Text  # public: every seat and spectator reads it
    action: Annotated[
        Action | None,
        msgspec.Meta(description="Required when upheld; absent or none when dismissed (422 invalid_ruling)"),
    ] = None
    seats: Annotated[
        list[SeatIndex],
        msgspec.Meta(
            max_length=100,
            description=(
                "Seats of this game: the winners (award) or the penalized (penalize), at least one;"
                " empty with any other action (422 invalid_ruling)"
            ),
        ),
    ] = []


class ReviewBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    reason: Text


class DisputeQueue(msgspec.Struct, frozen=True):
    items: list[DisputeSummary]  # oldest first
    next: str | None  # the next page's URL (docs/api.md, "Pages"); None: the last page


class QueueKey(paging.Key, frozen=True, array_like=True):
    list: Literal["disputes"]
    raised_at: datetime
    dispute_id: uuid.UUID


class DisputeList(msgspec.Struct, frozen=True):
    items: list[DisputeOut]


class SeatFacts(msgspec.Struct, frozen=True):
    seat: int
    name: str | None
    player_id: str | None
    penalties: int


class OutcomeOut(msgspec.Struct, frozen=True):
    winners: list[int]


class GameFacts(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    status: str
    public: bool
    seats: list[SeatFacts]
    outcome: OutcomeOut | None  # as the game ended (it stays in the log)
    ruled_outcome: OutcomeOut | None  # as an upheld verdict ruled it (None: the original stands)


class DisputedEvent(msgspec.Struct, frozen=True):
    """A disputed event with the complete face-up state before and after it (the audit's)."""

    seq: int
    type: str
    event: Any
    state_before: dict[str, Any] | None
    state_after: dict[str, Any]


class DisputeDetail(msgspec.Struct, frozen=True):
    dispute: DisputeOut
    game: GameFacts
    disputed: list[DisputedEvent]
    chain: ChainReport
