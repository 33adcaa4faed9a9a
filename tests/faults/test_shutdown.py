"""``playlog serve`` shuts down cleanly on SIGTERM (systemd, Docker, Kubernetes) as on SIGINT."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import httpx
import pytest

from tests.faults.processes import free_port, postgres_processes, postmaster_pid, serve, stop, wait_healthy


def _public_game(url: str) -> str:
    created = httpx.post(
        f"{url}/games",
        json={"kind": "exploding_kittens", "options": {"players": 2}, "public": True, "spectator_delay": 0},
    )
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game_id"]
    return game_id


@pytest.mark.parametrize(
    ("sig", "workers"),
    [(signal.SIGTERM, 1), (signal.SIGINT, 1), (signal.SIGTERM, 2)],
    ids=["SIGTERM", "SIGINT", "SIGTERM-2-workers"],
)
def test_a_signal_ends_streams_with_a_comment_and_stops_the_embedded_postgresql(
    workdir: Path, sig: signal.Signals, workers: int
) -> None:
    data_dir, log, port = workdir / "data", workdir / "serve.log", free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve(data_dir, port, log, args=("--workers", str(workers)))
    try:
        wait_healthy(url, proc, log)
        pgdata = data_dir / "pgdata"
        postmaster = postmaster_pid(pgdata)
        assert postgres_processes(pgdata, postmaster)
        game_id = _public_game(url)
        received: list[str] = []
        opened = threading.Event()

        def watch() -> None:
            with httpx.stream("GET", f"{url}/games/{game_id}/spectate/stream", timeout=60) as response:
                opened.set()
                for line in response.iter_lines():
                    received.append(line)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        assert opened.wait(30)
        code = stop(proc, sig)
        watcher.join(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not watcher.is_alive()
    assert code == 0, log.read_text()[-3000:]
    assert any("server shutting down" in line for line in received), received
    assert postgres_processes(pgdata, postmaster) == []
    assert not (pgdata / "postmaster.pid").exists()


def test_after_a_kill_the_next_run_s_sigterm_still_stops_the_embedded_postgresql(workdir: Path) -> None:
    """``kill -9`` leaves the embedded PostgreSQL running (nothing of the process runs any more);
    the next run takes it over, and its SIGTERM stops it as if it had started it."""
    data_dir, log = workdir / "data", workdir / "serve.log"
    pgdata = data_dir / "pgdata"
    port = free_port()
    killed = serve(data_dir, port, log)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", killed, log)
    finally:
        killed.kill()
        killed.wait()
    postmaster = postmaster_pid(pgdata)
    try:
        assert postgres_processes(pgdata, postmaster), "the kill stopped PostgreSQL: nothing to take over"
        port = free_port()
        proc = serve(data_dir, port, log)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, proc, log)
            _public_game(url)  # it serves on the server it took over
            code = stop(proc, signal.SIGTERM)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert code == 0, log.read_text()[-3000:]
        assert postgres_processes(pgdata, postmaster) == []
        assert not (pgdata / "postmaster.pid").exists()
    finally:  # whatever failed, no PostgreSQL of this test outlives it
        for process in postgres_processes(pgdata, postmaster):
            process.kill()
