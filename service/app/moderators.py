"""Moderators by name: their tokens are issued and revoked by the CLI, recorded in ``moderators``.

A revoked name's tokens issued up to the revocation are refused; a token issued later for the
same name works again. Every instance keeps the revoked names a few seconds; the CLI notifies
``auth:moderators`` after a revocation, which empties that cache on every instance at once (the
cache's age bounds the delay when a notification is lost).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from datetime import datetime

import asyncpg
import msgspec

from service.app import auth
from service.app.auth import Keyring, Principal
from service.app.errors import ServiceError
from service.store.notifications import notify_auth
from service.store.pool import Pool

AUTH_TOPIC = "moderators"
NAME = re.compile(r"[A-Za-z0-9 ._@-]{1,60}")


class ModeratorRow(msgspec.Struct, frozen=True):
    name: str
    issued_at: datetime
    expires_at: datetime
    revoked_at: datetime | None


def revoked_error() -> ServiceError:
    return ServiceError(401, "token_revoked", "This token has been revoked.")


class Moderators:
    """The per-instance cache of revoked names, in front of the ``moderators`` table."""

    def __init__(self, pool: Pool, cache_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._pool = pool
        self._cache_seconds = cache_seconds
        self._clock = clock
        self._revoked: dict[str, float] | None = None
        self._fetched = 0.0
        self._lock = asyncio.Lock()
        self._generation = 0

    def invalidate(self) -> None:
        self._revoked = None
        self._generation += 1  # a read in flight may predate the change: it is not kept

    def on_auth(self, topic: str) -> None:
        """Listener callback: another process changed the moderators."""
        if topic == AUTH_TOPIC:
            self.invalidate()

    def _fresh(self) -> dict[str, float] | None:
        if self._revoked is not None and self._clock() - self._fetched < self._cache_seconds:
            return self._revoked
        return None

    async def _current(self) -> dict[str, float]:
        revoked = self._fresh()
        if revoked is not None:
            return revoked
        async with self._lock:  # one read of the table however many requests wait for it
            if (revoked := self._fresh()) is not None:
                return revoked
            fetched, generation = self._clock(), self._generation
            rows = await self._pool.fetch(
                "SELECT name, extract(epoch FROM revoked_at)::float8 AS at FROM moderators"
                " WHERE revoked_at IS NOT NULL"
            )
            revoked = {row["name"]: row["at"] for row in rows}
            if generation == self._generation:
                self._revoked, self._fetched = revoked, fetched
            return revoked

    async def check(self, principal: Principal) -> None:
        """401 unless this moderator token names a moderator whose name was not revoked since."""
        if not principal.name:
            raise ServiceError(401, "unauthorized", "A moderator token must name its moderator.")
        revoked_at = (await self._current()).get(principal.name)
        if revoked_at is not None and principal.issued_at <= revoked_at:
            raise revoked_error()


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise ValueError("a moderator's name has 1 to 60 letters, digits, spaces or ._@-")
    return name


async def issue(conn: asyncpg.Connection, keys: Keyring, name: str, ttl: float) -> str:
    """A moderator token for ``name`` valid ``ttl`` seconds, recorded as the name's latest."""
    check_name(name)
    revoked_at = await conn.fetchval(
        "SELECT extract(epoch FROM revoked_at)::float8 FROM moderators WHERE name = $1", name
    )
    if revoked_at is not None and int(time.time()) <= revoked_at:
        await asyncio.sleep(1.0)  # iat has whole seconds: be issued after the revocation
    now = time.time()
    token = auth.issue(keys, Principal(role="moderator", name=name), ttl, now=now)
    await conn.execute(
        "INSERT INTO moderators AS m (name, issued_at, expires_at)"
        " VALUES ($1, to_timestamp($2), to_timestamp($3))"
        " ON CONFLICT (name) DO UPDATE SET issued_at = EXCLUDED.issued_at,"
        " expires_at = greatest(m.expires_at, EXCLUDED.expires_at)",
        name,
        float(int(now)),
        float(int(now) + int(ttl)),
    )
    return token


async def revoke(conn: asyncpg.Connection, name: str) -> bool:
    """Refuse every token of ``name`` issued until now, on every instance; False if unknown."""
    done = await conn.fetchval(
        "UPDATE moderators SET revoked_at = now() WHERE name = $1 RETURNING true", name
    )
    await notify_auth(conn, AUTH_TOPIC)
    return bool(done)


# A name whose tokens were revoked and that holds none issued since.
_REVOKED = (
    "SELECT true FROM moderators WHERE name = $1 AND revoked_at IS NOT NULL AND revoked_at >= issued_at"
)


async def is_revoked(db: asyncpg.Connection | Pool, name: str) -> bool:
    """Whether ``name`` holds no token that works: every one it was issued has been revoked."""
    return bool(await db.fetchval(_REVOKED, name))


async def active(conn: asyncpg.Connection) -> list[ModeratorRow]:
    """Moderators holding a token that is neither expired nor revoked."""
    rows = await conn.fetch(
        "SELECT name, issued_at, expires_at, revoked_at FROM moderators"
        " WHERE expires_at > now() AND (revoked_at IS NULL OR revoked_at < issued_at) ORDER BY name"
    )
    return [ModeratorRow(**dict(row)) for row in rows]
