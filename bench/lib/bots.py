"""What the benches' bot drivers may do: who may act, from what every seat sees, and the commands
they never send (a concession would end the game at once)."""

from __future__ import annotations

from typing import Any

# "Leave" is Exploding Kittens' concession before 29ea0df (#39): a baseline tree run side by side
# (--baseline) offers it, and its games must be the ones this tree plays.
AVOIDED = frozenset({"Concede", "Leave"})


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
