"""``OPTIONS``: the ``Allow`` header lists every method of the path.

Litestar builds a path's automatic OPTIONS handler when the path's first handlers register and
keeps it when more register on the same path later, so ``OPTIONS /games`` listed POST but not GET.
This middleware answers OPTIONS itself, from the routes as finally built.
"""

from __future__ import annotations

from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send


def allowed_methods(app: Any) -> dict[str, str]:
    """``path_format -> "GET, OPTIONS, POST"`` for every HTTP route of ``app``."""
    return {
        route.path_format: ", ".join(sorted(route.methods))
        for route in app.routes
        if hasattr(route, "methods")
    }


def options_middleware(app: ASGIApp) -> ASGIApp:
    cache: dict[int, dict[str, str]] = {}

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope.get("method") != "OPTIONS":
            await app(scope, receive, send)
            return
        litestar_app = scope["litestar_app"]
        allowed = cache.get(id(litestar_app))
        if allowed is None:
            allowed = cache[id(litestar_app)] = allowed_methods(litestar_app)
        methods = allowed.get(scope.get("path_template", ""))
        if methods is None:
            await app(scope, receive, send)
            return
        await send(
            {
                "type": "http.response.start",
                "status": 204,
                "headers": [(b"allow", methods.encode()), (b"content-length", b"0")],
            }
        )
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return middleware
