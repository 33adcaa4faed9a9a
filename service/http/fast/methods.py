"""``OPTIONS``: the ``Allow`` header lists every method of the path.

Litestar builds a path's automatic OPTIONS handler when the path's first handlers register and
keeps it when more register on the same path later, so ``OPTIONS /games`` listed POST but not GET.
The edge layer (service/http/fast/edge.py) answers OPTIONS itself, from the routes as finally built.
"""

from __future__ import annotations

from typing import Any


def allowed_methods(app: Any) -> dict[str, str]:
    """``path_format -> "GET, OPTIONS, POST"`` for every HTTP route of ``app``."""
    return {
        route.path_format: ", ".join(sorted(route.methods))
        for route in app.routes
        if hasattr(route, "methods")
    }
