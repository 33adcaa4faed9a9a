"""The deployment's recorded identity (migration 0020): the public form of each shared setting.

``settle`` records what is not recorded yet and answers the record, under a transaction-level
advisory lock so that instances starting at once on a new database record one identity, not a
mix of theirs. ``replace`` changes recorded values on purpose (a rotation).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

IDENTITY_LOCK = 0x706C_6179_0004  # next to the sequencer's and the projector's advisory locks


async def settle(conn: Any, identity: Mapping[str, str]) -> dict[str, tuple[str, datetime]]:
    """Record the settings of ``identity`` not recorded yet; the whole record, with when each was."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", IDENTITY_LOCK)
        await conn.execute(
            "INSERT INTO deployment_identity (setting, value) SELECT * FROM unnest($1::text[], $2::text[])"
            " ON CONFLICT (setting) DO NOTHING",
            list(identity),
            list(identity.values()),
        )
        return await recorded(conn)


async def value(db: Any, setting: str) -> str | None:
    """One recorded value (``db``: a pool or a connection), None before the first start."""
    found: str | None = await db.fetchval("SELECT value FROM deployment_identity WHERE setting = $1", setting)
    return found


async def recorded(conn: Any) -> dict[str, tuple[str, datetime]]:
    rows = await conn.fetch("SELECT setting, value, recorded_at FROM deployment_identity")
    return {r["setting"]: (r["value"], r["recorded_at"]) for r in rows}


async def replace(conn: Any, identity: Mapping[str, str]) -> None:
    """Record these values in place of the recorded ones (the others stay as they are)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", IDENTITY_LOCK)
        await conn.execute(
            "INSERT INTO deployment_identity (setting, value) SELECT * FROM unnest($1::text[], $2::text[])"
            " ON CONFLICT (setting) DO UPDATE SET value = excluded.value, recorded_at = now()",
            list(identity),
            list(identity.values()),
        )
