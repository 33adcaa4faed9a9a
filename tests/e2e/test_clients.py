"""Clients generated from the committed OpenAPI document: clean, strictly typed, and playing.

A Python client (openapi-python-client) and TypeScript types (openapi-typescript, for
openapi-fetch) are generated here, never committed; both must come without a generator warning
and type-check strictly, with the example bots of examples/ and their type-level checks (lines
that must not type-check: a command of the other game, options under the other kind, an error
without its code). Then each bot plays every seat of one full game of each kind against a real
server, following its seat's stream with the example's typed SSE reader; and the example spectator
follows the game's public stream from the middle (``Last-Event-ID``) to its end, each event read
into the generated ``EventOut``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.tools.client import PlaylogClient

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "openapi" / "openapi.json"
PYTHON = ROOT / "examples" / "python"
TYPESCRIPT = ROOT / "examples" / "typescript"
BIN = Path(sys.executable).parent

# Small, fast games: no reaction window; the server acts for a seat that does not answer.
GAMES = {
    "exploding_kittens": {"players": 2, "reaction_window": 0, "decision_timeout": 5},
    "a_risk_cat": {"players": 3, "decision_timeout": 5},
}
GAME_TIMEOUT = 60.0


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{output}"
    return output


@pytest.fixture(scope="module")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the generated ``playlog_client`` package."""
    out = tmp_path_factory.mktemp("python-client")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff hooks
    config = PYTHON / "openapi-python-client.yaml"
    generate = [str(BIN / "openapi-python-client"), "generate", "--path", str(DOCUMENT)]
    where = ["--meta", "none", "--output-path", str(out / "playlog_client"), "--config", str(config)]
    output = _run([*generate, *where], cwd=out, env=env)
    assert "warning" not in output.lower(), output
    return out


@pytest.fixture(scope="module")
def typescript_build() -> Iterator[Path]:
    """examples/typescript with its types generated and everything compiled into build/."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("npm and node are needed for the TypeScript client (CI has them)")
    if not (TYPESCRIPT / "node_modules").is_dir():
        _run([npm, "ci", "--no-audit", "--no-fund"], cwd=TYPESCRIPT)
    output = _run([npm, "run", "--silent", "generate"], cwd=TYPESCRIPT)
    assert "warn" not in output.lower() and "error" not in output.lower(), output
    _run([npm, "run", "--silent", "check"], cwd=TYPESCRIPT)  # tsc --strict, type_checks.ts too
    yield TYPESCRIPT / "build"


def test_the_generated_python_client_type_checks_strictly(python_client: Path) -> None:
    # examples/python/mypy.ini: strict, bar two generator-template quirks it names.
    mypy = [str(BIN / "mypy"), "--config-file", str(PYTHON / "mypy.ini"), "--cache-dir", "/dev/null"]
    files = [
        "playlog_client",
        *(str(PYTHON / name) for name in ("bot.py", "sse.py", "spectate.py", "type_checks.py")),
    ]
    _run([*mypy, *files], cwd=python_client, env={**os.environ, "MYPYPATH": str(python_client)})


def test_the_generated_typescript_types_type_check_strictly(typescript_build: Path) -> None:
    assert (typescript_build / "bot.js").is_file()
    assert (typescript_build / "type_checks.js").is_file()
    assert (typescript_build / "spectate.js").is_file()


async def _spectate(server_url: str, game_id: str, spectate: list[str], env: dict[str, str] | None) -> None:
    """The public stream of a finished game, resumed after its second event: every later event,
    in order, each typed, and the reader stops at the last one."""
    async with PlaylogClient(server_url) as api:
        snapshot = await api.http.get(f"/games/{game_id}/spectate")
    last = snapshot.json()["version"]
    process = await asyncio.create_subprocess_exec(
        *spectate,
        server_url,
        game_id,
        "--last-event-id",
        "2",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT)
    assert process.returncode == 0, output.decode()
    lines = [line.split() for line in output.decode().splitlines()]
    assert [int(seq) for seq, *_ in lines] == list(range(3, last + 1)), output.decode()
    # Each line: the seq, the event's type, and the generated model its data was read into.
    assert all(len(typed) == 2 and typed[1] != "dict" for _, *typed in lines), output.decode()


async def _play(
    server_url: str, kind: str, bot: list[str], env: dict[str, str] | None, spectate: list[str]
) -> list[str]:
    """One game of ``kind`` with one bot process per seat; it must end, each bot seeing it end;
    then a spectator follows it from its third event. Returns what each bot printed."""
    async with PlaylogClient(server_url) as api:
        created = await api.create_game(kind, GAMES[kind], spectator_delay=0)
        seats = [await api.join(created.game_id, f"bot-{n}") for n in range(created.seats)]
        await api.start(created.game_id, created.host_token)
        processes = [
            await asyncio.create_subprocess_exec(
                *bot,
                server_url,
                str(created.game_id),
                str(seat.seat),
                seat.token,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            for seat in seats
        ]
        try:
            outputs = await asyncio.wait_for(
                asyncio.gather(*(p.communicate() for p in processes)), GAME_TIMEOUT
            )
        except TimeoutError:
            for process in processes:
                process.kill()
            logs = [(await p.communicate())[0].decode() for p in processes]
            pytest.fail(f"the {kind} game did not end: {logs}")
        for process, (output, _) in zip(processes, outputs, strict=True):
            assert process.returncode == 0, output.decode()
            assert b"game over" in output, output.decode()
        summary = await api.game(created.game_id)
        assert summary.status == "finished" and summary.winners
    await _spectate(server_url, str(created.game_id), spectate, env)
    return [output.decode() for output, _ in outputs]


@pytest.mark.parametrize("kind", sorted(GAMES))
async def test_the_python_example_bot_plays_a_whole_game(
    server_url: str, python_client: Path, kind: str
) -> None:
    env = {**os.environ, "PYTHONPATH": str(python_client)}
    python = [sys.executable]
    await _play(
        server_url, kind, [*python, str(PYTHON / "bot.py")], env, [*python, str(PYTHON / "spectate.py")]
    )


@pytest.mark.parametrize("kind", sorted(GAMES))
async def test_the_typescript_example_bot_plays_a_whole_game(
    server_url: str, typescript_build: Path, kind: str
) -> None:
    node = shutil.which("node")
    assert node is not None
    build = [node, str(typescript_build / "bot.js")], [node, str(typescript_build / "spectate.js")]
    printed = await _play(server_url, kind, build[0], None, build[1])
    # Each bot checked the signed receipt of every command it sent (receipts.ts) and kept it.
    kept = [int(m.group(1)) for out in printed if (m := re.search(r"(\d+) receipts", out))]
    assert len(kept) == len(printed) and sum(kept) > 0, printed


def test_the_game_kinds_are_the_registry_s() -> None:
    """The example games cover every kind the document names (a new game gets a bot game too)."""
    document = json.loads(DOCUMENT.read_text())
    assert document["components"]["schemas"]["GameKind"]["enum"] == sorted(GAMES)
