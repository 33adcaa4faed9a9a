"""The games the conformance kit plays: every registered game's ``KITS`` (its folder's
``tests/kit.py``, found through the registry: tests/declared.py), the tests' own games
(tests/games/) registered too. No game is named here: a game is in the kit once it is registered
and declares its kit."""

from __future__ import annotations

from domain import registry
from tests.conformance.kit import GameKit
from tests.declared import declared
from tests.games import GAMES


def kits() -> tuple[GameKit, ...]:
    """Every registered game's declared kits, in the registry's order."""
    found: list[GameKit] = []
    for kind in registry.games():
        module = declared(kind, "kit")
        if module is None:
            raise LookupError(f"The game {kind!r} declares no conformance kit (its folder's tests/kit.py).")
        found += module.KITS
    return tuple(found)


with registry.serving(*GAMES):
    KITS = kits()
