"""One way to page every list that can grow (docs/api.md, "Pages"): a bounded ``limit``, an opaque
``cursor``, and the next page's URL in the body's ``next`` and in an RFC 8288 ``Link`` header.

A list is ordered by (a sort column, its id) and paged by the last row's key: the next page holds
the rows after it, so rows added while a client pages never shift a page (no row skipped or
repeated, as offsets did). A cursor is base64url of a JSON array, the list's name then the key
(a ``Key``); one that does not decode to this list's key (made up, cut, another list's) is
refused 400 ``invalid_cursor``. Event lists page by their ``after``, the viewer's own numbering
(RULES 3), which is their key already: their next link carries the last event's number, never the
log's seq.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, TypeVar
from urllib.parse import urlencode

import msgspec
from litestar import Request, Response
from litestar.datastructures import ResponseHeader
from litestar.params import QueryParameter

from service.app.errors import ServiceError
from service.http.api.params import INT32_MAX

DEFAULT_LIMIT = 50
MAX_LIMIT = 200

Limit = Annotated[
    int,
    QueryParameter(
        ge=1,
        le=MAX_LIMIT,
        description=f"At most this many items (1 to {MAX_LIMIT}; else 400 invalid_limit)",
    ),
]
Cursor = Annotated[
    str | None,
    QueryParameter(
        required=False,
        max_length=400,
        pattern=r"^[A-Za-z0-9_-]+$",
        description="Where the page starts, as the previous page's `next` gives it (else 400 invalid_cursor)",
    ),
]
# Kept for clients of v0.1 on the two lists that paged by offset (docs/api.md, "Pages", says why).
Offset = Annotated[
    int,
    QueryParameter(
        ge=0,
        le=INT32_MAX,
        schema_extra={"deprecated": True},
        description="Deprecated (clients of v0.1): skip this many items; follow `next` instead",
    ),
]
CURSOR_CODES = ["invalid_limit", "invalid_cursor"]

LINK = ResponseHeader(
    name="Link",
    description='The next page (RFC 8288): `<URL>; rel="next"`, the URL of `next`; absent on the last page',
    documentation_only=True,
    required=False,
)


class Key(msgspec.Struct, frozen=True, array_like=True):
    """A list's sort key: a subclass names its list (``list``, a ``Literal``) then the key's
    columns, the sort column first and the row's id last."""


K = TypeVar("K", bound=Key)


def encode(key: Key) -> str:
    """The cursor after the row whose sort key is ``key``."""
    return base64.urlsafe_b64encode(msgspec.json.encode(key)).rstrip(b"=").decode()


def decode(cursor: str | None, key: type[K], *, offset: int = 0) -> K | None:
    """The key ``cursor`` holds (None without a cursor). A list that still takes the deprecated
    ``offset`` takes one or the other."""
    if cursor is None:
        return None
    if offset:
        raise ServiceError(400, "invalid_offset", "A page starts at a cursor or at an offset, not both.")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        return msgspec.json.decode(raw, type=key)
    except (binascii.Error, ValueError, msgspec.DecodeError) as exc:
        raise ServiceError(400, "invalid_cursor", "This cursor was not given by this list's `next`.") from exc


def next_url(request: Request[Any, Any, Any], **replaced: str | int | None) -> str:
    """This request's path and query with ``replaced`` parameters set (None: left out)."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k not in replaced]
    kept += [(k, str(v)) for k, v in replaced.items() if v is not None]
    return f"{request.url.path}?{urlencode(kept)}"


def next_page(request: Request[Any, Any, Any], last: Key | None, **replaced: str | int | None) -> str | None:
    """The URL of the page after the row keyed ``last`` (None: this page is the last)."""
    return next_url(request, cursor=encode(last), **replaced) if last is not None else None


def link(next_page: str | None) -> dict[str, str]:
    """The ``Link`` header naming the next page, if there is one."""
    return {"Link": f'<{next_page}>; rel="next"'} if next_page is not None else {}


T = TypeVar("T")


def page(body: T, next_page: str | None) -> Response[T]:
    """A page's answer: its body (which carries ``next``) and the same link in the header."""
    return Response(body, headers=link(next_page))


def events(request: Request[Any, Any, Any], items: list[T], last: int | None) -> Response[list[T]]:
    """A page of an event list: the events (a JSON array, as before pages), and when more follow,
    the link to the events after ``last``, the page's last number as its reader numbers them."""
    return Response(items, headers=link(next_url(request, after=last) if last is not None else None))
