"""Integer parameters shared by the controllers, bounded as the database stores them.

Seqs, versions and seats are ``integer`` (int32) columns: a bigger number is refused with 400 here,
in the schema, before it can overflow a query parameter (which asyncpg refuses with a 500).
"""

from __future__ import annotations

import uuid
from typing import Annotated

from litestar.params import Parameter, QueryParameter

from domain.access import NOTE_LENGTH
from service.access import Ask

INT32_MAX = 2**31 - 1

SeatNumber = Annotated[int, Parameter(ge=0, le=INT32_MAX, description="The seat, from 0")]
AfterSeq = Annotated[
    int, QueryParameter(name="after", ge=0, le=INT32_MAX, description="Only events with a greater seq")
]
# Litestar leaves a falsy bound (ge=0) of an optional parameter out of the schema: restated.
LOWER_BOUND_ZERO = {"minimum": 0}


Reason = Annotated[
    str | None,
    QueryParameter(
        required=False,
        max_length=40,
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
    """A moderator's why for a face-up read (service/access.py), from the query."""
    return Ask(reason=reason, dispute=dispute, note=note)


def provide_reason(reason: Reason = None, note: Note = None) -> Ask:
    """The why of a read that names its dispute in its path."""
    return Ask(reason=reason, note=note)
