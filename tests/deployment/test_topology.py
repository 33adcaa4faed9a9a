"""docker/compose.yaml's whole topology on loopback, without Docker (issue 50): one PostgreSQL,
the compose file's `deployment-init` run as written (its `deployment` volume a directory of the
test), every `playlog serve` service of the file as a process with the environment the file
gives it and a data directory of its own, Debian's HAProxy with docker/haproxy.cfg in front of
them, and two `playlog witness` processes whose keys and addresses reach the instances through
the file's own `${PLAYLOG_WITNESS_KEYS}` and `${PLAYLOG_WITNESS_URLS}` (tests/deployment/compose.py
says what else is rewritten). Bot games through the balancer lose a quarter of their answers and
resend them; the instance that runs the transparency log's sequencer is killed mid-run and
started again. Then: no acknowledged command lost or applied twice, every resend answered with
the first answer's bytes (its receipt included), every receipt signed by the deployment's key as
`/log/keys` gives it through the balancer, every export verified offline against the log's and
the witnesses' keys and extended to the log now, the witnesses never refused, and a seat's read
right after its write, through another instance, always sees the write."""

from __future__ import annotations

import asyncio
import random
import subprocess
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import pytest

from projections import receipts as receipting
from projections.notes import Signer, Verifier
from service.config import read_deployment_file
from service.tools.bot import GameReport, pick, play_game
from service.tools.client import ApiError, PlaylogClient
from tests.deployment.compose import services
from tests.deployment.topology import (
    Instance,
    LosingAnswers,
    WitnessProcess,
    WritesHereReadsThere,
    clean_environment,
    playlog,
    run_once,
    sequencer,
)
from tests.faults.balancer import HAProxy, haproxy_binary
from tests.faults.conftest import OwnPostgres
from tests.faults.load import Load, check_games, wait_for_events
from tests.faults.processes import free_port

pytestmark = [
    pytest.mark.deployment,
    pytest.mark.timeout(900),  # 3.5-4 minutes on this shared 2-core machine, 8.5 at its busiest
    pytest.mark.skipif(haproxy_binary() is None, reason="needs Debian's haproxy (apt-get install haproxy)"),
]

GAMES = 50
OPTIONS = {"players": 2, "reaction_window": 0}
READ_AFTER_WRITE_PAIRS = 10_000
CONCURRENT_GAMES = 24  # of the read-after-write pairs: enough to keep the three instances busy


@dataclass
class Deployment:
    instances: list[Instance]
    balancer: HAProxy
    witnesses: list[WitnessProcess]
    log_keys: list[str]  # the log's verifier keys, from the file deployment-init wrote
    witness_keys: list[str]


@pytest.fixture
async def deployment(own_postgres: OwnPostgres, workdir: Path) -> AsyncIterator[Deployment]:
    witnesses = [WitnessProcess(workdir / f"witness-{n}", f"witness-{n}.example") for n in range(2)]
    witness_keys = [await asyncio.to_thread(w.make_key) for w in witnesses]
    # What the operator's shell gives compose, and where the named volume lives.
    shell = {
        "PLAYLOG_WITNESS_KEYS": ",".join(witness_keys),
        "PLAYLOG_WITNESS_URLS": ",".join(w.url for w in witnesses),
    }
    volumes = {"deployment": workdir / "volumes" / "deployment"}
    found = services(shell, volumes)

    init = await asyncio.to_thread(
        run_once, found["deployment-init"], own_postgres.url, workdir / "deployment-init"
    )
    assert init.returncode == 0, init.stderr
    shared = read_deployment_file(volumes["deployment"] / "playlog.env")
    log_keys = [Signer.parse(key).verifier.text for key in shared["PLAYLOG_LOG_SIGNING_KEY"].split(",")]

    instances = [Instance(s, workdir / s.name, own_postgres.url) for s in found.values() if s.serves]
    assert [i.service.name for i in instances] == ["playlog-a", "playlog-b", "playlog-c"]
    balancer: HAProxy | None = None
    try:
        for witness in witnesses:
            witness.start(log_keys)
        for instance in instances:
            instance.start()
        for witness in witnesses:
            await asyncio.to_thread(witness.wait_ready)
        for instance in instances:
            await asyncio.to_thread(instance.wait_ready)
        balancer = HAProxy(workdir, free_port(), [i.port for i in instances])
        await asyncio.to_thread(balancer.wait_all_up)
        yield Deployment(instances, balancer, witnesses, log_keys, witness_keys)
    finally:
        if balancer is not None:
            balancer.close()
        for instance in instances:
            await asyncio.to_thread(instance.stop)
        for witness in witnesses:
            await asyncio.to_thread(witness.stop)


async def play_through(url: str, losing: LosingAnswers, games: int) -> tuple[list[GameReport], list[str]]:
    """Bot games through the balancer: their reports and every receipt the client checked."""
    async with httpx.AsyncClient(base_url=url, timeout=30, transport=losing) as http:
        api = PlaylogClient(url, http=http, max_retries=40, first_pause=0.05)
        reports = await asyncio.gather(
            *(play_game(api, "exploding_kittens", OPTIONS, rng=random.Random(n)) for n in range(games))
        )
        return list(reports), api.receipts


async def read_after_write(writer: str, readers: list[str], pairs: int) -> tuple[int, int, int]:
    """Seats' commands through ``writer``, each followed at once by the seat's view through one of
    ``readers`` (one client, which names the version it has seen): how many pairs, how many of
    their reads did not show the write, how many reads the writer answered."""
    routing = WritesHereReadsThere(writer, readers)
    done = stale = 0

    async def one_game(api: PlaylogClient, rng: random.Random) -> None:
        nonlocal done, stale
        created = await api.create_game("exploding_kittens", OPTIONS, spectator_delay=0)
        seats = [await api.join(created.game_id, f"p{n}") for n in range(created.seats)]
        await api.start(created.game_id, created.host_token)
        views = [await api.view(created.game_id, s.seat, s.token) for s in seats]
        while done < pairs and views[0].status != "finished":
            choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
            if not choices:
                await asyncio.sleep(0.02)
                views = [await api.view(created.game_id, s.seat, s.token) for s in seats]
                continue
            view, command = rng.choice(choices)
            seat = seats[view.seat]
            try:
                result = await api.send(
                    created.game_id, seat.seat, seat.token, command, idempotency_key=uuid.uuid4().hex
                )
            except ApiError:  # the other seat's move made this one illegal: look again
                views = [await api.view(created.game_id, s.seat, s.token) for s in seats]
                continue
            seen = await api.view(created.game_id, seat.seat, seat.token)  # the pair's read
            done += 1
            stale += seen.version < result.version
            other = seats[1 - seat.seat]
            views = sorted(
                [seen, await api.view(created.game_id, other.seat, other.token)], key=lambda v: v.seat
            )

    async def player(n: int) -> None:
        rng = random.Random(n)
        while done < pairs:
            await one_game(api, rng)

    async with httpx.AsyncClient(base_url=writer, timeout=30, transport=routing) as http:
        api = PlaylogClient(writer, http=http)
        await asyncio.gather(*(player(n) for n in range(CONCURRENT_GAMES)))
    return done, stale, routing.read_by_writer


async def logged_and_cosigned(database_url: str, games: list[uuid.UUID], witnesses: int) -> None:
    """Until every game's last event is in the log under a checkpoint every witness cosigned."""
    conn = await asyncpg.connect(database_url)
    try:
        async with asyncio.timeout(60):
            while True:
                last = await conn.fetchrow(
                    "SELECT count(*) AS games, max(l.idx) AS idx FROM log_leaves l"
                    " JOIN (SELECT game_id, max(seq) AS seq FROM events WHERE game_id = ANY($1)"
                    " GROUP BY game_id) e"
                    " USING (game_id, seq)",
                    games,
                )
                cosigned = await conn.fetchval(
                    "SELECT max(size) FROM (SELECT size FROM log_cosignatures GROUP BY size"
                    " HAVING count(*) = $1) s",
                    witnesses,
                )
                if last["games"] == len(games) and cosigned is not None and cosigned > last["idx"]:
                    return
                await asyncio.sleep(0.2)
    finally:
        await conn.close()


def export_and_verify(
    game_id: uuid.UUID, env: dict[str, str], trust: Path, balancer: str, workdir: Path
) -> str:
    """`playlog export` then `playlog verify --trust --extend`: what verify said (it exits 0, OK)."""
    path = workdir / "exports" / f"{game_id}.jsonl"
    exported = subprocess.run(
        playlog(["playlog", "export", str(game_id), "-o", str(path)]),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert exported.returncode == 0, exported.stderr
    verified = subprocess.run(
        playlog(["playlog", "verify", "--trust", str(trust), "--extend", balancer, str(path)]),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, f"{game_id}: {verified.stdout}{verified.stderr}"
    return verified.stdout


async def test_the_compose_topology_keeps_every_promise(
    deployment: Deployment, own_postgres: OwnPostgres, workdir: Path
) -> None:
    instances, balancer = deployment.instances, deployment.balancer
    async with httpx.AsyncClient(timeout=10) as client:
        keys = {
            (await client.get(f"{url}/log/keys")).text for url in [balancer.url, *(i.url for i in instances)]
        }
        assert len(keys) == 1, "every instance of the deployment answers the same log keys"

        losing = LosingAnswers(httpx.AsyncHTTPTransport(), share=0.25, seed=1)
        load = asyncio.create_task(play_through(balancer.url, losing, GAMES))
        await wait_for_events(own_postgres.url, 1500)
        leader = await sequencer(own_postgres.url, instances)
        await asyncio.to_thread(leader.kill)  # kill -9, mid-run
        leader.start()
        await asyncio.to_thread(leader.wait_ready)
        reports, receipts = await load
        assert await sequencer(own_postgres.url, instances)  # one signs the log again

        # No acknowledged command lost or applied twice; every lost answer resent, and answered
        # with the first one's bytes, its receipt included.
        await check_games(own_postgres.url, Load(urls=[balancer.url], games=GAMES, reports=reports))
        assert losing.resent > 0 and not losing.differing and not losing.lost, (losing.differing, losing.lost)
        # Every receipt signed with the deployment's keys, as the balancer gives them.
        log_keys = [
            Verifier.parse(k) for k in (await client.get(f"{balancer.url}/log/keys")).json()["log_keys"]
        ]
        assert sorted(k.text for k in log_keys) == sorted(deployment.log_keys)
        assert len(receipts) >= sum(r.commands for r in reports)
        for receipt in receipts:
            receipting.verify(receipt, log_keys)

    # Every export verifies offline against the log's and the witnesses' keys, and the log at the
    # balancer still extends its checkpoint (the witnesses cosigned it).
    games = [r.game_id for r in reports]
    await logged_and_cosigned(own_postgres.url, games, len(deployment.witnesses))
    trust = workdir / "trusted.keys"
    trust.write_text("".join(f"{key}\n" for key in [*deployment.log_keys, *deployment.witness_keys]))
    env = clean_environment(instances[0].service, own_postgres.url, instances[0].directory / "data")
    (workdir / "exports").mkdir()
    two_at_a_time = asyncio.Semaphore(2)

    async def checked(game_id: uuid.UUID) -> str:
        async with two_at_a_time:
            return await asyncio.to_thread(export_and_verify, game_id, env, trust, balancer.url, workdir)

    said = await asyncio.gather(*(checked(g) for g in games))
    assert all("OK" in s for s in said), said[0]

    # The witnesses never refused: no evidence kept, no refusal logged or recorded.
    conn = await asyncpg.connect(own_postgres.url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM log_witness_refusals") == 0
    finally:
        await conn.close()
    for witness in deployment.witnesses:
        assert not (witness.state / "evidence").exists()
    for log in [*(w.output for w in deployment.witnesses), *(i.log for i in instances)]:
        assert "witness_refused" not in log.read_text()

    # Read your writes: each seat's read through another instance than its write shows the write.
    pairs, stale, read_by_writer = await read_after_write(
        instances[0].url, [i.url for i in instances[1:]], READ_AFTER_WRITE_PAIRS
    )
    assert pairs >= READ_AFTER_WRITE_PAIRS and read_by_writer == 0
    assert stale == 0
