"""What may be sent about disputes: a seat's raise and reply, a moderator's work on a dispute.

Ids the rules must not derive from a seeded RNG (a new dispute's id) and facts the table cannot
know (when the dispute window closes: the time the game ended is the log's, not the state's)
come in the command, as a seat's occupancy does for the table.
"""

from __future__ import annotations

from domain.disputes.events import Action, Category, Verdict
from domain.personal import Fields
from domain.table.commands import TableCommand

TEXT_LENGTH = (1, 1000)
# What a seat writes (domain/personal.py): sealed where the log records it.
PERSONAL_FIELDS: Fields = {"dispute.raise": {"reason": "text"}, "dispute.reply": {"text": "text"}}
MAX_OPEN_PER_SEAT = 3


class RaiseDispute(TableCommand, frozen=True, kw_only=True, tag="dispute.raise"):
    dispute_id: str
    seat: int
    holder: str | None  # the occupancy the seat token names
    seqs: tuple[int, ...]  # log seqs
    category: Category
    reason: str
    window_closes_at: float | None  # None while the game runs


class ReplyToQuestion(TableCommand, frozen=True, kw_only=True, tag="dispute.reply"):
    dispute_id: str
    seat: int
    holder: str | None
    text: str


class ModeratorCommand(TableCommand, frozen=True, kw_only=True):
    """Base of a moderator's commands: who moderates (the token's name) and which dispute."""

    dispute_id: str
    moderator: str


class ClaimDispute(ModeratorCommand, frozen=True, kw_only=True, tag="dispute.claim"):
    pass


class ReleaseDispute(ModeratorCommand, frozen=True, kw_only=True, tag="dispute.release"):
    pass


class ReleaseRevokedClaim(ModeratorCommand, frozen=True, kw_only=True, tag="dispute.release_revoked"):
    """The server's release of a claim whose moderator's tokens were revoked (``moderator``: the
    claimant), so that another moderator can take the dispute."""


class NoteDispute(ModeratorCommand, frozen=True, kw_only=True, tag="dispute.note"):
    text: str


class AskSeat(ModeratorCommand, frozen=True, kw_only=True, tag="dispute.ask"):
    seat: int
    text: str


class ResolveDispute(ModeratorCommand, frozen=True, kw_only=True, tag="dispute.resolve"):
    verdict: Verdict
    action: Action | None = None
    seats: tuple[int, ...] = ()
    explanation: str


class OpenReview(ModeratorCommand, frozen=True, kw_only=True, tag="dispute.review"):
    """A new dispute citing the resolved one (``dispute_id``), with its own new id."""

    review_id: str
    reason: str
