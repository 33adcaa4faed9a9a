"""docker/compose.yaml's whole topology on loopback, without Docker (issue 50): one PostgreSQL,
every playlog service of the compose file as a `playlog serve` process with the environment the
file gives it and a data directory of its own, Debian's HAProxy with docker/haproxy.cfg in front
of them, and two witnesses. Bot games through the balancer lose a quarter of their answers and
resend them; the instance that runs the transparency log's sequencer is killed mid-run and
started again. Then: no acknowledged command lost or applied twice, every resend answered with
the first answer's bytes (its receipt included), every receipt signed by the deployment's key as
`/log/keys` gives it through the balancer, every export verified offline against the log and the
witnesses' keys, the witnesses never refused, and a read right after a write, through another
instance, always sees the write."""

from __future__ import annotations

import asyncio
import random
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from service.tools.bot import play_game, pick
from service.tools.client import ApiError, PlaylogClient
from tests.deployment.compose import playlog_services
from tests.deployment.topology import Instance, LosingAnswers, sequencer
from tests.faults.balancer import HAProxy, haproxy_binary
from tests.faults.conftest import OwnPostgres, own_postgres, workdir  # noqa: F401 (the fixtures)
from tests.faults.load import check_games
from tests.faults.processes import free_port

pytestmark = [
    pytest.mark.deployment,
    pytest.mark.skipif(haproxy_binary() is None, reason="needs Debian's haproxy (apt-get install haproxy)"),
]

GAMES = 50
OPTIONS = {"players": 2, "reaction_window": 0}
READ_AFTER_WRITE_PAIRS = 10_000


@pytest.fixture
async def deployment(own_postgres: OwnPostgres, workdir: Path) -> AsyncIterator[tuple[list[Instance], HAProxy]]:
    shell = {"PLAYLOG_JWT_SECRET": secrets.token_hex(32)}  # what the operator's shell gives compose
    services = playlog_services(shell)
    assert len(services) == 3, [s.name for s in services]
    instances = [Instance(s, workdir / s.name, own_postgres.url) for s in services]
    for instance in instances:
        instance.start()
    balancer: HAProxy | None = None
    try:
        for instance in instances:
            instance.wait_ready()
        balancer = HAProxy(workdir, free_port(), [i.port for i in instances])
        balancer.wait_all_up()
        yield instances, balancer
    finally:
        if balancer is not None:
            balancer.close()
        for instance in instances:
            instance.stop()


async def play_through(url: str, losing: LosingAnswers, games: int) -> list:  # type: ignore[type-arg]
    async with httpx.AsyncClient(base_url=url, timeout=30, transport=losing) as http:
        api = PlaylogClient(url, http=http, max_retries=40, first_pause=0.05)
        reports = await asyncio.gather(
            *(play_game(api, "exploding_kittens", OPTIONS, rng=random.Random(n)) for n in range(games))
        )
        return [reports, len(api.receipts)]


async def read_after_write(writer: str, readers: list[str], pairs: int, games: int = 8) -> int:
    """Commands through ``writer``, each followed at once by the seat's view through one of the
    ``readers``: how many reads did not show the write."""
    stale = 0
    done = 0

    async def one_game(seed: int) -> None:
        nonlocal stale, done
        rng = random.Random(seed)
        async with PlaylogClient(writer) as write, PlaylogClient(readers[0]) as read_a, PlaylogClient(readers[1]) as read_b:
            created = await write.create_game("exploding_kittens", OPTIONS, spectator_delay=0)
            seats = [await write.join(created.game_id, f"p{n}") for n in range(created.seats)]
            await write.start(created.game_id, created.host_token)
            while done < pairs:
                views = [await write.view(created.game_id, s.seat, s.token) for s in seats]
                if views[0].status == "finished":
                    return
                choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
                if not choices:
                    await asyncio.sleep(0.01)
                    continue
                view, command = rng.choice(choices)
                seat = seats[view.seat]
                try:
                    result = await write.send(created.game_id, seat.seat, seat.token, command)
                except ApiError:
                    continue
                reader = (read_a, read_b)[done % 2]
                seen = await reader.view(created.game_id, seat.seat, seat.token)
                stale += seen.version < result.version
                done += 1

    while done < pairs:
        await asyncio.gather(*(one_game(random.randrange(1 << 30)) for _ in range(games)))
    return stale


def verify_export(game_id: str, balancer: str, trust: list[str], workdir: Path) -> subprocess.CompletedProcess[str]:
    path = workdir / f"{game_id}.jsonl"
    exported = subprocess.run(
        [sys.executable, "-m", "service.tools.cli", "export", game_id, "-o", str(path)],
        capture_output=True,
        text=True,
    )
    assert exported.returncode == 0, exported.stderr
    keys = workdir / "trusted.keys"
    keys.write_text("\n".join(trust) + "\n")
    return subprocess.run(
        [sys.executable, "-m", "service.tools.cli", "verify", "--trust", str(keys), "--extend", balancer, str(path)],
        capture_output=True,
        text=True,
    )


async def test_the_compose_topology_keeps_every_promise(
    deployment: tuple[list[Instance], HAProxy], own_postgres: OwnPostgres, workdir: Path
) -> None:
    instances, balancer = deployment
    keys = {(await httpx.AsyncClient().get(f"{i.url}/log/keys")).text for i in instances}
    assert len(keys) == 1, "every instance of the deployment answers the same log keys"

    losing = LosingAnswers(httpx.AsyncHTTPTransport(), share=0.25, seed=1)
    load = asyncio.create_task(play_through(balancer.url, losing, GAMES))
    await asyncio.sleep(5)
    leader = await sequencer(own_postgres.url, instances)
    leader.kill()
    await asyncio.sleep(2)
    leader.start()
    leader.wait_ready()
    reports, receipts = await load

    from tests.faults.load import Load

    done = Load(urls=[balancer.url], games=GAMES)
    done.reports = reports
    await check_games(own_postgres.url, done)
    assert losing.resent > 0 and not losing.differing, losing.differing
    assert receipts >= sum(r.commands for r in reports)  # each checked against /log/keys (the client)

    stale = await read_after_write(instances[0].url, [instances[1].url, instances[2].url], READ_AFTER_WRITE_PAIRS)
    assert stale == 0
