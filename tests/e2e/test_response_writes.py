"""A response whose length is known leaves the server in one write (service/http/fast/serving.py).

A real uvicorn with the service's protocol on loopback, driven with raw sockets; the writes are
counted on the server's own transport, wrapped to record them.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, NamedTuple

from service.config import Settings
from service.http.fast.serving import protocol_for
from tests.conftest import live_server

BOUND = 20.0  # seconds before a test gives up waiting for the server (a failure bound, not a timing)
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
EK = b'{"kind": "exploding_kittens", "options": {"players": 2}, "public": true, "spectator_delay": 0}'


class RecordedTransport:
    """The server's transport, recording what is written through it."""

    def __init__(self, transport: asyncio.Transport, writes: list[bytes]) -> None:
        self._transport = transport
        self._writes = writes

    def write(self, data: bytes) -> None:
        self._writes.append(bytes(data))
        self._transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class Connected(NamedTuple):
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    writes: list[bytes]  # what the server wrote to this connection, one item per write


@contextlib.asynccontextmanager
async def recorded_server(settings: Settings) -> AsyncIterator[Connected]:
    """A served app and a connection to it, the server's writes recorded."""
    writes: list[bytes] = []
    served = protocol_for(settings)

    class Recorded(served):  # type: ignore[valid-type,misc]
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(RecordedTransport(transport, writes))  # type: ignore[arg-type]

    async with live_server(settings, http=Recorded) as url:
        reader, writer = await asyncio.open_connection("127.0.0.1", int(url.rsplit(":", 1)[1]))
        try:
            yield Connected(reader, writer, writes)
        finally:
            writer.close()


def _create_game(*headers: bytes) -> bytes:
    """``POST /games`` (a public game, no delay): its head, with ``headers`` added."""
    return (
        b"POST /games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + b"".join(h + b"\r\n" for h in headers)
        + b"Content-Length: %d\r\n\r\n" % len(EK)
    )


async def _response(reader: asyncio.StreamReader) -> bytes:
    """One response with a Content-Length, head and body."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return head + await asyncio.wait_for(reader.readexactly(length), BOUND)


async def test_a_response_of_known_length_is_one_write_head_and_body(settings: Settings) -> None:
    async with recorded_server(settings) as (reader, writer, writes):
        writer.write(HEALTHZ)
        response = await _response(reader)
        assert response.startswith(b"HTTP/1.1 200") and response.endswith(b"}")
        assert writes == [response]


async def test_pipelined_requests_get_their_responses_in_order_one_write_each(settings: Settings) -> None:
    async with recorded_server(settings) as (reader, writer, writes):
        missing = b"GET /games/00000000-0000-0000-0000-000000000000 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        writer.write(HEALTHZ + missing + HEALTHZ)
        first, second, third = [await _response(reader) for _ in range(3)]
        assert first.startswith(b"HTTP/1.1 200") and third.startswith(b"HTTP/1.1 200")
        assert second.startswith(b"HTTP/1.1 404") and b"application/problem+json" in second
        assert writes == [first, second, third]


async def test_a_body_sent_after_100_continue_gets_its_answer(settings: Settings) -> None:
    async with recorded_server(settings) as (reader, writer, writes):
        writer.write(_create_game(b"Expect: 100-continue"))
        continued = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
        assert continued == b"HTTP/1.1 100 Continue\r\n\r\n"  # written at once: the client waits for it
        writer.write(EK)
        created = await _response(reader)
        assert created.startswith(b"HTTP/1.1 201"), created
        assert writes == [continued, created]


async def test_a_streamed_response_sends_its_head_before_any_event(settings: Settings) -> None:
    async with recorded_server(settings) as (reader, writer, writes):
        writer.write(_create_game() + EK)
        created = await _response(reader)
        game_id = created.split(b'"game_id":"', 1)[1].split(b'"', 1)[0]
        writes.clear()
        writer.write(b"GET /games/%s/spectate/stream?after=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % game_id)
        # The game waits for players: no event comes, yet the head does (chunked: not held).
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
        assert head.startswith(b"HTTP/1.1 200") and b"transfer-encoding: chunked" in head.lower()
        assert writes[0] == head


async def test_a_head_request_gets_its_head_though_no_body_follows(settings: Settings) -> None:
    async with recorded_server(settings) as (reader, writer, writes):
        writer.write(b"HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + HEALTHZ)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
        assert head.startswith(b"HTTP/1.1 ") and b"content-length:" in head.lower()
        # Nothing of a body follows it: the next bytes are the next response's.
        assert (await _response(reader)).startswith(b"HTTP/1.1 200")
        assert writes[0] == head
