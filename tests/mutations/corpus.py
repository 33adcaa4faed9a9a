"""The mutation corpus: real exports (golden games, and games played in the test: finished ones
with access records, running ones, one with a ruled dispute) and, from each, tampered copies made
by a seeded generator, so the corpus is the same on every run."""

from __future__ import annotations

import gzip
import random
import uuid
from pathlib import Path
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain import randomness
from projections.export import format as export_format
from projections.export.verify import VerifyReport, verify_lines
from service.store import portable
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.mutations.files import Base, Mutant
from tests.mutations.forge import forgeries
from tests.mutations.tamper import structural

GOLDEN = Path(__file__).parents[1] / "golden" / "games"
# Short games of every kind, edition and mode (the corpus's cost is a verify per mutant): some
# whole, some imported and exported again running (their first events, as ``--until`` does).
GOLDEN_FINISHED = ["ek-2022-combos-2p-1", "ek-classic-combos-4p-1", "ek-2022-combos-3p-1", "arc-base-3p-1"]
GOLDEN_RUNNING = ["ek-classic-pairs-5p-1", "ek-2022-pairs-4p-2", "arc-full-4p-2", "arc-base-6p-1"]
RUNNING_AT = 30  # a running game's export: the first events of a played one
GAMES: dict[str, dict[str, Any]] = {
    "exploding_kittens": {"players": 3, "reaction_window": 0, "seed": 35},
    "a_risk_cat": {"players": 3, "mode": "full", "seed": 35},
}

_made: list[Base] = []
_mutants: dict[tuple[str, ...], list[Mutant]] = {}
_reports: dict[int, VerifyReport] = {}  # by the id of a mutant of ``_mutants``


def golden(name: str) -> Base:
    return Base(name, gzip.open(GOLDEN / f"{name}.jsonl.gz", "rb").readlines())


async def _moderator_export(
    http: AsyncTestClient[Litestar], moderator: dict[str, str], game_id: uuid.UUID
) -> list[bytes]:
    response = await http.get(f"/games/{game_id}/export", headers=moderator)
    assert response.status_code == 200, response.text
    return response.content.splitlines(keepends=True)


async def _seat_seeds(api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]) -> Base:
    """A 2-seat game whose seats each committed a seed on joining and revealed it, ended by a
    seat leaving (so the server seed is disclosed)."""
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=0
    )
    seeds = [random.Random(n).randbytes(32) for n in range(2)]
    tokens = []
    for n, seed in enumerate(seeds):
        body = {"name": f"seed-{n}", "seed_commitment": randomness.seat_commitment(seed)}
        joined = await http.post(f"/games/{created.game_id}/seats", json=body)
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    for n, seed in enumerate(seeds):
        headers = {"Authorization": f"Bearer {tokens[n]}"}
        revealed = await http.post(
            f"/games/{created.game_id}/seats/{n}/seed", json={"seed": seed.hex()}, headers=headers
        )
        assert revealed.status_code == 200, revealed.text
    await api.start(created.game_id, created.host_token)
    await api.leave(created.game_id, 0, tokens[0])
    return Base("seat-seeds", await _moderator_export(http, moderator, created.game_id))


async def bases(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str], database_url: str
) -> list[Base]:
    """The corpus's real exports (made once per session): golden games, whole or running (imported
    here and exported up to ``RUNNING_AT``); games played here of each kind, finished and exported
    twice by a moderator (so with two access records), and running; one with its server seed
    committed and disclosed; one whose seats committed and revealed seeds; a game with a ruled
    dispute."""
    if _made:
        return _made
    import asyncpg

    from tests.e2e.test_disputes import claim, finished_game, raise_dispute, resolve

    _made.extend(golden(name) for name in GOLDEN_FINISHED)
    conn = await asyncpg.connect(database_url)

    async def running(name: str, game_id: uuid.UUID) -> Base:
        lines = portable.export_lines(conn, game_id, now=0, until=RUNNING_AT, access=False)
        return Base(f"{name}@{RUNNING_AT}", [line.encode() async for line in lines])

    try:
        for name in GOLDEN_RUNNING:
            imported = await portable.import_game(conn, export_format.read(golden(name).raw))
            _made.append(await running(name, uuid.UUID(imported.game_id)))
        for kind, options in GAMES.items():
            report = await play_game(api, kind, options, rng=random.Random(35))
            await _moderator_export(http, moderator, report.game_id)
            _made.append(Base(f"{kind}-finished", await _moderator_export(http, moderator, report.game_id)))
            _made.append(await running(kind, report.game_id))
        # A game without ``seed``: its server seed committed at the start, disclosed at the end.
        unseeded = await play_game(api, "exploding_kittens", {"players": 2, "reaction_window": 0})
        _made.append(
            Base("exploding_kittens-unseeded", await _moderator_export(http, moderator, unseeded.game_id))
        )
        _made.append(await _seat_seeds(api, http, moderator))
        disputed = await finished_game(api)
        dispute = await raise_dispute(http, disputed, seat=0)
        await claim(http, dispute["dispute_id"], moderator)
        ruled = await resolve(http, dispute["dispute_id"], moderator, verdict="upheld", action="none")
        assert ruled.status_code == 200, ruled.text
        _made.append(Base("disputed", await _moderator_export(http, moderator, disputed.game_id)))
    finally:
        await conn.close()
    return _made


def tampered(base: Base, seed: int) -> list[Mutant]:
    """Blind damage to any export; forgeries only where commands were recorded (an older game is
    replayed, its events taken as facts: nothing offline can tell a rewritten move there)."""
    forged = forgeries(base, seed) if base.recorded else []
    return [base.widened(m) for m in structural(base, seed) + forged]


def mutants(bases: list[Base]) -> list[Mutant]:
    """Every base's tampered copies, seeded by the base's place in the list (made once)."""
    key = tuple(base.name for base in bases)
    if key not in _mutants:
        _mutants[key] = [m for seed, base in enumerate(bases) for m in tampered(base, seed)]
    return _mutants[key]


def verified(mutant: Mutant) -> VerifyReport:
    """``playlog verify``'s report on ``mutant`` (made once: two tests read it)."""
    if id(mutant) not in _reports:
        # The golden games were recorded before commands were: their level is accepted, so that
        # only damage decides (a stripped modern log is refused on its own: it has a seed).
        _reports[id(mutant)] = verify_lines(mutant.lines, accept=("replayed",))
    return _reports[id(mutant)]
