"""Each game's pages: how its views, commands and options look in a browser.

``pages/<kind>/`` holds the game's ``page.js`` (registered in the browser with
``PL.registerGame``: its table, what a seat alone knows, its commands in words, its deadlines, its
create-form options) and ``options.html`` (the create form's fields for its own options). The
service serves them for every game of the registry (service/http/web/pages.py) and names none.
Presentation only: no rule lives here (domain/), and nothing here is trusted by the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from domain import registry

ROOT = Path(__file__).parent


@dataclass(frozen=True)
class GamePage:
    kind: str
    title: str
    script: Path  # pages/<kind>/page.js
    options: str  # the options fields' template, relative to ROOT


def _pages() -> dict[str, GamePage]:
    """The page of every registered game (a game without one is a programming error)."""
    found = {}
    for kind, decider in registry.games().items():
        script = ROOT / kind / "page.js"
        if not script.is_file():
            raise LookupError(f"The game {kind!r} has no page: {script} is missing.")
        title = decider.about.title if decider.about else kind
        found[kind] = GamePage(kind, title, script, f"{kind}/options.html")
    return found


_PAGES = _pages()  # built once, with the registry's kinds


def games() -> dict[str, GamePage]:
    """The page of every registered game, by kind."""
    return _PAGES
