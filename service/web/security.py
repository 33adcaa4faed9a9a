"""Security headers on every response: a strict Content-Security-Policy and friends.

The pages load scripts, styles and data from the app only (no inline script, no CDN), cannot be
framed, and never send their URL elsewhere. ``/schema`` (Litestar's own docs pages, which load
their renderers from a CDN) keeps its defaults.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


def security_headers(app: ASGIApp) -> ASGIApp:
    """ASGI middleware factory adding ``HEADERS`` to every HTTP response outside ``/schema``."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["path"].startswith("/schema"):
            await app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await app(scope, receive, send_with_headers)

    return middleware
