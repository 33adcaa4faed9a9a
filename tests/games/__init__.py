"""Games used only by the tests (never registered with the service): the smallest games that
prove a new game fits the engine (tests/conformance) and is served (tests/games/*/test_served.py).

``GAMES`` is their list, one line per game, as ``registry.GAMES`` is the service's: the tests
that go through every game (the conformance kit, the docs generator, the OpenAPI export, the
fuzzer's games) register these too (``registry.serving(*GAMES)``).
"""

from __future__ import annotations

from domain.decider import Decider
from tests.games.guessing import DECIDER as GUESSING

GAMES: tuple[Decider, ...] = (GUESSING,)
