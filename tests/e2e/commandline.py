"""The ``playlog`` command line run as a process against a test's database."""

from __future__ import annotations

import asyncio
import os
import sys

from service.config import Settings


async def playlog(settings: Settings, *args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The ``playlog`` command line against the test's database: exit code, output, errors
    (``env``: more of its environment)."""
    env = {
        **os.environ,
        "PLAYLOG_DATABASE_URL": str(settings.database_url),
        "PLAYLOG_JWT_SECRET": settings.jwt_secret,
        **(env or {}),
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "service.tools.cli",
        *args,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()
