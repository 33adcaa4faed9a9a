"""Abuse limits inside the app: request rates (fixed windows, as Litestar's rate-limit middleware
counts them) and SSE streams.

Unauthenticated writes (creating a game, taking a seat) are counted per client address, commands
per seat token; past the limit: 429 ``too_many_requests`` with ``Retry-After``
(service/http/errors.py adds it from the middleware's ``RateLimit-Reset``). Open streams are
counted per instance; past the cap: 503 ``too_many_streams``. Connections and header timeouts are
the server's: service/http/fast/serving.py.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from time import time
from typing import Literal, cast, get_args

from litestar.exceptions import TooManyRequestsException
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import DURATION_VALUES, DurationUnit
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from service.app.errors import ServiceError
from service.runtime.headers import header

WRITES = frozenset({"createGame", "joinGame", "createPlayer"})  # the unauthenticated writes
COMMANDS = frozenset({"sendCommand"})
UNITS: tuple[str, ...] = get_args(DurationUnit)


def parse_rate(text: str) -> tuple[DurationUnit, int] | None:
    """``"100/second"`` -> ("second", 100); ``"off"`` or a count of 0 -> None (no limit)."""
    if text.strip().lower() in ("", "off", "0"):
        return None
    count, _, unit = text.partition("/")
    unit = unit.strip().lower() or "second"
    if unit not in UNITS or not count.strip().isdigit():
        raise ValueError(f"a rate is N/{'|'.join(UNITS)} or off, not {text!r}")
    return (cast(DurationUnit, unit), int(count)) if int(count) > 0 else None


def _operation(scope: Scope) -> str:
    operation = getattr(scope.get("route_handler"), "operation_id", None)
    return operation if isinstance(operation, str) else ""


def _address(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "127.0.0.1"  # as Litestar's get_remote_address


def _client(scope: Scope) -> str:
    return f"writes:{_address(scope)}"


def _seat_token(scope: Scope) -> str:
    token = header(scope, b"authorization")
    if not token:  # refused with 401 anyway; counted against its address meanwhile
        return f"commands:{_address(scope)}"
    return "commands:" + hashlib.blake2b(token.encode(), digest_size=16).hexdigest()


SWEEP_SECONDS = 60


class Windows:
    """Requests counted in fixed windows of ``seconds`` per identity, as Litestar's rate-limit
    middleware counts them: a window opens with an identity's first request and holds ``limit``.

    Expired windows are swept now and then: most seat tokens are never seen again after their game.
    """

    def __init__(self, limit: int, seconds: int) -> None:
        self.limit = limit
        self.seconds = seconds
        self.open: dict[str, list[int]] = {}  # identity -> [reset (epoch second), requests counted]
        self.swept_at = 0

    def take(self, identity: str, now: int) -> tuple[bool, int, int]:
        """Count a request of ``identity`` at ``now`` unless its window is full: (counted, the
        window's count after it, the window's reset)."""
        window = self.open.get(identity)
        if window is None or window[0] <= now:
            if now - self.swept_at >= SWEEP_SECONDS:
                self.swept_at = now
                self.open = {key: w for key, w in self.open.items() if w[0] > now}
            window = self.open[identity] = [now + self.seconds, 0]
        if window[1] >= self.limit:
            return False, window[1], window[0]
        window[1] += 1
        return True, window[1], window[0]


class Limit:
    """One rate: its windows, how a request's identity is told, and its ``RateLimit-*`` headers."""

    def __init__(self, rate: tuple[DurationUnit, int], identify: Callable[[Scope], str]) -> None:
        self.windows = Windows(rate[1], DURATION_VALUES[rate[0]])
        self.identify = identify
        self.policy = f"{rate[1]}; w={DURATION_VALUES[rate[0]]}"
        self.raw = [(b"ratelimit-policy", self.policy.encode()), (b"ratelimit-limit", b"%d" % rate[1])]

    def headers(self, count: int, reset: int) -> dict[str, str]:
        return {
            "RateLimit-Policy": self.policy,
            "RateLimit-Limit": str(self.windows.limit),
            "RateLimit-Remaining": str(max(0, self.windows.limit - count)),
            "RateLimit-Reset": str(reset - int(time())),
        }

    def raw_headers(self, count: int, reset: int) -> list[tuple[bytes, bytes]]:
        """``headers``, as a response's start message carries them."""
        remaining = max(0, self.windows.limit - count)
        return [
            *self.raw,
            (b"ratelimit-remaining", b"%d" % remaining),
            (b"ratelimit-reset", b"%d" % (reset - int(time()))),
        ]


class RateLimits:
    """ASGI middleware: each operation limited by its rate (one layer for all), with the
    ``RateLimit-*`` headers and the 429 of Litestar's ``RateLimitMiddleware``, which builds a
    Request, takes a lock and stores a JSON document of timestamps for each request it counts."""

    def __init__(self, app: ASGIApp, *, limits: dict[str, Limit]) -> None:
        self.app = app
        self.limits = limits  # by operation id; one for the app: Litestar builds a stack per route
        self.limit: Limit | Literal[False] | None = False  # this route's, once its first request told

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limit
        if limit is False:  # Litestar builds this layer for one route handler: one operation
            limit = self.limit = self.limits.get(_operation(scope))
        if limit is None:
            await self.app(scope, receive, send)
            return
        counted, count, reset = limit.windows.take(limit.identify(scope), int(time()))
        if not counted:  # service/http/errors.py adds Retry-After from RateLimit-Reset
            raise TooManyRequestsException(headers=limit.headers(count, reset))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *limit.raw_headers(count, reset)]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def rate_limits(writes: str, commands: str) -> list[DefineMiddleware]:
    """The rate-limit layer for the configured rates (none when every rate is off)."""
    limits: dict[str, Limit] = {}
    for rate, operations, identify in ((writes, WRITES, _client), (commands, COMMANDS, _seat_token)):
        parsed = parse_rate(rate)
        if parsed is not None:
            limit = Limit(parsed, identify)
            limits.update(dict.fromkeys(operations, limit))
    return [DefineMiddleware(RateLimits, limits=limits)] if limits else []


def window_seconds(rate: str) -> int:
    parsed = parse_rate(rate)
    return DURATION_VALUES[parsed[0]] if parsed else 0


class StreamSlots:
    """At most ``limit`` open streams. A stream takes a slot before it opens and gives it back
    however it ends (service/http/fast/sse.py's response sees to it: no wrapper around every stream)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0

    def take(self) -> None:
        """One slot for a stream about to open (503 too_many_streams when none is free)."""
        if self.open >= self.limit:
            raise ServiceError(
                503,
                "too_many_streams",
                f"This instance serves its maximum of {self.limit} streams; retry shortly.",
                headers={"Retry-After": "5"},
            )
        self.open += 1

    def give_back(self) -> None:
        self.open -= 1
