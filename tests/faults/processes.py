"""Real ``playlog serve`` processes and a PostgreSQL server the fault tests control."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

from projections.notes import Signer

# The log's signing key, the same for every instance a test starts, as a deployment's must be
# (docs/transparency-log.md): a receipt signed by one instance verifies with the keys of another.
LOG_KEY = Signer.generate("playlog.localhost/log").text


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve(
    data_dir: Path,
    port: int,
    log: Path,
    *,
    database_url: str | None = None,
    extra_env: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
) -> subprocess.Popen[bytes]:
    """``playlog serve`` on 127.0.0.1:``port``, its output to ``log`` (a pipe could fill up)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_")}
    env.update(PLAYLOG_DATA_DIR=str(data_dir), PLAYLOG_LOG_SIGNING_KEY=LOG_KEY, PLAYLOG_LOG_FORMAT="json")
    env.update(extra_env or {})
    if database_url:
        env["PLAYLOG_DATABASE_URL"] = database_url
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "service.tools.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            *args,
        ],
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"playlog serve exited with {proc.returncode}: {log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"playlog serve did not become ready: {log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 60) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError("playlog serve did not stop in time") from None


def postmaster_pid(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().split()[0])


def postgres_processes(pgdata: Path, postmaster: int) -> list[psutil.Process]:
    """The PostgreSQL processes of ``pgdata``: its postmaster (named with ``-D pgdata`` on its
    command line) and the postmaster's children (the backends, the checkpointer...), still running."""
    found = []
    for proc in psutil.process_iter(attrs=["name", "cmdline", "ppid", "status"]):
        if proc.info.get("name") != "postgres" or proc.info.get("status") == psutil.STATUS_ZOMBIE:
            continue  # a zombie has exited: only its parent has yet to read its status
        cmdline = " ".join(proc.info.get("cmdline") or [])
        if str(pgdata) in cmdline or proc.pid == postmaster or proc.info.get("ppid") == postmaster:
            found.append(proc)
    return found


def logged_errors(log: Path) -> list[dict[str, object]]:
    """The error lines of an instance's JSON log (an unhandled error, a loop's unexpected one)."""
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("level") in ("error", "critical")]
