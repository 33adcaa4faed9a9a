"""Each game's page, found through the registry: how its views, commands and options look in a
browser.

A game's folder (``domain/<game>/``: ``registry.folder``) holds its page in ``page/``:
``page.js`` (registered in the browser with ``PL.registerGame``: its table, what a seat alone
knows, its commands in words, its deadlines, its create-form options) and ``options.html`` (the
create form's fields for its own options). The service serves them for every game of the
registry (service/http/web/pages.py) and names none. Presentation only: no rule lives in a page,
and nothing in one is trusted by the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from domain import registry


@dataclass(frozen=True)
class GamePage:
    kind: str
    title: str
    script: Path  # <the game's folder>/page/page.js
    options: str  # the options fields' template, relative to one of ``template_roots()``


def _pages() -> dict[str, GamePage]:
    """The page of every registered game (a game without one is a programming error)."""
    found = {}
    for kind, decider in registry.games().items():
        here = registry.folder(kind)
        script = here / "page" / "page.js"
        if not script.is_file():
            raise LookupError(f"The game {kind!r} has no page: {script} is missing.")
        title = decider.about.title if decider.about else kind
        found[kind] = GamePage(kind, title, script, f"{here.name}/page/options.html")
    return found


_PAGES = _pages()  # built once, with the registry's kinds


def games() -> dict[str, GamePage]:
    """The page of every registered game, by kind."""
    return _PAGES


def template_roots() -> list[Path]:
    """Where the games' options templates are found: the directory that holds each game's folder."""
    return sorted({registry.folder(kind).parent for kind in _PAGES})
