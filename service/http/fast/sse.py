"""The response of a Server-Sent Event stream, lean enough for ten thousand open at once.

Litestar's ``ServerSentEvent`` is kept as the declared type (same headers, same OpenAPI
document); only its ASGI side differs. Litestar's wraps the stream in an iterator whose first
step hops to a worker thread and keeps, for the stream's life, the exception that ends the hop
(traceback and frames); its streaming response then runs an anyio task group per stream (a
second task, two cancel scopes, task states) to notice the client leaving. Here the stream's
chunks (already encoded SSE bytes) are sent from the request's own task. Under our server
(service/http/fast/serving.py) they go straight to the connection, and the server cancels the stream when
its client goes; under any other, through the middlewares, with one small task waiting for the
disconnect. The stream's generator is closed, and ``on_close``
called once, however it ends, even if the response is dropped unsent.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from litestar.response import ServerSentEvent
from litestar.response.base import ASGIResponse
from litestar.response.streaming import Stream
from litestar.types import Receive, Scope, Send

if TYPE_CHECKING:
    from litestar.app import Litestar
    from litestar.background_tasks import BackgroundTask, BackgroundTasks
    from litestar.connection import Request
    from litestar.datastructures.cookie import Cookie
    from litestar.enums import MediaType
    from litestar.types import TypeEncodersMap

_END = {"type": "http.response.body", "body": b"", "more_body": False}


class EventStream(ServerSentEvent):
    """An SSE response whose content is an async generator of encoded SSE messages (bytes)."""

    __slots__ = ("on_close",)

    def __init__(
        self, chunks: AsyncGenerator[bytes, None], *, on_close: Callable[[], None] | None = None
    ) -> None:
        # Stream's, not ServerSentEvent's, constructor: that one builds the thread-hopping wrapper.
        Stream.__init__(self, content=chunks, media_type="text/event-stream")
        self.on_close = on_close
        self.headers.setdefault("Cache-Control", "no-cache")
        self.headers["Connection"] = "keep-alive"
        self.headers["X-Accel-Buffering"] = "no"

    def to_asgi_response(
        self,
        app: Litestar | None,
        request: Request[Any, Any, Any],
        *,
        background: BackgroundTask | BackgroundTasks | None = None,
        cookies: Iterable[Cookie] | None = None,
        encoded_headers: Iterable[tuple[bytes, bytes]] | None = None,
        headers: dict[str, str] | None = None,
        is_head_response: bool = False,
        media_type: MediaType | str | None = None,
        status_code: int | None = None,
        type_encoders: TypeEncodersMap | None = None,
    ) -> ASGIResponse:
        on_close, self.on_close = self.on_close, None  # the body's to call from now on
        return EventStreamBody(
            chunks=self.iterator,  # type: ignore[arg-type]
            on_close=on_close,
            background=self.background or background,
            cookies=self.cookies if cookies is None else itertools.chain(self.cookies, cookies),
            headers={**headers, **self.headers} if headers is not None else self.headers,
            is_head_response=is_head_response,
            media_type="text/event-stream",
            status_code=self.status_code or status_code,
        )

    def __del__(self) -> None:  # dropped before Litestar made it a body (an error on the way)
        if self.on_close is not None:
            self.on_close()


class StreamServer(Protocol):
    """What the server (service/http/fast/serving.py) offers a stream, under ``SERVER_KEY`` in the scope."""

    def open_stream(self, on_lost: Callable[[], None]) -> Send:
        """The response's own send, and ``on_lost`` called when the client goes (now if gone)."""

    def close_stream(self) -> None: ...


SERVER_KEY = "playlog.stream_server"


class EventStreamBody(ASGIResponse):
    __slots__ = ("chunks", "gone", "on_close", "task")

    _should_set_content_length = False

    def __init__(
        self,
        *,
        chunks: AsyncGenerator[bytes, None],
        on_close: Callable[[], None] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.chunks = chunks
        self.on_close = on_close
        self.gone = False
        self.task: asyncio.Task[Any] | None = None

    def _closed(self) -> None:
        on_close, self.on_close = self.on_close, None
        if on_close is not None:
            on_close()

    def __del__(self) -> None:  # never called (an error before the response was sent)
        self._closed()

    def _lost(self) -> None:
        self.gone = True
        if self.task is not None:
            self.task.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.task = task = asyncio.current_task()
        assert task is not None
        server: StreamServer | None = scope.get(SERVER_KEY)  # type: ignore[assignment]
        try:
            try:
                await self.start_response(send=send)
                self.headers.headers.clear()  # sent: not kept for the stream's life
                if not self.is_head_response:
                    if server is not None:
                        await self._send_direct(server)
                    else:
                        await self._send_watching(send, receive)
                if not self.gone:  # through the middlewares: they time the response to its end
                    await send(_END)  # type: ignore[arg-type]
            finally:
                self.task = None  # from now on, the client leaving cancels nothing
                await self.chunks.aclose()
                self._closed()
        except asyncio.CancelledError:
            # Ours (the client left): the response simply ends. Anyone else's: it goes on.
            if not self.gone or task.uncancel() > 0:
                raise
        await self.after_response()

    async def _send_direct(self, server: StreamServer) -> None:
        """Body parts straight to the connection: the middlewares' send wrappers act on the
        response's start and end only, and would cost a call each per part and stream. The
        server calls ``_lost`` when the client goes: no task waits for it."""
        send = server.open_stream(self._lost)
        try:
            async for chunk in self.chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                del chunk  # not kept while the stream waits for the next
        finally:
            server.close_stream()

    async def _send_watching(self, send: Send, receive: Receive) -> None:
        """Any other server: through the middlewares, with a small task waiting for the
        disconnect (``receive``)."""
        watcher = asyncio.get_running_loop().create_task(self._watch(receive))
        try:
            async for chunk in self.chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                del chunk
        finally:
            watcher.cancel()

    async def _watch(self, receive: Receive) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        self._lost()
