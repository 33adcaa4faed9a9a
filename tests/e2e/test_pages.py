"""The web pages over HTTP (no browser): security headers, no inline script, escaping, schema.

The browser tests (tests/browser) drive the same pages in chromium.
"""

from __future__ import annotations

import hashlib
import re
import uuid

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.tools.client import PlaylogClient
from tests.e2e.test_listing import eventually

EVIL = "<img src=x onerror=alert(1)>"
GAME = uuid.uuid4()
DISPUTE = uuid.uuid4()
PAGES = [
    "/",
    f"/play/{GAME}/0",
    f"/watch/{GAME}",
    f"/moderate/{GAME}",
    f"/replay/{GAME}",
    "/moderate/disputes",
    f"/moderate/disputes/{DISPUTE}",
]


async def test_every_page_is_html_with_a_strict_content_security_policy_and_no_inline_script(
    http: AsyncTestClient[Litestar],
) -> None:
    for path in PAGES:
        response = await http.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html")
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        scripts = re.findall(r"<script\b[^>]*>", response.text)
        # A game's page is games/<kind>.js; each file is named with its content hash.
        served_script = re.compile(r'\bsrc="/static/(games/)?[a-z_]+\.js\?v=[0-9a-f]{16}"')
        assert scripts and all(served_script.search(tag) for tag in scripts), path
        assert not re.search(r"<[^>]+\son[a-z]+=", response.text), path  # no inline handlers
        for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', response.text):
            served = await http.get(asset)
            assert served.status_code == 200, asset
            assert served.headers["x-content-type-options"] == "nosniff"


async def test_static_files_are_gzipped_and_cacheable_for_good_under_their_content_hash(
    http: AsyncTestClient[Litestar],
) -> None:
    page = (await http.get(f"/play/{GAME}/0")).text
    assets = re.findall(r'(?:src|href)="(/static/[^"?]+)\?v=([0-9a-f]+)"', page)
    assert {"/static/app.css", "/static/play.js", "/static/games/exploding_kittens.js"} <= {
        a for a, _ in assets
    }
    for asset, version in assets:
        served = await http.get(f"{asset}?v={version}", headers={"Accept-Encoding": "gzip"})
        assert served.status_code == 200, asset
        assert served.headers["content-encoding"] == "gzip", asset
        assert (
            "immutable" in served.headers["cache-control"]
            and "max-age=31536000" in served.headers["cache-control"]
        )
        assert "accept-encoding" in served.headers["vary"].lower()
        assert hashlib.sha256(served.content).hexdigest()[:16] == version  # the client unzipped it
        plain = await http.get(f"{asset}?v={version}", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == served.content
    # An address without the current hash is never kept: the next visit asks again.
    stale = await http.get("/static/app.css?v=0000000000000000")
    assert stale.headers["cache-control"] == "no-cache"
    assert (await http.get("/static/nothing.js")).status_code == 404


async def test_the_json_api_carries_the_same_security_headers(http: AsyncTestClient[Litestar]) -> None:
    response = await http.get("/games")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]


async def test_pages_are_not_in_the_openapi_document(http: AsyncTestClient[Litestar]) -> None:
    paths = (await http.get("/schema/openapi.json")).json()["paths"]
    assert not [
        p for p in paths if p == "/" or p.split("/")[1] in {"play", "watch", "moderate", "replay", "static"}
    ]


async def test_the_home_page_sends_no_display_name_in_its_html(
    http: AsyncTestClient[Litestar], api: PlaylogClient
) -> None:
    """The public games are drawn by the page's script from ``GET /games``, as text (the browser
    test ``test_a_display_name_with_markup_stays_inert_on_every_page`` shows it inert): the
    page's own HTML never holds a name, escaped or not."""
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    await api.join(created.game_id, EVIL)

    async def listed() -> bool:
        return any(EVIL in (g["seats"] or []) for g in (await http.get("/games")).json()["games"])

    await eventually(listed)
    html = (await http.get("/")).text
    assert EVIL not in html and "onerror" not in html


async def test_a_moderator_page_holds_nothing_of_the_game(
    http: AsyncTestClient[Litestar], api: PlaylogClient
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2}, public=False)
    await api.join(created.game_id, "secret-alice")
    page = (await http.get(f"/moderate/{created.game_id}")).text
    assert "secret-alice" not in page
