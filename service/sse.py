"""The response of a Server-Sent Event stream, lean enough for ten thousand open at once.

Litestar's ``ServerSentEvent`` is kept as the declared type (same headers, same OpenAPI
document); only its ASGI side differs. Litestar's wraps the stream in an iterator whose first
step hops to a worker thread and keeps, for the stream's life, the exception that ends the hop
(traceback and frames); its streaming response then runs an anyio task group per stream (a
second task, two cancel scopes, task states) to notice the client leaving. Here the stream's
chunks (already encoded SSE bytes) are sent from the request's own task, and one small task
waits for the disconnect and cancels it. The stream's generator is closed, and ``on_close``
called once, however it ends, even if the response is dropped unsent.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncGenerator, Callable, Iterable
from typing import TYPE_CHECKING, Any

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


class EventStreamBody(ASGIResponse):
    __slots__ = ("chunks", "on_close")

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

    def _closed(self) -> None:
        on_close, self.on_close = self.on_close, None
        if on_close is not None:
            on_close()

    def __del__(self) -> None:  # never called (an error before the response was sent)
        self._closed()

    async def send_body(self, send: Send, receive: Receive) -> None:
        await send_until_gone(self.chunks, send, receive)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.start_response(send=send)
            self.headers.headers.clear()  # sent: not kept for the stream's life
            if self.is_head_response:
                await send(_END)  # type: ignore[arg-type]
            else:
                await self.send_body(send=send, receive=receive)
        finally:
            await self.chunks.aclose()
            self._closed()
        await self.after_response()


async def send_until_gone(chunks: AsyncGenerator[bytes, None], send: Send, receive: Receive) -> None:
    """Send every chunk as a body part, then the end of the body; stop (without an error) when
    the client disconnects, and close ``chunks`` either way."""
    task = asyncio.current_task()
    assert task is not None
    watcher = asyncio.get_running_loop().create_task(_cancel_on_disconnect(receive, task))
    try:
        try:
            async for chunk in chunks:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                del chunk  # not kept while the stream waits for the next
            await send(_END)  # type: ignore[arg-type]
        finally:
            watcher.cancel()
            await chunks.aclose()
    except asyncio.CancelledError:
        # Ours (the client left): the response simply ends. Anyone else's: it goes on.
        ours = watcher.done() and not watcher.cancelled() and watcher.exception() is None
        if not ours or task.uncancel() > 0:
            raise


async def _cancel_on_disconnect(receive: Receive, task: asyncio.Task[Any]) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    task.cancel()
