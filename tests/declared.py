"""Each registered game's own test declarations, found through the registry by kind.

A game's folder (the package its ``decide`` lives in: ``domain/<game>/``, or ``tests/games/<game>/``
for the tests' own games) has a ``tests`` package holding what the shared tests need to know of it:
``kit.py`` (``KITS``: its declarations for the conformance kit, tests/conformance/kit.py) and
``golden.py`` (``GOLDEN``: its configurations of the golden corpus, tests/golden/corpus.py) and
``rules.py`` (its lines of RULES.md with the tests proving each: tests/rules_coverage.py). Every
game of the service declares all three (the readers fail on a game that does not); the tests' own
games, never served for real, declare their kit only. No shared test names a game: adding one is
its folder and its line in ``registry.GAMES``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from domain import registry


def declared(kind: str, name: str) -> ModuleType | None:
    """The registered game's declarations module ``name`` (``kit``, ``golden``), or None."""
    module = f"{registry.package(kind)}.tests.{name}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name is None or not (module == error.name or module.startswith(f"{error.name}.")):
            raise  # the module exists and imports something missing: a real error
        return None
