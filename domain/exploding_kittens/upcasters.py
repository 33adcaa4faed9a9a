"""Old shapes of this game's stored events, read in today's shape (see domain/decider.py).

A stored event is never rewritten. When an event's shape changes, its type's entry in
``SCHEMA_VERSIONS`` goes up by one and ``UPCASTERS[(type, old_version)]`` turns a body of the old
version into the next one; the golden corpus (tests/golden/) proves old games replay unchanged.
``RULES_VERSION`` is recorded in every new game (``lobby.created``): raise it when a rules change
must not alter games created before it, and branch on ``ctx.rules_version`` in ``decide``.
"""

from __future__ import annotations

from typing import Any

from domain.decider import Upcaster

RULES_VERSION = 1

SCHEMA_VERSIONS: dict[str, int] = {
    "ExplodingKittensWon": 2,
}


def won_v1_to_v2(body: dict[str, Any]) -> dict[str, Any]:
    """Version 1 named the winning seat ``seat``; every other event's ``seat`` is the actor."""
    body = dict(body)
    body["winner"] = body.pop("seat")
    return body


UPCASTERS: dict[tuple[str, int], Upcaster] = {
    ("ExplodingKittensWon", 1): won_v1_to_v2,
}
