"""The pages' static files (service/http/web/static/ and each game's page script), served compressed
and cacheable for a year: a page names each file with its content hash (``?v=<hash>``), so a
changed file is a new URL and a browser never keeps a stale copy.

The files are few and small: they are read, hashed and gzipped once, when first asked for.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from litestar import Request, Response, get
from litestar.exceptions import NotFoundException

import pages

STATIC = Path(__file__).parent / "static"
STATIC_PATH = "/static"
# Hashed URLs never change content, so a browser may keep them without asking again.
CACHE_FOR_GOOD = "public, max-age=31536000, immutable"
# An address without (or with a stale) hash is asked again each time.
CACHE_ASK_AGAIN = "no-cache"
TYPES = {".js": "text/javascript", ".css": "text/css"}


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes
    media_type: str
    version: str  # the content hash the pages put in its URL


def _asset(path: Path) -> Asset:
    body = path.read_bytes()
    media_type = TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    # mtime=0: the same file always gzips to the same bytes.
    return Asset(
        body, gzip.compress(body, compresslevel=9, mtime=0), media_type, hashlib.sha256(body).hexdigest()[:16]
    )


@cache
def assets() -> dict[str, Asset]:
    """Every static file by its name under /static/ (a game's script as ``games/<kind>.js``)."""
    found = {path.name: _asset(path) for path in sorted(STATIC.iterdir()) if path.is_file()}
    found |= {f"games/{kind}.js": _asset(page.script) for kind, page in pages.games().items()}
    return found


def static_url(name: str) -> str:
    """The URL a page names a static file by: its path and its content hash."""
    return f"{STATIC_PATH}/{name}?v={assets()[name].version}"


@get(f"{STATIC_PATH}/{{name:path}}", name="static", include_in_schema=False)
async def static_file(request: Request[Any, Any, Any], name: str) -> Response[bytes]:
    asset = assets().get(name.lstrip("/"))
    if asset is None:
        raise NotFoundException(f"No static file {name}.")
    fresh = request.query_params.get("v") == asset.version
    headers = {"Cache-Control": CACHE_FOR_GOOD if fresh else CACHE_ASK_AGAIN, "Vary": "Accept-Encoding"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        headers["Content-Encoding"] = "gzip"
        return Response(asset.gzipped, media_type=asset.media_type, headers=headers)
    return Response(asset.body, media_type=asset.media_type, headers=headers)
