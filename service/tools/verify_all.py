"""``playlog verify --all``: every stored game re-executed under the running code, with a
progress bar; one line per game that diverges (its first divergent seq, and whether its outcome
would change), then a summary (service/app/reverify.py)."""

from __future__ import annotations

from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from service.app.reverify import Reverified, reverify_all


async def verify_all(conn: Any, *, every: bool = False) -> list[Reverified]:
    """Re-execute every game on ``conn``; echo each divergent game (``every``: each game)."""
    found: list[Reverified] = []
    columns = (TextColumn("re-executing games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("verify", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        async for verdict in reverify_all(conn, progress):
            found.append(verdict)
            if every or not verdict.ok:
                bar.console.print(verdict.line(), markup=False, highlight=False, soft_wrap=True)
    diverged = [v for v in found if not v.ok]
    levels = {level: sum(1 for v in found if v.level == level) for level in ("re-executed", "replayed")}
    changed = sum(1 for v in diverged if v.outcome_changes)
    click.echo(
        f"{len(found)} games: {levels['re-executed']} re-executed, {levels['replayed']} replayed;"
        f" {len(diverged)} diverge ({changed} with another outcome)"
    )
    return found
