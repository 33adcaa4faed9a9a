"""Exploding Kittens in the golden corpus (tests/golden/corpus.py): every edition, with and
without special combos, at every player count; each (name, options) is one kind of recorded game."""

from __future__ import annotations

from typing import Any

GOLDEN: tuple[tuple[str, dict[str, Any]], ...] = tuple(
    (
        f"ek-{edition}-{'combos' if combos else 'pairs'}-{players}p",
        {"players": players, "edition": edition, "special_combos": combos, "reaction_window": 0},
    )
    for edition in ("2022", "classic")
    for combos in (True, False)
    for players in range(2, 6)
)
