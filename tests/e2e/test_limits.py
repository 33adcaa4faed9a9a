"""Abuse limits: request rates, open streams, connections, header and keep-alive timeouts.

Rates are given per hour here so that no window can roll over during a test (no timing).
Connections and timeouts are the server's: a real uvicorn on loopback, driven with raw sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.http.app import create_app
from service.http.fast.serving import uvicorn_options
from service.http.limits import SWEEP_SECONDS, Windows, parse_rate
from tests.conftest import free_port, live_server

EK = {"kind": "exploding_kittens", "options": {"players": 2, "reaction_window": 0}}
NOPE = {"type": "Nope", "chain_length": 0}  # well-formed; refused by the rules (no chain is open)
BOUND = 20.0  # seconds before a test gives up waiting for the server (a failure bound, not a timing)


def _too_many(response: httpx.Response) -> None:
    assert response.status_code == 429, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "too_many_requests"
    assert int(response.headers["retry-after"]) >= 1


def test_rates_are_parsed_and_can_be_lifted() -> None:
    assert parse_rate("100/second") == ("second", 100)
    assert parse_rate("5/hour") == ("hour", 5)
    assert parse_rate("off") is None and parse_rate("0") is None
    with pytest.raises(ValueError):
        parse_rate("5/fortnight")


def test_limits_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "PLAYLOG_RATE_LIMIT_WRITES": "7/minute",
            "PLAYLOG_RATE_LIMIT_COMMANDS": "off",
            "PLAYLOG_MAX_STREAMS": "3",
            "PLAYLOG_MAX_CONNECTIONS": "9",
            "PLAYLOG_HEADER_TIMEOUT": "2.5",
            "PLAYLOG_KEEPALIVE_TIMEOUT": "4",
        }
    )
    assert (settings.rate_limit_writes, settings.rate_limit_commands) == ("7/minute", "off")
    assert (settings.max_streams, settings.max_connections) == (3, 9)
    assert (settings.header_timeout, settings.keepalive_timeout) == (2.5, 4)


def test_a_full_window_refuses_until_it_resets() -> None:
    windows = Windows(limit=2, seconds=60)
    assert windows.take("seat", now=1000) == (True, 1, 1060)
    assert windows.take("seat", now=1001) == (True, 2, 1060)
    assert windows.take("seat", now=1059) == (False, 2, 1060)
    assert windows.take("other", now=1059) == (True, 1, 1119)  # another identity, another budget
    assert windows.take("seat", now=1060) == (True, 1, 1120)  # a new window


def test_expired_rate_counters_are_swept_from_memory() -> None:
    windows = Windows(limit=5, seconds=1)
    windows.take("commands:gone", now=SWEEP_SECONDS)  # a finished game's seat
    windows.take("commands:live", now=2 * SWEEP_SECONDS)
    assert set(windows.open) == {"commands:live"}


async def test_unauthenticated_writes_are_rate_limited_per_client(settings: Settings) -> None:
    limited = dataclasses.replace(settings, rate_limit_writes="3/hour")
    async with AsyncTestClient(create_app(limited)) as http:
        created = await http.post("/games", json=EK)
        assert created.status_code == 201
        game_id = created.json()["game_id"]
        assert (await http.post(f"/games/{game_id}/seats", json={"name": "a"})).status_code == 201
        assert (await http.post("/games", json=EK)).status_code == 201
        _too_many(await http.post("/games", json=EK))
        _too_many(await http.post(f"/games/{game_id}/seats", json={"name": "b"}))
        assert (await http.get("/games")).status_code == 200  # reads are not counted
        assert (await http.get(f"/games/{game_id}")).status_code == 200


async def test_commands_are_rate_limited_per_seat_token(settings: Settings) -> None:
    limited = dataclasses.replace(settings, rate_limit_commands="2/hour")
    async with AsyncTestClient(create_app(limited)) as http:
        created = (await http.post("/games", json=EK)).json()
        game_id = created["game_id"]
        seats = [(await http.post(f"/games/{game_id}/seats", json={"name": n})).json() for n in "ab"]
        started = await http.post(f"/games/{game_id}/start", headers=_bearer(created["host_token"]))
        assert started.status_code == 200, started.text
        seat0, seat1 = (_bearer(seat["token"]) for seat in seats)
        commands = f"/games/{game_id}/seats/0/commands"
        for _ in range(2):  # refused by the rules or not, each counts
            response = await http.post(commands, json=NOPE, headers=seat0)
            assert response.status_code == 422, response.text
        _too_many(await http.post(commands, json=NOPE, headers=seat0))
        other = await http.post(f"/games/{game_id}/seats/1/commands", json=NOPE, headers=seat1)
        assert other.status_code == 422, other.text  # another seat, another budget


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def until_a_stream_opens(http: httpx.AsyncClient, path: str) -> None:
    """Opens ``path`` until it is let in (a closed stream's slot frees once the server saw it go)."""
    for _ in range(int(BOUND / 0.1)):
        async with http.stream("GET", path) as again:
            if again.status_code == 200:
                return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path}: no stream slot came free within {BOUND} s")


async def test_open_streams_are_capped_per_instance(settings: Settings) -> None:
    capped = dataclasses.replace(settings, max_streams=1)
    async with live_server(capped) as url, httpx.AsyncClient(base_url=url, timeout=BOUND) as http:
        game_id = (await http.post("/games", json={**EK, "spectator_delay": 0})).json()["game_id"]
        path = f"/games/{game_id}/spectate/stream"
        async with http.stream("GET", path) as first:
            assert first.status_code == 200
            second = await http.get(path)
            assert second.status_code == 503
            assert second.headers["content-type"].startswith("application/problem+json")
            assert second.json()["code"] == "too_many_streams"
            assert int(second.headers["retry-after"]) >= 1
        # The first stream closed: its slot is free again once the server has seen it go.
        await until_a_stream_opens(http, path)


@contextlib.asynccontextmanager
async def limited_server(settings: Settings) -> AsyncIterator[int]:
    """uvicorn with the service's protocol (connection cap, timeouts) on a loopback port."""
    async with live_server(settings, **uvicorn_options(settings, in_process=True)) as url:
        yield int(url.rsplit(":", 1)[1])


async def _closed_by_server(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection (bounded)."""
    return await asyncio.wait_for(reader.read(), BOUND)


async def test_a_connection_that_never_finishes_its_headers_is_closed(settings: Settings) -> None:
    async with limited_server(dataclasses.replace(settings, header_timeout=0.5)) as port:
        silent = await asyncio.open_connection("127.0.0.1", port)
        slow = await asyncio.open_connection("127.0.0.1", port)
        slow[1].write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        await slow[1].drain()
        assert await _closed_by_server(silent[0]) == b""
        assert await _closed_by_server(slow[0]) == b""
        for _, writer in (silent, slow):
            writer.close()


async def test_a_keep_alive_request_that_never_finishes_its_headers_is_closed(settings: Settings) -> None:
    timed = dataclasses.replace(settings, header_timeout=0.5, keepalive_timeout=60)
    async with limited_server(timed) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        # A whole request first (its headers in one read: no timer is armed for it), then half one.
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), BOUND)
        assert head.startswith(b"HTTP/1.1 200")
        length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
        await asyncio.wait_for(reader.readexactly(length), BOUND)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        await writer.drain()
        assert await _closed_by_server(reader) == b""
        writer.close()


async def test_an_idle_keep_alive_connection_is_closed(settings: Settings) -> None:
    async with limited_server(dataclasses.replace(settings, keepalive_timeout=1)) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        await writer.drain()
        answered = await _closed_by_server(reader)  # the response, then the close
        assert answered.startswith(b"HTTP/1.1 200")
        writer.close()


async def test_connections_past_the_cap_are_refused_with_503(settings: Settings) -> None:
    capped = dataclasses.replace(settings, max_connections=3, header_timeout=60)
    async with limited_server(capped) as port:
        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        refused = await _closed_by_server(reader)
        assert refused.startswith(b"HTTP/1.1 503")
        assert b"application/problem+json" in refused and b'"too_many_connections"' in refused
        assert b"retry-after: 1" in refused.lower()
        writer.close()
        for _, held_writer in held:
            held_writer.close()
        # Freed: a request gets through again.
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=BOUND) as http:
            for _ in range(int(BOUND / 0.1)):
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/healthz")).status_code == 200:
                        break
                await asyncio.sleep(0.1)
            assert (await http.get("/healthz")).status_code == 200


async def test_playlog_serve_runs_uvicorn_with_the_limits(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_")}
    env.update(
        PLAYLOG_DATABASE_URL=database_url,
        PLAYLOG_DATA_DIR=str(tmp_path),
        PLAYLOG_JWT_SECRET="test-secret-that-is-long-enough-for-hs256",
        PLAYLOG_LOG_FORMAT="json",
        PLAYLOG_MAX_CONNECTIONS="2",
        PLAYLOG_HEADER_TIMEOUT="5",
    )
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.tools.cli", "serve", "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=BOUND) as http:
            for _ in range(int(60 / 0.2)):
                assert proc.poll() is None, (tmp_path / "serve.log").read_text()
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/healthz", headers={"Connection": "close"})).status_code == 200:
                        break
                await asyncio.sleep(0.2)
        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(2)]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert (await _closed_by_server(reader)).startswith(b"HTTP/1.1 503")  # past the cap
        for held_reader, _ in held:  # never sent their headers: closed after the timeout
            assert await _closed_by_server(held_reader) == b""
        for _, held_writer in [*held, (reader, writer)]:
            held_writer.close()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
