"""A table's draws and context: which generator a command at a table draws from.

A seeded game (``seed`` in its options) draws from CPython's generator, as tests expect; a game
with a committed server seed from the stream keyed by that seed, the game id and the seats'
revealed seeds, at the table's version (domain/randomness.py). The service decides with this
context, and a verifier re-executes with the same one built from the log.
"""

from __future__ import annotations

import uuid

from domain import randomness
from domain.decider import Context
from domain.randomness import Draws, Randomness
from domain.table.state import Table


def seat_seeds(table: Table) -> list[bytes | None]:
    seeds = table.seat_seeds or (None,) * len(table.seats)
    return [None if seed is None else bytes.fromhex(seed) for seed in seeds]


def draws(table: Table, game_id: uuid.UUID, server_seed: bytes | None) -> Randomness | None:
    """The generator of the command decided at ``table`` (None: a game older than committed
    seeds, which has none). ``server_seed`` None for a game that has one: draws raise
    ``SeedUnavailable`` (a verifier that does not know the seed yet)."""
    option = getattr(table.options, "seed", None)
    if option is not None:
        return randomness.seeded(option, table.version)
    if table.seed_commitment is None:
        return None
    if server_seed is None:
        return Draws(None, table.version)
    return Draws(lambda: randomness.key(server_seed, game_id, seat_seeds(table)), table.version)


def context(table: Table, rng: Randomness, now: float, server_seed: bytes | None) -> Context:
    """What ``decide`` sees at ``table``: the acting seat is set by the table's own decide."""
    disclose = server_seed.hex() if server_seed is not None and table.seed_commitment is not None else None
    return Context(
        rng,
        now,
        None,
        rules_version=table.rules_version,
        seed_commitment=table.seed_commitment,
        server_seed=disclose,
    )
