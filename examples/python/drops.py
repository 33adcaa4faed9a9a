"""Lost answers, on purpose: an httpx transport that drops some answers after the server acted.

A real network loses answers: the request reached the server and was applied, the answer never
came back. ``DroppingTransport`` does that to a share of the requests that are safe to send again
(reads, and writes carrying an ``Idempotency-Key``): it lets the request through, reads the answer
and throws it away, raising the error a lost connection raises. ``retried`` sends the very same
request again (same key, same body, same headers) until an answer arrives: playlog answers a key
it has seen with the first answer, so a lost answer is never an action taken twice.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from typing import TypeVar

import httpx

T = TypeVar("T")

# How many times one request is sent before the bot gives up (0.25 ** 12: never, in practice).
ATTEMPTS = 12


class _Cut(httpx.SyncByteStream):
    """A stream whose connection is lost after ``after`` chunks."""

    def __init__(self, inner: httpx.SyncByteStream, after: int) -> None:
        self.inner = inner
        self.after = after

    def __iter__(self) -> Iterator[bytes]:
        for n, chunk in enumerate(self.inner):
            if n == self.after:
                print("stream cut", file=sys.stderr, flush=True)
                raise httpx.ReadError("the stream was cut (on purpose)")
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DroppingTransport(httpx.HTTPTransport):
    """Drops ``rate`` of the answers to requests that are safe to resend, and cuts ``rate`` of the
    streams after a few chunks (the reader resumes them with ``Last-Event-ID``)."""

    def __init__(self, rate: float, rng: random.Random) -> None:
        super().__init__()
        self.rate = rate
        self.rng = rng

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.url.path.endswith("/stream"):
            if self.rng.random() >= self.rate or not isinstance(response.stream, httpx.SyncByteStream):
                return response
            cut = _Cut(response.stream, self.rng.randint(1, 20))
            return httpx.Response(
                response.status_code, headers=response.headers, stream=cut, extensions=response.extensions
            )
        safe = request.method == "GET" or "Idempotency-Key" in request.headers
        if safe and self.rng.random() < self.rate:
            response.read()  # the server has answered: it acted
            response.close()
            print(f"dropped {request.method} {request.url.path}", file=sys.stderr, flush=True)
            raise httpx.ReadError("the answer was lost (dropped on purpose)", request=request)
        return response


def dropping(rate: float, rng: random.Random) -> dict[str, object]:
    """A generated client's ``httpx_args``: its requests through a ``DroppingTransport`` of its own
    (a client closes its transport)."""
    return {"transport": DroppingTransport(rate, rng)}


def retried(call: Callable[[], T], what: str) -> T:
    """``call()``, sent again while its answer is lost. ``call`` must send the same request each
    time: build its key and body once, outside it."""
    for attempt in range(ATTEMPTS):
        try:
            return call()
        except httpx.TransportError:
            print(f"retry {what} ({attempt + 1})", file=sys.stderr, flush=True)
    raise SystemExit(f"{what}: no answer after {ATTEMPTS} attempts")
