"""Following a paged list to its end as a client does (docs/api.md, "Pages"): every `next`, with
the same URL in the answer's Link header, and something done between pages."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

Items = list[dict[str, Any]]


def link_of(headers: Any) -> str | None:
    """The URL of a Link header's rel="next" (RFC 8288), if any."""
    value: str | None = headers.get("link")
    if value is None:
        return None
    target, _, rel = value.partition(";")
    assert rel.strip() == 'rel="next"', value
    return target.strip().removeprefix("<").removesuffix(">")


async def follow(
    http: AsyncTestClient[Litestar],
    url: str,
    items: Callable[[Any], Items],
    *,
    headers: dict[str, str] | None = None,
    between: Callable[[], Awaitable[None]] | None = None,
) -> list[Items]:
    """Every page from ``url`` on, following `next` (the body's, or the Link header's for a list
    whose body is the items), running ``between`` after each page."""
    pages: list[Items] = []
    next_url: str | None = url
    while next_url is not None:
        response = await http.get(next_url, headers=headers)
        assert response.status_code == 200, response.text
        body = response.json()
        pages.append(items(body))
        linked = link_of(response.headers)
        if isinstance(body, dict):
            assert body["next"] == linked, (body["next"], linked)
        next_url = linked
        if between is not None:
            await between()
        assert len(pages) < 1000, "a list that never ends"
    return pages


async def refused(http: AsyncTestClient[Litestar], url: str, code: str, **kw: Any) -> None:
    response = await http.get(url, **kw)
    assert response.status_code == 400, (url, response.text)
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == code, response.json()
