"""A Risk Cat in the golden corpus (tests/golden/corpus.py): both modes at every player count;
each (name, options) is one kind of recorded game."""

from __future__ import annotations

from typing import Any

GOLDEN: tuple[tuple[str, dict[str, Any]], ...] = tuple(
    (f"arc-{mode}-{players}p", {"players": players, "mode": mode})
    for mode in ("base", "full")
    for players in range(3, 9)
)
