"""What PostgreSQL was doing besides serving commands, sampled while a bench runs.

Latency tails on this machine come in bursts that the service does not cause: autovacuum's
ANALYZE of a table that grew by a tenth, and commits waiting on the WAL flush when the disk's
fsync is slow. ``Activity`` samples ``pg_stat_activity`` every 50 ms from a process of its own
(not on the driver's event loop, whose delays would count as latency), so that a bench can print,
next to each figure, how much of its window overlapped each.

Run on its own: ``.venv/bin/python bench/lib/pgactivity.py ADMIN_URL OUT.jsonl`` (until terminated).
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import asyncpg

INTERVAL = 0.05
# Client backends waiting for their commit's WAL to reach the disk.
WAL_FLUSH = ("WalSync", "WALSync", "WALWrite", "WalWrite")
QUERY = """
SELECT backend_type, wait_event, left(query, 80) AS query
FROM pg_stat_activity
WHERE pid <> pg_backend_pid()
  AND (backend_type = 'autovacuum worker' OR (backend_type = 'client backend' AND state = 'active'))
"""


async def _sample(url: str, out: Path) -> None:
    conn = await asyncpg.connect(url)
    with out.open("w") as sink:
        while True:
            rows = await conn.fetch(QUERY)
            vacuum = [r["query"] for r in rows if r["backend_type"] == "autovacuum worker"]
            clients = [r for r in rows if r["backend_type"] == "client backend"]
            flush = sum(1 for r in clients if r["wait_event"] in WAL_FLUSH)
            sink.write(json.dumps({"t": time.time(), "autovacuum": vacuum, "wal_flush": flush}) + "\n")
            sink.flush()
            await asyncio.sleep(INTERVAL)


@dataclass
class Overlap:
    autovacuum_s: float  # seconds of the window with an autovacuum worker running
    analyzed: list[str]  # the tables it worked on
    wal_flush_s: float  # seconds of the window with a commit waiting on the WAL flush

    def describe(self) -> str:
        tables = ", ".join(self.analyzed) or "-"
        flush = f"commits on WAL flush {self.wal_flush_s:.1f} s"
        return f"autovacuum {self.autovacuum_s:.1f} s ({tables}); {flush}"


class Activity:
    """``with Activity(admin_url, path) as activity: ...; activity.during(t0, t1)``."""

    def __init__(self, admin_url: str, path: Path) -> None:
        self.admin_url = admin_url
        self.path = path
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Activity:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._proc = subprocess.Popen([sys.executable, __file__, self.admin_url, str(self.path)])
        return self

    def __exit__(self, *_: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait()

    def during(self, start: float, end: float) -> Overlap:
        samples = []
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                sample = json.loads(line)
                if start <= sample["t"] <= end:
                    samples.append(sample)
        tables: list[str] = []
        for sample in samples:
            for query in sample["autovacuum"]:
                named = re.search(r"(\w+\.\w+)", query or "")
                if named and named.group(1) not in tables:
                    tables.append(named.group(1))
        return Overlap(
            autovacuum_s=sum(1 for s in samples if s["autovacuum"]) * INTERVAL,
            analyzed=tables,
            wal_flush_s=sum(1 for s in samples if s["wal_flush"]) * INTERVAL,
        )


if __name__ == "__main__":
    asyncio.run(_sample(sys.argv[1], Path(sys.argv[2])))
