"""Clients generated from the committed OpenAPI document: clean, strictly typed, and playing.

A Python client (openapi-python-client) and TypeScript types (openapi-typescript, for
openapi-fetch) are generated here, never committed; both must come without a generator warning
and type-check strictly (nothing switched off), with the examples of examples/ and their
type-level checks (lines that must not type-check: a command of the other game, options under
the other kind, an error without its code). Then, for one game of each kind in each language,
the example lobby creates the game, joins every seat and starts it, one example bot per seat
plays it to its end following its seat's stream, and the example spectator follows the game's
public stream from the middle (``Last-Event-ID``), each event read into the generated
``EventOut``, and the example export reads the finished game's lines into their generated
types; all of them through transports that lose a quarter of the answers after the server
acted (and cut streams), so that every write is sent again with its key. The server's log is then
held to the bots' own decisions: no action taken twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain import registry
from service.tools.client import PlaylogClient

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "openapi" / "openapi.json"
PYTHON = ROOT / "examples" / "python"
TYPESCRIPT = ROOT / "examples" / "typescript"
BIN = Path(sys.executable).parent

# Small, fast games of every registered kind: its fewest players and its quick options (``About``);
# the server acts for a seat that does not answer.
QUICK = {kind: game.about.quick_options if game.about else {} for kind, game in registry.games().items()}
GAMES = {
    kind: {"players": game.seats.min, **QUICK[kind], "decision_timeout": 5}
    for kind, game in registry.games().items()
}
GAME_TIMEOUT = 180.0  # a guard against a hang (a busy machine plays slowly), not a speed check
# The share of answers the examples' transports lose on purpose (examples/python/drops.py).
DROP = 0.25


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
    # client.py's context managers typed (examples/python/templates says why)
    where += ["--custom-template-path", str(PYTHON / "templates")]
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
    # examples/python/mypy.ini: strict, nothing switched off.
    mypy = [str(BIN / "mypy"), "--config-file", str(PYTHON / "mypy.ini"), "--cache-dir", "/dev/null"]
    files = [
        "playlog_client",
        *(
            str(PYTHON / name)
            for name in (
                "lobby.py",
                "bot.py",
                "drops.py",
                "sse.py",
                "spectate.py",
                "export.py",
                "type_checks.py",
            )
        ),
    ]
    _run([*mypy, *files], cwd=python_client, env={**os.environ, "MYPYPATH": str(python_client)})


def test_the_generated_typescript_types_type_check_strictly(typescript_build: Path) -> None:
    assert (typescript_build / "bot.js").is_file()
    assert (typescript_build / "type_checks.js").is_file()
    assert (typescript_build / "spectate.js").is_file()
    assert (typescript_build / "export.js").is_file()


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
        "--drop",
        str(DROP),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT)
    assert process.returncode == 0, output.decode()
    # (the lines a lost answer or a cut stream adds, drops.py's, are not events)
    lines = [line.split() for line in output.decode().splitlines() if line[:1].isdigit()]
    assert [int(seq) for seq, *_ in lines] == list(range(3, last + 1)), output.decode()
    # Each line: the seq, the event's type, and the generated model its data was read into.
    assert all(len(typed) == 2 and typed[1] != "dict" for _, *typed in lines), output.decode()


def _decisions(outputs: list[str]) -> tuple[list[str], list[str], int]:
    """From the bots' own words: each command they decided (its key), those the server applied,
    and how many answers were lost and asked for again."""
    lines = [line.split() for output in outputs for line in output.splitlines()]
    decided = [words[1] for words in lines if words[:1] == ["decided"]]
    applied = [words[1] for words in lines if words[:1] == ["applied"]]
    retries = sum(1 for words in lines if words[:1] == ["retry"])
    return decided, applied, retries


async def _no_double_action(server_url: str, game_id: str, outputs: list[str]) -> None:
    """The server's log against the bots' decisions: one lobby (one game, a join per seat, one
    start) and, for each command the server applied, the one decision it came from, once; every
    decision at most once; and answers were lost (the retries were exercised)."""
    async with PlaylogClient(server_url) as api:
        log = (await api.http.get(f"/games/{game_id}/audit/log")).json()
    types = [event["type"] for event in log]
    seats = types.count("lobby.joined")
    assert (types.count("lobby.created"), types.count("lobby.started")) == (1, 1), types
    # Each seat's commands, by the key it sent (command_id "seat:N:KEY"), in the order appended.
    appends: list[str] = []
    for event in log:
        command_id = event["metadata"].get("command_id") or ""
        caller, _, key = command_id.rpartition(":")
        if caller.startswith("seat:") and (not appends or appends[-1] != key):
            appends.append(key)
    decided, applied, retries = _decisions(outputs)
    assert len(decided) == len(set(decided)), "a decision was sent under two keys"
    assert sorted(appends) == sorted(set(appends)), "one key appended twice"
    assert applied and set(appends) == set(applied), "the log's commands are not those the bots saw applied"
    assert seats == len(outputs)
    assert retries > 0, "no answer was lost: the retries were not exercised"


async def _export(
    server_url: str, game_id: str, token: str, export: list[str], env: dict[str, str] | None
) -> None:
    """The finished game's export, each line read into its generated type: the header first,
    then as many events as it announces."""
    process = await asyncio.create_subprocess_exec(
        *export, server_url, game_id, token, "--drop", str(DROP), env=env, stdout=asyncio.subprocess.PIPE
    )
    output, _ = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT)
    assert process.returncode == 0, output.decode()
    records = [line.split() for line in output.decode().splitlines()]
    assert records[0][0] == "header" and records[0][2] == "finished", records[0]
    events = [seq for record, seq, *_ in records if record == "event"]
    assert events == [str(n) for n in range(1, int(records[0][1]) + 1)]


async def _lobby(lobby: list[str], kind: str, env: dict[str, str] | None) -> dict[str, Any]:
    """The example lobby: one game of ``kind`` created, every seat joined, started."""
    options = json.dumps(GAMES[kind])
    process = await asyncio.create_subprocess_exec(
        *lobby,
        kind,
        options,
        "--drop",
        str(DROP),
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT)
    assert process.returncode == 0, err.decode()
    created: dict[str, Any] = json.loads(out)
    assert created["listed"] >= 1  # it found its game in the public listing, page by page
    return created


async def _play(
    server_url: str,
    kind: str,
    example: dict[str, list[str]],
    env: dict[str, str] | None,
) -> list[str]:
    """One game of ``kind``, its lobby through the example's, with one bot process per seat, a
    quarter of the answers lost; it must end, each bot seeing it end, with no action taken twice;
    then a spectator follows it from its third event. Returns what each bot printed."""
    created = await _lobby([*example["lobby"], server_url], kind, env)
    game_id = created["game_id"]
    processes = [
        await asyncio.create_subprocess_exec(
            *example["bot"],
            server_url,
            game_id,
            str(seat["seat"]),
            seat["token"],
            "--drop",
            str(DROP),
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        for seat in created["seats"]
    ]
    try:
        outputs = await asyncio.wait_for(asyncio.gather(*(p.communicate() for p in processes)), GAME_TIMEOUT)
    except TimeoutError:
        for process in processes:
            process.kill()
        logs = [(await p.communicate())[0].decode() for p in processes]
        pytest.fail(f"the {kind} game did not end: {logs}")
    texts = [output.decode() for output, _ in outputs]
    for process, text in zip(processes, texts, strict=True):
        assert process.returncode == 0, text
        assert "game over" in text, text
    async with PlaylogClient(server_url) as api:
        summary = await api.game(uuid.UUID(game_id))
    assert summary.status == "finished" and summary.winners
    await _no_double_action(server_url, game_id, texts)
    await _spectate(server_url, game_id, example["spectate"], env)
    await _export(server_url, game_id, created["seats"][0]["token"], example["export"], env)
    return texts


@pytest.mark.parametrize("kind", sorted(GAMES))
async def test_the_python_example_bot_plays_a_whole_game(
    server_url: str, python_client: Path, kind: str
) -> None:
    env = {**os.environ, "PYTHONPATH": str(python_client)}
    example = {
        name: [sys.executable, str(PYTHON / f"{name}.py")] for name in ("lobby", "bot", "spectate", "export")
    }
    await _play(server_url, kind, example, env)


@pytest.mark.parametrize("kind", sorted(GAMES))
async def test_the_typescript_example_bot_plays_a_whole_game(
    server_url: str, typescript_build: Path, kind: str
) -> None:
    node = shutil.which("node")
    assert node is not None
    example = {
        name: [node, str(typescript_build / f"{name}.js")] for name in ("lobby", "bot", "spectate", "export")
    }
    printed = await _play(server_url, kind, example, None)
    # Each bot checked the signed receipt of every command it sent (receipts.ts), its events
    # digest against the events of the answer as written included, and kept it.
    counts = [re.search(r"(\d+) receipts, (\d+) with their events digest checked", out) for out in printed]
    kept = [(int(m.group(1)), int(m.group(2))) for m in counts if m]
    assert len(kept) == len(printed) and sum(k for k, _ in kept) > 0, printed
    assert all(digests == receipts for receipts, digests in kept), kept


def test_the_game_kinds_are_the_registry_s() -> None:
    """The example games cover every kind the document names (a new game gets a bot game too)."""
    document = json.loads(DOCUMENT.read_text())
    assert document["components"]["schemas"]["GameKind"]["enum"] == sorted(GAMES)


def _refusals(document: dict[str, Any]) -> Iterator[tuple[str, str, int, str]]:
    """Every documented refusal: (the operation's tag, its operationId, the status, the code)."""
    for operations in document["paths"].values():
        for operation in operations.values():
            for status, response in operation["responses"].items():
                if int(status) < 400:
                    continue
                schema = response["content"]["application/problem+json"]["schema"]["allOf"][1]
                for code in schema["properties"]["code"]["enum"]:
                    yield operation["tags"][0], operation["operationId"], int(status), code


def test_the_generated_python_client_reads_every_documented_refusal_of_every_operation(
    python_client: Path,
) -> None:
    """Each refusal the document lists for an operation, answered to the generated client's own
    reading of that operation's answers: read into its typed problem with its code, never an
    exception (a code the document does not list is a ValueError there: #56's invalid_key)."""
    import httpx

    sys.path.insert(0, str(python_client))
    try:
        import importlib

        client_module = importlib.import_module("playlog_client.client")
        client = client_module.Client(base_url="http://playlog.invalid", raise_on_unexpected_status=True)
        read = 0
        for tag, operation_id, status, code in _refusals(json.loads(DOCUMENT.read_text())):
            name = re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id).lower()
            module = importlib.import_module(f"playlog_client.api.{tag}.{name}")
            problem = {
                "type": f"https://playlog.dev/problems/{code}",
                "title": code.replace("_", " "),
                "status": status,
                "detail": "Refused.",
                "code": code,
            }
            answer = httpx.Response(
                status, json=problem, headers={"content-type": "application/problem+json"}
            )
            parsed = module._build_response(client=client, response=answer).parsed
            assert parsed is not None and str(parsed.code) == code, (operation_id, status, code)
            read += 1
    finally:
        sys.path.remove(str(python_client))
        for loaded in [m for m in sys.modules if m.startswith("playlog_client")]:
            del sys.modules[loaded]
    assert read > 500


def test_the_generated_python_client_joins_a_guest_without_a_token(python_client: Path) -> None:
    """A guest's join (and a finished public game's audit) needs no token: the generated functions
    take a plain client, not only an authenticated one."""
    for module in ("lobby/join_game.py", "audit/audit_game.py"):
        source = (python_client / "playlog_client" / "api" / module).read_text()
        assert "client: AuthenticatedClient | Client," in source, module
