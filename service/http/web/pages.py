"""The HTML pages: home, play, a player's games, watch, moderate (a game, the dispute queue, a
dispute), replay (kept out of the OpenAPI document).

Each page is a server-rendered shell; its script reads the public JSON API with the tokens the
browser tab holds (``sessionStorage``), so a page can never show more than the API would. Tokens
never travel in a page's URL: the server never sees them outside an ``Authorization`` header.

How each game looks (its table, its commands in words, its options) is the game's own page,
in its folder (``domain/<game>/page/``, found by pages/ through the registry): its script is
served as ``/static/games/<kind>.js`` and its options fields are included in the create form, for
every game of the registry. Static files are
named with their content hash (service/http/web/assets.py).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, get_args

from litestar import Controller, MediaType, Router, get
from litestar.contrib.jinja import JinjaTemplateEngine
from litestar.exceptions import NotFoundException
from litestar.response import Template
from litestar.template.config import TemplateConfig

import pages
from domain.access import REASONS
from domain.disputes.events import Category
from domain.table.commands import NAME_LENGTH
from domain.text import NAME_PATTERN
from service.http.web.assets import static_file, static_url

HERE = Path(__file__).parent
# The API walk-through, docs/api.md: the wheel's copy beside the pages (setup.py), else the source
# tree's own.
WALKTHROUGH = next(
    (path for path in (HERE / "docs" / "api.md", HERE.parents[2] / "docs" / "api.md") if path.is_file()),
    None,
)

template_config = TemplateConfig(
    directory=[HERE / "templates", *pages.template_roots()], engine=JinjaTemplateEngine
)

# Each registered game's title, by kind: the pages name no game themselves.
KINDS = {kind: page.title for kind, page in pages.games().items()}


# The categories a dispute may have, as the disputes decider lists them.
CATEGORIES = get_args(Category)


def _page(name: str, **context: Any) -> Template:
    return Template(
        template_name=name,
        context={"kinds": KINDS, "game_pages": pages.games(), "static_url": static_url, **context},
    )


class PagesController(Controller):
    include_in_schema = False

    @get("/", name="home")
    async def home(self) -> Template:
        """The lobby; its script lists the public games (GET /games) and keeps the list fresh.
        A name is checked in the page by the server's own rule before a game is created."""
        return _page("home.html", page="home", name_pattern=NAME_PATTERN, name_length=NAME_LENGTH[1])

    @get("/walkthrough", name="walkthrough", media_type=MediaType.TEXT)
    async def walkthrough(self) -> str:
        """The API walk-through (docs/api.md), as plain text."""
        if WALKTHROUGH is None:  # a copy of the code without its documents (not a wheel, not a clone)
            raise NotFoundException("The walk-through is docs/api.md in the repository.")
        return WALKTHROUGH.read_text(encoding="utf-8")

    @get("/play/{game_id:uuid}/{seat:int}", name="play")
    async def play(self, game_id: uuid.UUID, seat: int) -> Template:
        return _page("play.html", game_id=game_id, seat=seat, page="play", categories=CATEGORIES)

    @get("/me", name="me")
    async def me(self) -> Template:
        """A player's games, with a way back to each seat it holds (its player token in the tab)."""
        return _page("me.html", page="me")

    @get("/watch/{game_id:uuid}", name="watch")
    async def watch(self, game_id: uuid.UUID) -> Template:
        return _page("watch.html", game_id=game_id, page="watch")

    @get("/moderate/disputes", name="disputes")
    async def disputes(self) -> Template:
        """The moderators' queue; without a moderator token in the tab it shows no dispute."""
        return _page("disputes.html", page="disputes", categories=CATEGORIES)

    @get("/moderate/disputes/{dispute_id:uuid}", name="dispute")
    async def dispute(self, dispute_id: uuid.UUID) -> Template:
        return _page("dispute.html", dispute_id=dispute_id, page="dispute")

    @get("/moderate/{game_id:uuid}", name="moderate")
    async def moderate(self, game_id: uuid.UUID) -> Template:
        return _page("moderate.html", game_id=game_id, page="moderate", reasons=REASONS)

    @get("/replay/{game_id:uuid}", name="replay")
    async def replay(self, game_id: uuid.UUID) -> Template:
        return _page("replay.html", game_id=game_id, page="replay", categories=CATEGORIES)


pages_router = Router(path="/", route_handlers=[PagesController, static_file], include_in_schema=False)
