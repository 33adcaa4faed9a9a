"""Integer parameters shared by the controllers, bounded as the database stores them.

Seqs, versions and seats are ``integer`` (int32) columns: a bigger number is refused with 400 here,
in the schema, before it can overflow a query parameter (which asyncpg refuses with a 500).
"""

from __future__ import annotations

from typing import Annotated

from litestar.params import Parameter, QueryParameter

INT32_MAX = 2**31 - 1

SeatNumber = Annotated[int, Parameter(ge=0, le=INT32_MAX, description="The seat, from 0")]
AfterSeq = Annotated[
    int, QueryParameter(name="after", ge=0, le=INT32_MAX, description="Only events with a greater seq")
]
# Litestar leaves a falsy bound (ge=0) of an optional parameter out of the schema: restated.
LOWER_BOUND_ZERO = {"minimum": 0}
