"""How the Python client reaches the service: several instances in turn, and retries of what may
be sent again (service/tools/client.py says which requests those are)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import httpx

RETRIED_STATUSES = frozenset({500, 502, 503, 504})
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout)  # the server never saw the request


class RoundRobin(httpx.AsyncBaseTransport):
    """Sends each request to the next of several instances of the service (one database)."""

    def __init__(self, urls: Sequence[str], **kwargs: Any) -> None:
        self._targets = [httpx.URL(url) for url in urls]
        self._inner = httpx.AsyncHTTPTransport(**kwargs)
        self._next = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        target = self._targets[self._next % len(self._targets)]
        self._next += 1
        request.url = request.url.copy_with(scheme=target.scheme, host=target.host, port=target.port)
        request.headers["Host"] = target.netloc.decode()
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


class Retrying:
    """Sends a request, and again on a transport error or a 5xx while ``max_retries`` allow, with a
    growing pause (the server's ``Retry-After`` when it gives one). A request that is not
    ``repeatable`` is sent again only when it surely did nothing: never sent, or answered 503."""

    def __init__(self, max_retries: int, first_pause: float, max_pause: float) -> None:
        self.max_retries = max_retries
        self.first_pause = first_pause
        self.max_pause = max_pause
        self.sent_again = 0

    async def send(
        self, http: httpx.AsyncClient, method: str, path: str, repeatable: bool, **request: Any
    ) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = await http.request(method, path, **request)
            except httpx.TransportError as exc:
                if attempt >= self.max_retries or not (repeatable or isinstance(exc, _NOT_SENT)):
                    raise
                await self._pause(attempt, None)
            else:
                status = response.status_code
                if (
                    attempt >= self.max_retries
                    or status not in RETRIED_STATUSES
                    or not (repeatable or status == 503)
                ):
                    return response
                await self._pause(attempt, response.headers.get("Retry-After"))
            attempt += 1
            self.sent_again += 1

    async def _pause(self, attempt: int, retry_after: str | None) -> None:
        pause = min(self.first_pause * 2**attempt, self.max_pause)
        if retry_after is not None and retry_after.isdigit():
            pause = min(float(retry_after), self.max_pause)
        await asyncio.sleep(pause)
