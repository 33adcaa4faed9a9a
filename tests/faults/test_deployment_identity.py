"""One deployment, one identity: real ``playlog serve`` processes on one database.

A second instance whose log key, origin or JWT secret differs from the deployment's refuses to
start and names the setting; instances reading one ``playlog deployment init`` file agree; when
the instance that signs checkpoints is killed, another signs on with the same key, and every
checkpoint extends the ones before it (a witness pinned to the key keeps cosigning).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from projections.notes import COSIGNATURE_V1, Checkpoint, Note, Signer
from service.transparency.witness import Witness
from tests.faults.processes import LOG_KEY, free_port, serve, stop, wait_healthy

SECRET = "deployment-suite-secret-long-enough-for-hs256"


def refused(proc: subprocess.Popen[bytes], log: Path) -> str:
    """What an instance said when it refused to start (it must exit, with 1)."""
    assert proc.wait(90) == 1, log.read_text()[-3000:]
    return log.read_text()


@pytest.mark.parametrize(
    ("setting", "changed"),
    [
        (
            "PLAYLOG_LOG_SIGNING_KEY",
            {"PLAYLOG_LOG_SIGNING_KEY": Signer.generate("playlog.localhost/log").text},
        ),
        (
            "PLAYLOG_LOG_ORIGIN",  # another origin is another key's name: both differ
            {"PLAYLOG_LOG_SIGNING_KEY": Signer.generate("other.example/log").text},
        ),
        ("PLAYLOG_JWT_SECRET", {"PLAYLOG_JWT_SECRET": "another-secret-long-enough-for-hs256"}),
        ("PLAYLOG_JWT_SECRET", {"PLAYLOG_JWT_SECRET": ""}),  # its own, generated in its data directory
    ],
)
async def test_a_second_instance_that_disagrees_refuses_to_start_and_names_the_setting(
    database_url: str, workdir: Path, setting: str, changed: dict[str, str]
) -> None:
    env = {"PLAYLOG_JWT_SECRET": SECRET}
    first_log, second_log = workdir / "first.log", workdir / "second.log"
    port = free_port()
    first = serve(workdir / "first", port, first_log, database_url=database_url, extra_env=env)
    try:
        await asyncio.to_thread(wait_healthy, f"http://127.0.0.1:{port}", first, first_log)
        second = serve(
            workdir / "second",
            free_port(),
            second_log,
            database_url=database_url,
            extra_env={**env, **changed},
        )
        said = await asyncio.to_thread(refused, second, second_log)
    finally:
        await asyncio.to_thread(stop, first)
    assert f"{setting} differs from the deployment's" in said
    assert "playlog deployment init --file" in said  # the fix
    if not changed.get("PLAYLOG_JWT_SECRET", True):
        assert str(workdir / "second" / "jwt-secret") in said  # where its own came from
    # The refused instance recorded nothing: the deployment's identity is the first one's.
    again = serve(workdir / "first", port, first_log, database_url=database_url, extra_env=env)
    try:
        await asyncio.to_thread(wait_healthy, f"http://127.0.0.1:{port}", again, first_log)
    finally:
        await asyncio.to_thread(stop, again)


async def test_the_public_example_secret_is_refused(database_url: str, workdir: Path) -> None:
    log = workdir / "instance.log"
    env = {"PLAYLOG_JWT_SECRET": "change-me-to-a-long-random-secret"}
    proc = serve(workdir / "data", free_port(), log, database_url=database_url, extra_env=env)
    said = await asyncio.to_thread(refused, proc, log)
    assert "PLAYLOG_JWT_SECRET is the example value published with playlog" in said


def playlog(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_")}
    return subprocess.run(
        [sys.executable, "-m", "service.tools.cli", *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


async def test_instances_sharing_an_init_file_agree_and_the_sequencer_fails_over_with_its_key(
    database_url: str, workdir: Path
) -> None:
    witness_key = Signer.generate("witness.example", COSIGNATURE_V1)
    shared = workdir / "deployment" / "playlog.env"
    init_env = {"PLAYLOG_DATA_DIR": str(workdir / "init"), "PLAYLOG_WITNESS_KEYS": witness_key.verifier.text}
    made = playlog("deployment", "init", "--file", str(shared), env=init_env)
    assert made.returncode == 0, made.stderr
    assert shared.stat().st_mode & 0o777 == 0o600
    written = shared.read_text()
    assert playlog("deployment", "init", "--file", str(shared), env={}).returncode == 0
    assert shared.read_text() == written  # kept: init writes once

    # Nothing shared in their environment but the file (serve() sets a test key: unset here).
    env = {
        "PLAYLOG_DEPLOYMENT_FILE": str(shared),
        "PLAYLOG_LOG_SIGNING_KEY": "",
        "PLAYLOG_LOG_INTERVAL": "0.1",
    }
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    logs = [workdir / f"instance{n}.log" for n in range(2)]
    procs = [
        serve(workdir / f"data{n}", ports[n], logs[n], database_url=database_url, extra_env=env)
        for n in range(2)
    ]
    try:
        await asyncio.gather(*(asyncio.to_thread(wait_healthy, urls[n], procs[n], logs[n]) for n in range(2)))
        async with httpx.AsyncClient(timeout=10.0) as client:
            keys = [(await client.get(f"{url}/log/keys")).text for url in urls]
            assert keys[0] == keys[1] and Signer.parse(LOG_KEY).verifier.text not in keys[0]
            leader = await _leader(logs)
            other = 1 - leader
            witness = Witness(urls[leader], witness_key, workdir / "witness")
            await _new_head(client, urls[other])
            first = await _cosigned_above(witness, client, 0)  # pins the log's key on first contact

            procs[leader].kill()  # SIGKILL: the sequencer's session ends with its process
            await asyncio.to_thread(procs[leader].wait)
            witness.log_url = urls[other]
            await _new_head(client, urls[other])
            assert await _leader([logs[other]]) == 0  # the other instance took over
            await _cosigned_above(witness, client, first)  # the same key, a history that extends
            assert (await client.get(f"{urls[other]}/log/keys")).text == keys[0]
    finally:
        for proc in procs:
            await asyncio.to_thread(stop, proc, signal.SIGTERM)


async def _leader(logs: list[Path]) -> int:
    """Which of these instances signs the log (it said ``sequencer_leading``), once one does."""
    for _ in range(600):
        leading = [n for n, log in enumerate(logs) if "sequencer_leading" in log.read_text()]
        if leading:
            assert len(leading) == 1, leading
            return leading[0]
        await asyncio.sleep(0.1)
    raise AssertionError("no instance leads the sequencer")


async def _new_head(client: httpx.AsyncClient, url: str) -> None:
    """A new game: a head the sequencer appends to the log."""
    created = await client.post(f"{url}/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
    assert created.status_code == 201, created.text


async def _cosigned_above(witness: Witness, client: httpx.AsyncClient, size: int) -> int:
    """Wait for a checkpoint larger than ``size``, have the witness cosign it; its size."""
    for _ in range(600):
        answer = await client.get(f"{witness.log_url}/log/checkpoint")
        if answer.status_code == 200 and Checkpoint.parse_body(Note.parse(answer.text).body).size > size:
            assert await witness.round(client) == "cosigned"  # raises Refused on a fork
            return Checkpoint.parse_body(Note.parse(answer.text).body).size
        await asyncio.sleep(0.1)
    raise AssertionError(f"no checkpoint above {size}")
