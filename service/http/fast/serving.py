"""uvicorn as the service runs it: a connection cap and a header timeout, which uvicorn lacks.

uvicorn bounds an idle keep-alive connection (``timeout_keep_alive``) but not one that never
finishes its request headers: a client sending half a request line keeps its connection, and a
file descriptor, for ever; ``limit_concurrency`` refuses work only once headers are complete.
``LimitedHttpToolsProtocol`` (uvicorn's httptools protocol) adds both bounds per instance:

- past ``max_connections`` open connections, a new one gets a 503 problem+json
  (``too_many_connections``, ``Retry-After``) and is closed;
- a connection that has not sent a request's complete headers ``header_timeout`` seconds after
  it opened (or after its previous response) is closed.

A request its parser cannot read (a request target with bytes outside ASCII, a literal
``cursor=…`` say) is refused as every other bad request is: ``400 invalid_request`` in
problem+json, where uvicorn would answer a plain-text 400.

It also serves SSE streams leanly (thousands stay open at once): a request's scope carries the
protocol under ``service.http.fast.sse.SERVER_KEY``, through which a stream writes its body parts with the
request's own send (no middleware wrapper on the way) and is told when its client goes (no task
per stream waiting on ``receive``). uvicorn's two ``asyncio.Event``s per connection (flow control,
the request's messages) and its queue of pipelined requests are each a ``deque`` of 600 bytes
even when empty: lists do the same work.

A response whose length is known goes out in one write, its head with its body
(``HeadWithBody``): uvicorn writes each at once, and every write to a socket is a system call
(on loopback, the reader's side of TCP runs in it too).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any, ClassVar

import msgspec
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from service.config import Settings
from service.http.fast.sse import SERVER_KEY

PROTOCOL = "service.http.fast.serving:LimitedHttpToolsProtocol"  # what uvicorn's workers import


def _refusal(status: str, code: str, detail: str, *headers: str) -> bytes:
    """A whole problem+json answer that closes its connection, written before the app is reached."""
    body = msgspec.json.encode(
        {
            "type": f"https://playlog.dev/problems/{code}",
            "title": code.replace("_", " "),
            "status": int(status.split()[0]),
            "detail": detail,
            "code": code,
        }
    )
    head = "".join(
        (
            f"HTTP/1.1 {status}\r\n",
            "content-type: application/problem+json\r\n",
            *(f"{line}\r\n" for line in headers),
            "connection: close\r\n",
            f"content-length: {len(body)}\r\n\r\n",
        )
    )
    return head.encode() + body


REFUSAL = _refusal(
    "503 Service Unavailable",
    "too_many_connections",
    "This instance holds its maximum of connections; retry shortly.",
    "retry-after: 1",
)
UNREADABLE = _refusal(
    "400 Bad Request",
    "invalid_request",
    "The request could not be parsed: its request line or headers are not valid HTTP/1.1"
    " (a request target holds only ASCII: percent-encode anything else).",
)


class ListEvent(asyncio.Event):
    """``asyncio.Event`` with its waiters in a list (one waiter at most here) instead of a deque:
    Event only appends, removes and iterates them."""

    def __init__(self) -> None:
        super().__init__()
        self._waiters = []  # type: ignore[assignment]


class HeadWithBody:
    """A request's transport, as uvicorn's request cycle sees it: the head of a response with a
    Content-Length is held until its first body part, then both go out in one write.

    Everything else is written at once: a streamed (chunked) response's head, a 100 Continue, an
    empty body's head, a HEAD request's (it gets no body part). A response the app breaks off
    after its head closes the connection, as before, with nothing of it sent.
    """

    __slots__ = ("_cycle", "_head", "_transport")

    def __init__(self, transport: asyncio.Transport, cycle: Any) -> None:
        self._transport = transport
        self._cycle = cycle
        self._head: bytes | None = None

    def write(self, data: bytes) -> None:
        head = self._head
        if head is not None:
            self._head = None
            self._transport.write(head + data)
            return
        cycle = self._cycle
        if cycle is not None and cycle.response_started:  # this is the head (a 100 Continue is not)
            self._cycle = None  # what follows is body
            if (
                cycle.chunked_encoding is False
                and cycle.expected_content_length > 0
                and cycle.scope["method"] != "HEAD"
            ):
                self._head = data
                return
        self._transport.write(data)

    def close(self) -> None:
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()


class Pipeline(list[Any]):
    """uvicorn's queue of pipelined requests (``appendleft``, ``pop``), as a list."""

    __slots__ = ()

    def appendleft(self, item: Any) -> None:
        self.insert(0, item)


@functools.cache
def _settings_from_env() -> Settings:
    return Settings.from_env()


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    settings: ClassVar[Settings | None] = None  # None: from the environment (playlog serve)
    # Slots: three more keys in uvicorn's instance dict would grow it, ~1.5 KB per connection.
    __slots__ = ("header_timeout", "header_timer", "headers_due", "lost", "max_connections")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        settings = type(self).settings or _settings_from_env()
        self.max_connections = settings.max_connections
        self.header_timeout = settings.header_timeout
        self.header_timer: asyncio.TimerHandle | None = None
        self.headers_due = False  # a request began in the data being read, its headers not all seen
        self.pipeline = Pipeline()  # type: ignore[assignment]
        self.lost: Callable[[], None] | None = None  # the open stream's, told when its client goes

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.flow._is_writable_event = writable = ListEvent()
        writable.set()
        if len(self.connections) > self.max_connections:
            transport.write(REFUSAL)
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        self.headers_due = False
        super().data_received(data)
        if self.headers_due:  # a request began in this data and its headers are not all here
            self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # The next request on a keep-alive connection: its headers are timed too, once the data
        # that began it has been read without them (most requests arrive whole: no timer then).
        self.headers_due = True

    def on_headers_complete(self) -> None:
        self.headers_due = False
        self._disarm()
        previous = self.cycle
        super().on_headers_complete()
        if self.cycle is not previous:  # a new request, whose body has not been read yet
            self.cycle.message_event = ListEvent()
            self.cycle.transport = HeadWithBody(self.transport, self.cycle)  # type: ignore[assignment]
            self.scope[SERVER_KEY] = self  # type: ignore[literal-required]

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
        if self.scope is not None:
            self.scope.pop(SERVER_KEY, None)  # type: ignore[misc]  # a reference cycle otherwise
        lost, self.lost = self.lost, None
        if lost is not None:
            lost()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request its parser refused, in problem+json (``msg`` is logged)."""
        self.transport.write(UNREADABLE)
        self.transport.close()

    # service.http.fast.sse.StreamServer
    def open_stream(self, on_lost: Callable[[], None]) -> Any:
        """The current response's own send, and ``on_lost`` called when the client goes."""
        if self.cycle.disconnected:
            on_lost()
        else:
            self.lost = on_lost
        return self.cycle.send

    def close_stream(self) -> None:
        self.lost = None

    def _arm(self) -> None:
        if self.header_timer is None and self.header_timeout > 0:
            self.header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _headers_too_slow(self) -> None:
        self.header_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def protocol_for(settings: Settings) -> type[LimitedHttpToolsProtocol]:
    """The protocol with these settings (in-process servers; workers read the environment)."""
    return type("LimitedHttpToolsProtocol", (LimitedHttpToolsProtocol,), {"settings": settings})


def uvicorn_options(settings: Settings, *, in_process: bool = False) -> dict[str, Any]:
    """The uvicorn settings that apply the limits (``uvicorn.run``/``uvicorn.Config`` keywords)."""
    return {
        "http": protocol_for(settings) if in_process else PROTOCOL,
        "timeout_keep_alive": settings.keepalive_timeout,
    }
