"""Streams under the service's own protocol (service/http/fast/serving.py), which writes their body parts
straight to the connection and tells them when their client goes (service/http/fast/sse.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import httpx

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.e2e.conftest import started_game
from tests.e2e.sse import read_events
from tests.e2e.test_limits import BOUND, limited_server, until_a_stream_opens
from tests.e2e.test_streams import _play_some


async def test_a_stream_gets_the_headers_of_every_response_and_what_is_played(settings: Settings) -> None:
    async with limited_server(settings) as port:
        url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=url, timeout=BOUND) as http:
            game = await started_game(PlaylogClient(url, http=http), seed=3, reaction_window=0)
            path = f"/games/{game.id}/spectate/stream"
            async with http.stream("GET", path) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].startswith("text/event-stream")
                assert response.headers["cache-control"] == "no-cache"
                assert response.headers["x-playlog-instance"]
                assert response.headers["x-content-type-options"] == "nosniff"
            version = (await game.view(0)).version
            reader = asyncio.create_task(read_events(http, path, until=version + 1, timeout=BOUND))
            await asyncio.sleep(0.3)
            await _play_some(game, 3, random.Random(4))
            messages = await reader
            assert [m.id for m in messages] == list(range(1, messages[-1].id + 1))
            assert messages[-1].id >= version + 1


async def test_a_stream_whose_client_left_gives_its_slot_back(settings: Settings) -> None:
    async with limited_server(dataclasses.replace(settings, max_streams=1)) as port:
        url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=url, timeout=BOUND) as http:
            game = await started_game(PlaylogClient(url, http=http), seed=3, reaction_window=0)
            path = f"/games/{game.id}/spectate/stream"
            async with http.stream("GET", path) as first:
                assert first.status_code == 200
                body = first.aiter_bytes()  # kept: a dropped iterator closes the response
                await body.__anext__()  # the stream is under way
                assert (await http.get(path)).status_code == 503
            # The client closed the first: its slot is free again once the server has seen it go.
            await until_a_stream_opens(http, path)
