"""Abuse limits inside the app: request rates (Litestar's rate-limit middleware) and SSE streams.

Unauthenticated writes (creating a game, taking a seat) are counted per client address, commands
per seat token; past the limit: 429 ``too_many_requests`` with ``Retry-After`` (service/errors.py
adds it from the middleware's ``RateLimit-Reset``). Open streams are counted per instance; past
the cap: 503 ``too_many_streams``. Connections and header timeouts are the server's: service/serving.py.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any, cast, get_args

from litestar import Request
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import (
    DURATION_VALUES,
    CacheObject,
    DurationUnit,
    RateLimitConfig,
    RateLimitMiddleware,
    get_remote_address,
)
from litestar.stores.base import Store
from litestar.stores.memory import MemoryStore
from litestar.types import Receive, Scope, Send

from service.errors import ServiceError

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


def _operation(scope: Scope) -> str | None:
    operation = getattr(scope.get("route_handler"), "operation_id", None)
    return operation if isinstance(operation, str) else None


class Applies:
    """The throttle check of a limit: the request is one of ``operations``."""

    def __init__(self, operations: frozenset[str]) -> None:
        self.operations = operations

    # Async: Litestar runs a sync check in a worker thread, a thread hop for every request.
    async def __call__(self, request: Request[Any, Any, Any]) -> bool:
        return _operation(request.scope) in self.operations


_is_write = Applies(WRITES)
_is_command = Applies(COMMANDS)


def _client(request: Request[Any, Any, Any]) -> str:
    return f"writes:{get_remote_address(request)}"


def _seat_token(request: Request[Any, Any, Any]) -> str:
    token = request.headers.get("authorization")
    if not token:  # refused with 401 anyway; counted against its address meanwhile
        return f"commands:{get_remote_address(request)}"
    return "commands:" + hashlib.blake2b(token.encode(), digest_size=16).hexdigest()


SWEEP_SECONDS = 60.0


class SweepingRateLimitMiddleware(RateLimitMiddleware):
    """Litestar's, sweeping expired counters now and then: the in-memory store drops an expired
    key only when it is read again, and most seat tokens are never seen again after their game."""

    swept_at = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A request its limit does not apply to passes straight on: Litestar's middleware would
        # build a Request for it (kept for a stream's whole life) only to ask the check.
        applies = self.check_throttle_handler
        if isinstance(applies, Applies) and _operation(scope) not in applies.operations:
            await self.app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    async def set_cached_history(self, key: str, cache_object: CacheObject, store: Store) -> None:
        await super().set_cached_history(key, cache_object, store)
        now = time.monotonic()
        if now - self.swept_at >= SWEEP_SECONDS and isinstance(store, MemoryStore):
            self.swept_at = now
            await store.delete_expired()


def rate_limits(writes: str, commands: str) -> list[DefineMiddleware]:
    """The rate-limit middlewares for the configured rates (none for a rate that is off)."""
    middleware = []
    for rate, applies, identify in ((writes, _is_write, _client), (commands, _is_command, _seat_token)):
        parsed = parse_rate(rate)
        if parsed is not None:
            config = RateLimitConfig(
                rate_limit=parsed,
                check_throttle_handler=applies,
                identifier_for_request=identify,
                middleware_class=SweepingRateLimitMiddleware,
            )
            middleware.append(config.middleware)
    return middleware


def window_seconds(rate: str) -> int:
    parsed = parse_rate(rate)
    return DURATION_VALUES[parsed[0]] if parsed else 0


class StreamSlots:
    """At most ``limit`` open streams. A stream takes a slot before it opens and gives it back
    however it ends (service/sse.py's response sees to it: no wrapper around every stream)."""

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
