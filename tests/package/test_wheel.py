"""The built wheel serves, as an operator installs it: ``pip wheel .`` (of what the image copies),
then ``playlog[embedded]`` into a fresh venv outside the repository, run from an empty directory
with no configuration.

Nothing of the source tree is on the path: the migrations, their Alembic configuration and the
documents the pages link must all come from the package.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.faults.processes import free_port, postgres_processes, postmaster_pid, stop, wait_healthy

pytestmark = [pytest.mark.package, pytest.mark.integration]

ROOT = Path(__file__).resolve().parents[2]
# What a page links or loads from this server: its pages, the walk-through, the API document,
# its scripts and styles (an anchor, a data: URL or a template's placeholder is not fetched).
LINK = re.compile(r"""(?:href|src)="(/[^"{]*)\"""")


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, (
        f"{args}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    return done.stdout


def _image_context(target: Path) -> Path:
    """What the image's build stage copies (docker/Dockerfile's COPY lines), copied to ``target``:
    the wheel is built from that alone, as the image builds it (and never from a stale build/)."""
    for line in (ROOT / "docker" / "Dockerfile").read_text().splitlines():
        if not line.startswith("COPY ") or "--from" in line:
            continue
        *sources, destination = line.split()[1:]
        for source in sources:
            into = target / destination
            path = into / Path(source).name if len(sources) > 1 or destination.endswith("/") else into
            path.parent.mkdir(parents=True, exist_ok=True)
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, path, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copyfile(ROOT / source, path)
    return target


@pytest.fixture(scope="module")
def installed() -> Iterator[tuple[Path, Path]]:
    """The wheel built from the image's context, installed with its ``embedded`` extra into a fresh venv;
    the venv's ``bin`` and an empty directory to run it from, both outside the repository."""
    work = Path(tempfile.mkdtemp(prefix="playlog-package-"))
    try:
        source = _image_context(work / "source")
        wheels = work / "wheels"
        run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", wheels, source, cwd=work)
        (wheel,) = wheels.glob("playlog-*.whl")
        run(sys.executable, "-m", "venv", work / "venv", cwd=work)
        run(work / "venv" / "bin" / "pip", "install", "-q", f"{wheel}[embedded]", cwd=work)
        (work / "empty").mkdir()
        yield work / "venv" / "bin", work / "empty"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_the_installed_wheel_serves_plays_exports_and_verifies_from_an_empty_directory(
    installed: tuple[Path, Path],
) -> None:
    bin_dir, empty = installed
    # No PLAYLOG_ setting, no PYTHONPATH; its own home, so its default data directory is its own.
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PLAYLOG_", "PYTHON", "XDG_", "VIRTUAL_ENV"))
    }
    env.update(HOME=str(empty.parent / "home"), PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}")
    pgdata = empty.parent / "home" / ".local" / "share" / "playlog" / "pgdata"
    playlog = bin_dir / "playlog"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = empty.parent / "serve.log"
    served = subprocess.Popen(
        [playlog, "serve", "--port", str(port)],
        cwd=empty,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    postmaster = 0
    try:
        wait_healthy(url, served, log)
        postmaster = postmaster_pid(pgdata)
        # The operator's commands, beside the running service on its embedded database.
        assert "database at" in run(playlog, "db", "upgrade", cwd=empty, env=env)
        assert run(playlog, "moderator-token", "--name", "ops", cwd=empty, env=env).strip()
        run(playlog, "projections", "rebuild", cwd=empty, env=env)

        run(playlog, "bots", "--url", url, "--games", "1", "--seed", "1", cwd=empty, env=env)
        games: list[dict[str, str]] = []
        for _ in range(300):  # the listing is a read model: it shows the game a moment later
            listed = httpx.get(f"{url}/games", timeout=30)
            assert listed.status_code == 200, listed.text
            if games := listed.json()["games"]:
                break
            time.sleep(0.1)
        (game,) = games
        game_id = game["game_id"]
        exported = empty / "game.jsonl"
        run(playlog, "export", game_id, "-o", exported, cwd=empty, env=env)
        run(playlog, "verify", exported, cwd=empty, env=env)

        pages = [
            "/",
            "/me",
            f"/play/{game_id}/0",
            f"/watch/{game_id}",
            f"/replay/{game_id}",
            f"/moderate/{game_id}",
            "/moderate/disputes",
            f"/moderate/disputes/{game_id}",  # a dispute's page is a shell: any id renders
        ]
        with httpx.Client(base_url=url, timeout=30) as http:
            linked: set[str] = {"/walkthrough"}
            for page in pages:
                answer = http.get(page)
                assert answer.status_code == 200, (page, answer.text[:500])
                linked.update(LINK.findall(answer.text))
            assert "/walkthrough" in LINK.findall(http.get("/").text)
            for link in sorted(linked):
                answer = http.get(link)
                assert answer.status_code == 200, (link, answer.text[:500])
            walkthrough = http.get("/walkthrough").text
            assert walkthrough == (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
        assert stop(served, signal.SIGTERM) == 0, log.read_text()[-3000:]
        assert postgres_processes(pgdata, postmaster) == []
    finally:
        if served.poll() is None:
            served.kill()
        if postmaster:  # whatever failed, no PostgreSQL of this test outlives it
            for process in postgres_processes(pgdata, postmaster):
                with contextlib.suppress(Exception):
                    process.kill()
