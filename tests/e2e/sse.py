"""A small Server-Sent Events reader for tests: each message's data is held to the document's EventOut."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any

import httpx

from tests.e2e.contract import component_errors


@dataclass
class Message:
    id: int
    event: str
    data: dict[str, Any]


async def read_events(
    client: httpx.AsyncClient,
    path: str,
    *,
    until: int | None = None,
    count: int | None = None,
    timeout: float = 20.0,
    headers: dict[str, str] | None = None,
) -> list[Message]:
    """Messages from an SSE endpoint until seq ``until`` or ``count`` messages or the timeout."""
    received: list[Message] = []

    async def consume() -> None:
        async with client.stream("GET", path, headers=headers, timeout=None) as response:
            assert response.status_code == 200, await response.aread()
            fields: dict[str, str] = {}
            async for line in response.aiter_lines():
                if line == "":
                    if "data" in fields and "id" in fields:
                        data = json.loads(fields["data"])
                        assert component_errors("EventOut", data) == [], data  # the document's
                        message = Message(int(fields["id"]), fields.get("event", ""), data)
                        received.append(message)
                        if (until is not None and message.id >= until) or (
                            count is not None and len(received) >= count
                        ):
                            return
                    fields = {}
                elif not line.startswith(":"):
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(consume(), timeout)
    return received
