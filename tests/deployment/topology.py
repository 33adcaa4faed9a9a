"""The pieces of the deployment test: instances started from compose.yaml's environment, a
transport that loses answers on purpose and checks what the resend gets, and where the
transparency log's sequencer runs."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import psutil

from service.transparency.log import SEQUENCER_LOCK
from tests.deployment.compose import Service
from tests.faults.processes import free_port, wait_healthy

INSTANCE_HEADER = "X-Playlog-Instance"


@dataclass
class Instance:
    """One compose service as a `playlog serve` process on 127.0.0.1, its own data directory."""

    service: Service
    directory: Path
    database_url: str
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.directory / "serve.log"

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_")}
        env.update(self.service.environment)
        env.update(PLAYLOG_DATABASE_URL=self.database_url, PLAYLOG_DATA_DIR=str(self.directory / "data"))
        return env

    def command(self) -> list[str]:
        args = list(self.service.command[2:])  # after `playlog serve`
        for flag, value in (("--host", "127.0.0.1"), ("--port", str(self.port))):
            if flag in args:
                args[args.index(flag) + 1] = value
            else:
                args += [flag, value]
        return [sys.executable, "-m", "service.tools.cli", "serve", *args]

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            self.command(), env=self.environment(), stdout=self.log.open("ab"), stderr=subprocess.STDOUT
        )

    def wait_ready(self) -> None:
        assert self.proc is not None
        wait_healthy(self.url, self.proc, self.log)

    def kill(self) -> None:
        """``kill -9``: no shutdown of any kind."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def database_ports(self) -> set[int]:
        """The local ports of this process's connections to the database."""
        assert self.proc is not None
        return {c.laddr.port for c in psutil.Process(self.proc.pid).net_connections("tcp") if c.raddr}


async def sequencer(database_url: str, instances: list[Instance]) -> Instance:
    """The instance whose session holds the sequencer's advisory lock."""
    conn = await asyncpg.connect(database_url)
    try:
        port = await conn.fetchval(
            "SELECT a.client_port FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2",
            (SEQUENCER_LOCK >> 32) & 0xFFFF_FFFF,
            SEQUENCER_LOCK & 0xFFFF_FFFF,
        )
    finally:
        await conn.close()
    assert port is not None, "no instance holds the sequencer's lock"
    return next(i for i in instances if i.proc and i.proc.poll() is None and port in i.database_ports())


class LosingAnswers(httpx.AsyncBaseTransport):
    """Loses a share of the answers to keyed writes (the request reached the service; the answer
    is thrown away), keeps each lost answer, and checks that the resend with the same
    `Idempotency-Key` gets the same bytes."""

    def __init__(self, inner: httpx.AsyncBaseTransport, share: float, seed: int) -> None:
        self.inner = inner
        self.share = share
        self.rng = random.Random(seed)
        self.lost: dict[tuple[str, str], bytes] = {}
        self.resent = 0
        self.differing: list[tuple[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key = request.headers.get("Idempotency-Key")
        response = await self.inner.handle_async_request(request)
        if key is None or request.method != "POST":
            return response
        body = await response.aread()
        where = (request.url.path, key)
        if where in self.lost:
            self.resent += 1
            if body != self.lost.pop(where):
                self.differing.append(where)
        elif response.status_code < 500 and self.rng.random() < self.share:
            self.lost[where] = body
            raise httpx.ReadError("the answer was lost on purpose", request=request)
        return httpx.Response(response.status_code, headers=response.headers, content=body, request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()
