"""The levels a host may seat, and the one entry point every runner calls."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from bots import a_risk_cat, exploding_kittens

Level = Literal["easy", "normal"]
LEVELS: tuple[Level, ...] = ("easy", "normal")
Move = dict[str, Any]
Strategy = Callable[[Mapping[str, Any], Sequence[Move], random.Random], Move]

# A kind's strategy for "normal"; a kind not named here plays "normal" as "easy".
NORMAL: Mapping[str, Strategy] = {
    "exploding_kittens": exploding_kittens.normal,
    "a_risk_cat": a_risk_cat.normal,
}


def easy(view: Mapping[str, Any], moves: Sequence[Move], rng: random.Random) -> Move:
    """Any of the seat's moves, uniformly."""
    return rng.choice(list(moves))


def choose(
    kind: str, level: Level, view: Mapping[str, Any], moves: Sequence[Move], rng: random.Random
) -> Move | None:
    """The move a computer player of ``level`` makes, or None when the seat has none to make.

    ``view`` is the seat's view of the game (its ``view`` field: the hand, what it saw, the public
    table) and ``moves`` its legal moves (leaving never among them)."""
    if not moves:
        return None
    if level == "easy":
        return easy(view, moves, rng)
    return NORMAL.get(kind, easy)(view, moves, rng)


def seeded(game_id: str, seat: int, version: int) -> random.Random:
    """The random stream for one decision: a function of the game, the seat and the seat's
    version (its own numbering), so that the decision can be made again from the same view."""
    digest = hashlib.sha256(f"playlog/computer/v1\x00{game_id}:{seat}:{version}".encode()).digest()
    return random.Random(digest)
