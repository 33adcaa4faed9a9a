"""Security headers on every response: a strict Content-Security-Policy and friends.

The pages load scripts, styles and data from the app only (no inline script, no CDN), cannot be
framed, and never send their URL elsewhere. ``/schema`` (Litestar's own docs pages, which load
their renderers from a CDN) keeps its defaults. The edge layer (service/http/fast/edge.py) adds them.
"""

from __future__ import annotations

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
