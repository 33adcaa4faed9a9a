"""Every stored game re-executed under the running code (``playlog verify --all``).

A code change that alters what a recorded command produces shows here: each game is exported
from the database (service/store/portable.py), verified with the server's own seed (so a
running game is re-executed whole, docs/export-format.md), and re-run as today's rules would
have played its commands, to say whether its outcome would change.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import msgspec

from projections.export import format as export_format
from projections.export import verify as export_verify
from projections.export.reexecute import rerun
from service.store import portable
from service.store.seeds import SeedStore


class Reverified(msgspec.Struct, frozen=True, kw_only=True):
    """One game's verdict under the running code."""

    game_id: str
    kind: str
    level: str  # re-executed | replayed
    ok: bool
    first_bad_seq: int | None = None
    reason: str | None = None
    # Whether today's rules, given the same commands, would reach another outcome (None: a
    # game without recorded commands, which cannot be re-run).
    outcome_changes: bool | None = None

    def line(self) -> str:
        if self.ok:
            return f"{self.game_id} {self.kind}: ok ({self.level})"
        change = {True: "changes", False: "unchanged", None: "unknown"}[self.outcome_changes]
        where = f"diverges at seq {self.first_bad_seq} ({self.reason})"
        return f"{self.game_id} {self.kind}: {where}; outcome {change}"


async def game_ids(db: Any) -> list[uuid.UUID]:
    return [row[0] for row in await db.fetch("SELECT game_id FROM streams ORDER BY game_id")]


async def reverify(db: Any, game_id: uuid.UUID) -> Reverified:
    lines = [line async for line in portable.export_lines(db, game_id, now=time.time(), access=False)]
    export = export_format.read(lines)
    seed = await SeedStore(db).of(game_id)
    report = export_verify.verify(export, server_seed=seed, accept=("replayed",))  # the level is shown
    first = min(report.findings, key=lambda f: f.seq, default=None)
    changes = None
    if report.level == "re-executed" and not report.ok:
        again = rerun(export, seed)
        was = (export.header.status, export.header.winners)
        now = (
            (again.status, list(again.outcome.winners) if again and again.outcome else None)
            if again
            else None
        )
        changes = now != was
    return Reverified(
        game_id=str(game_id),
        kind=report.kind,
        level=report.level,
        ok=report.ok,
        first_bad_seq=first.seq if first else None,
        reason=first.reason if first else None,
        outcome_changes=changes,
    )


async def reverify_all(
    db: Any, progress: Callable[[int, int], None] | None = None
) -> AsyncIterator[Reverified]:
    """Each stored game's verdict, in game id order; ``progress(done, total)`` after each."""
    ids = await game_ids(db)
    for done, game_id in enumerate(ids, start=1):
        yield await reverify(db, game_id)
        if progress is not None:
            progress(done, len(ids))
