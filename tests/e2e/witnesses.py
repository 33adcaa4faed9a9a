"""Witnesses for the tests: the real ``playlog witness`` process on a free port, and the same
witness in this process (its ASGI app behind httpx) pushed to by the log's own pusher."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import asyncpg
import httpx

from projections.notes import Signer, Verifier
from service.transparency.push import Pusher
from service.transparency.witness import WitnessService, app
from tests.conftest import free_port

DEADLINE = 30.0


class Refused(Exception):
    def __init__(self, evidence: Path) -> None:
        super().__init__(f"the witness refused (evidence in {evidence})")
        self.evidence = evidence


class InProcessWitness:
    """A witness served by its ASGI app in this process; ``round`` is one push by the log's
    pusher over the database: ``cosigned`` or ``current``, or raises ``Refused``."""

    def __init__(self, key: Signer, state: Path, log_keys: Sequence[Verifier], database_url: str) -> None:
        self.service = WitnessService(key, state, log_keys)
        self.state = state
        self.database_url = database_url
        client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app(self.service)), base_url="http://w")
        self.pusher = Pusher(["http://w"], [key.verifier], client)

    async def round(self) -> str:
        conn = await asyncpg.connect(self.database_url)
        try:
            outcome = (await self.pusher.push(conn))["http://w"]
        finally:
            await conn.close()
        if outcome == "refused":
            raise Refused(max((self.state / "evidence").glob("*/*")))
        return outcome


@contextlib.asynccontextmanager
async def witness_process(
    key: Path, state: Path, log_keys: Sequence[Verifier], port: int | None = None
) -> AsyncIterator[str]:
    """``playlog witness`` serving add-checkpoint on ``port`` (a free one by default); yields its
    submission prefix. Its output goes to ``state/../<state name>.out``."""
    port = port or free_port()
    playlog = Path(sys.executable).parent / "playlog"
    args = [str(playlog), "witness", "--key", str(key), "--state", str(state), "--port", str(port)]
    for verifier in log_keys:
        args += ["--log-key", verifier.text]
    out = (state.parent / f"{state.name}.out").open("a")
    process = await asyncio.create_subprocess_exec(*args, stdout=out, stderr=out)
    try:
        until = time.monotonic() + DEADLINE
        while True:
            assert process.returncode is None, (state.parent / f"{state.name}.out").read_text()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            assert time.monotonic() < until, "the witness did not start"
            await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        if process.returncode is None:
            process.terminate()
            await process.wait()
        out.close()
