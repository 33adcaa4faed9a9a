"""What the benches' bot drivers may do: who may act, from what every seat sees, and the commands
they never send (a concession would end the game at once)."""

from __future__ import annotations

from typing import Any

from domain import registry
from domain.decider import Concede

# Today's tag of a concession, and the tags games once sent it under (Exploding Kittens' "Leave"
# before #39): a baseline tree run side by side (--baseline) offers those, and its games must be
# the ones this tree plays.
_CONCEDE = registry.tag_of(Concede)
AVOIDED = frozenset({_CONCEDE}).union(
    old
    for game in registry.games().values()
    for old, new in game.versions.renamed_commands.items()
    if new == _CONCEDE
)


def actors(public: dict[str, Any], players: int) -> list[int]:
    """Who may act now, from what every seat may see (the public part of a view)."""
    window = public.get("window")
    if window:
        return list(window.get("eligible") or range(players))
    pending = public.get("pending")
    if pending:
        return [pending["seat"]]
    if public.get("active_seat") is not None:
        return [public["active_seat"]]
    return list(range(players))
