"""The pieces of the deployment test: compose.yaml's services run as processes on loopback (a
one-off command such as `deployment-init`, instances of `playlog serve`), the witnesses, a
transport that loses answers on purpose and checks what the resend gets, one that sends writes
to one instance and reads to the others, and where the transparency log's sequencer runs."""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from service.transparency.log import SEQUENCER_LOCK
from tests.deployment.compose import Service
from tests.faults.processes import free_port, wait_healthy

INSTANCE_HEADER = "X-Playlog-Instance"


def playlog(arguments: list[str]) -> list[str]:
    """A compose command's `playlog ...` as this checkout's."""
    assert arguments[0] == "playlog", arguments
    return [sys.executable, "-m", "service.tools.cli", *arguments[1:]]


def clean_environment(service: Service, database_url: str, data_dir: Path) -> dict[str, str]:
    """The service's environment from compose.yaml, on this machine: none of the test's own
    PLAYLOG_ settings, the test's database, the data directory given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_")}
    env.update(service.environment)
    env.update(PLAYLOG_DATABASE_URL=database_url, PLAYLOG_DATA_DIR=str(data_dir))
    return env


def run_once(service: Service, database_url: str, directory: Path) -> subprocess.CompletedProcess[str]:
    """A one-off service (`deployment-init`): its command, run to the end."""
    return subprocess.run(
        playlog(service.command),
        env=clean_environment(service, database_url, directory / "data"),
        capture_output=True,
        text=True,
        timeout=120,
    )


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
        return clean_environment(self.service, self.database_url, self.directory / "data")

    def command(self) -> list[str]:
        args = list(self.service.command[2:])  # after `playlog serve`
        for flag, value in (("--host", "127.0.0.1"), ("--port", str(self.port))):
            if flag in args:
                args[args.index(flag) + 1] = value
            else:
                args += [flag, value]
        return playlog(["playlog", "serve", *args])

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

    def lines(self, event: str) -> list[dict[str, Any]]:
        """Its log's lines (JSON, as compose.yaml sets PLAYLOG_LOG_FORMAT) of ``event``."""
        found = []
        for line in self.log.read_text(errors="replace").splitlines():
            if f'"{event}"' in line:
                with contextlib.suppress(ValueError):
                    found.append(json.loads(line))
        return [line for line in found if line.get("event") == event]


async def sequencer(database_url: str, instances: list[Instance]) -> Instance:
    """The instance that runs the transparency log's sequencer: some session holds its advisory
    lock, and of the running instances this one said `sequencer_leading` last (the database's
    sessions come over a Unix socket here: no client port tells the processes apart)."""
    conn = await asyncpg.connect(database_url)
    try:
        held = await conn.fetchval(
            "SELECT count(*) FROM pg_locks"
            " WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2",
            (SEQUENCER_LOCK >> 32) & 0xFFFF_FFFF,
            SEQUENCER_LOCK & 0xFFFF_FFFF,
        )
    finally:
        await conn.close()
    assert held == 1, "no instance holds the sequencer's lock"
    said = {
        instance.service.name: max(line["timestamp"] for line in instance.lines("sequencer_leading"))
        for instance in instances
        if instance.proc and instance.proc.poll() is None and instance.lines("sequencer_leading")
    }
    assert said, "no running instance said sequencer_leading"
    return next(i for i in instances if i.service.name == max(said, key=lambda name: said[name]))


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
        if where in self.lost and response.status_code < 500:  # a 5xx (an instance down) is sent again
            self.resent += 1
            if body != self.lost.pop(where):
                self.differing.append(where)
        elif response.status_code < 500 and self.rng.random() < self.share:
            self.lost[where] = body
            raise httpx.ReadError("the answer was lost on purpose", request=request)
        return httpx.Response(response.status_code, headers=response.headers, content=body, request=request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class WitnessProcess:
    """`playlog witness` on 127.0.0.1, its key and its state in ``directory``."""

    directory: Path
    name: str
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def state(self) -> Path:
        return self.directory / "state"

    @property
    def output(self) -> Path:
        return self.directory / "witness.log"

    def _args(self) -> list[str]:
        key = self.directory / "witness.key"
        return ["playlog", "witness", "--key", str(key), "--state", str(self.state), "--name", self.name]

    def make_key(self) -> str:
        """Its key, made once: the verifier key the log's instances are given."""
        self.directory.mkdir(parents=True, exist_ok=True)
        made = subprocess.run(
            playlog([*self._args(), "--print-key"]), capture_output=True, text=True, timeout=60
        )
        assert made.returncode == 0, made.stderr
        return made.stderr.split("witness key: ", 1)[1].split()[0]

    def start(self, log_keys: list[str]) -> None:
        args = [*self._args(), "--port", str(self.port), *(f"--log-key={key}" for key in log_keys)]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_")}
        self.proc = subprocess.Popen(
            playlog(args), env=env, stdout=self.output.open("ab"), stderr=subprocess.STDOUT
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, self.output.read_text()[-2000:]
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return
            time.sleep(0.1)
        raise AssertionError(f"the witness did not start: {self.output.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


class WritesHereReadsThere(httpx.AsyncBaseTransport):
    """Every write to one instance, every read to the next of the others in turn; counts the
    reads answered by the instance that took the write (there must be none)."""

    def __init__(self, writer: str, readers: list[str]) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.writer = httpx.URL(writer)
        self.readers = [httpx.URL(url) for url in readers]
        self.turn = 0
        self.writer_instance: str | None = None
        self.read_by_writer = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            target = self.readers[self.turn % len(self.readers)]
            self.turn += 1
        else:
            target = self.writer
        request.url = request.url.copy_with(host=target.host, port=target.port)
        response = await self.inner.handle_async_request(request)
        instance = response.headers.get(INSTANCE_HEADER)
        if request.method != "GET":
            self.writer_instance = instance
        elif instance == self.writer_instance:
            self.read_by_writer += 1
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()
