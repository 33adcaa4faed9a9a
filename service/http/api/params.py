"""Parameters shared by the controllers.

Seqs, versions and seats are ``integer`` (int32) columns: a bigger number is refused with 400 here,
in the schema, before it can overflow a query parameter (which asyncpg refuses with a 500).
Every route that changes something takes the same ``Idempotency-Key`` (service/app/idempotency.py).
"""

from __future__ import annotations

import uuid
from typing import Annotated, Literal, get_args

from litestar.params import HeaderParameter, Parameter, QueryParameter

from domain.access import NOTE_LENGTH, REASONS
from service.app.access import Ask

INT32_MAX = 2**31 - 1

SeatNumber = Annotated[int, Parameter(ge=0, le=INT32_MAX, description="The seat, from 0")]
AfterSeq = Annotated[
    int, QueryParameter(name="after", ge=0, le=INT32_MAX, description="Only events with a greater seq")
]
MinVersion = Annotated[
    int,
    QueryParameter(
        name="min_version",
        ge=0,
        le=INT32_MAX,
        description=(
            "Read your writes: the highest version of this seat the caller has been given (a"
            " command's answer, a view). The answer includes at least that much of the game,"
            ' whichever instance gives it (docs/api.md, "Read your writes")'
        ),
    ),
]
# A page of events (a log, its diffs, a seat's events), so that a replay viewer grows with what
# it shows, not with the game.
MAX_PAGE = 1000
PageLimit = Annotated[
    int | None,
    QueryParameter(
        name="limit",
        required=False,
        ge=1,
        le=MAX_PAGE,
        description=f"At most this many events (1 to {MAX_PAGE}; absent: every event after `after`)",
    ),
]
# Litestar leaves a falsy bound (ge=0) of an optional parameter out of the schema: restated.
LOWER_BOUND_ZERO = {"minimum": 0}

IDEMPOTENCY = (
    "A retry is always safe: the same key with the same request (operation, path and body) returns"
    " the first answer, its status and body, whatever else the request carries (expected_version"
    " included) and whatever happened since; nothing is done twice. The same key with another"
    " request (another operation, resource or body) is refused with 422 idempotency_key_reused."
    " Keys are remembered per game and per caller (a seat's commands, a seat's or a moderator's"
    " disputes, the host, a player, the guests); a key sent without a token (a create, a guest's"
    " join) is the only proof of being the same caller: make it unguessable (a random UUID)."
    " A moderator's or a player's key belongs to the first game it was sent for."
)
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        max_length=200,
        pattern=r"^[!-~]+$",  # visible ASCII (service/http/fast/lanes.py reads it the same way)
        description=IDEMPOTENCY,
    ),
]

# The reasons a face-up read may give (domain/access.py): any other is a 400 for every caller,
# a moderator or not, as the document's enum says.
AccessReason = Literal["cheating_report", "incident", "legal_request", "player_request"]
assert set(get_args(AccessReason)) == set(REASONS)

Reason = Annotated[
    AccessReason | None,
    QueryParameter(
        required=False,
        description="Why a moderator reads face up (required while the game runs, unless"
        " `dispute` names an open dispute of it): cheating_report, incident, legal_request,"
        " player_request. Recorded, and shown to the game's seats (docs/access-records.md)",
    ),
]
Note = Annotated[
    str | None,
    QueryParameter(
        required=False, max_length=NOTE_LENGTH, description="A short text for the record; the seats read it"
    ),
]


def provide_ask(
    reason: Reason = None,
    dispute: Annotated[
        uuid.UUID | None,
        QueryParameter(required=False, description="The dispute of this game the read is for"),
    ] = None,
    note: Note = None,
) -> Ask:
    """A moderator's why for a face-up read (service/app/access.py), from the query."""
    return Ask(reason=reason, dispute=dispute, note=note)


def provide_reason(reason: Reason = None, note: Note = None) -> Ask:
    """The why of a read that names its dispute in its path."""
    return Ask(reason=reason, note=note)
