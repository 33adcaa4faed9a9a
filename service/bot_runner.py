"""``playlog bots``: N bot games against a running server, a progress bar and a summary."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from service.bot import GameReport, play_game
from service.client import ApiError, PlaylogClient


async def run_bots(
    url: str,
    kind: str,
    options: dict[str, Any],
    count: int,
    concurrency: int,
    seed: int | None = None,
) -> bool:
    console = Console(stderr=True)
    rng = random.Random(seed)
    reports: list[GameReport] = []
    failures: list[str] = []
    gate = asyncio.Semaphore(max(1, concurrency))
    started = time.perf_counter()
    limits = httpx.Limits(max_connections=max(10, concurrency * 8))
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        api = PlaylogClient(url, http=http)
        with Progress(
            TextColumn("[bold]bot games"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[commands]} commands"),
            console=console,
        ) as progress:
            task = progress.add_task("games", total=count, commands=0)

            async def one(n: int) -> None:
                async with gate:
                    try:
                        report = await play_game(api, kind, options, rng=random.Random(rng.random() + n))
                        reports.append(report)
                    except (ApiError, httpx.HTTPError) as exc:
                        failures.append(f"{type(exc).__name__}: {exc}")
                    progress.update(task, advance=1, commands=sum(r.commands for r in reports))

            await asyncio.gather(*(one(n) for n in range(count)))
    elapsed = time.perf_counter() - started
    commands = sum(r.commands for r in reports)
    unfinished = [r for r in reports if not r.finished]
    unverified = [r for r in reports if r.finished and not r.verified]
    errors = sum(len(r.errors) for r in reports) + len(failures)
    summary = Table(title=f"{kind}, {options.get('players')} players")
    for column in ("games", "finished", "commands", "errors", "chains verified", "commands/s"):
        summary.add_column(column, justify="right")
    summary.add_row(
        str(count),
        str(count - len(unfinished) - len(failures)),
        str(commands),
        str(errors),
        str(len(reports) - len(unverified) - len(unfinished)),
        f"{commands / elapsed:.1f}" if elapsed else "-",
    )
    Console().print(summary)
    for report in unfinished + unverified:
        console.print(f"[red]game {report.game_id}: finished={report.finished} verified={report.verified}")
        for error in report.errors[:5]:
            console.print(f"  {error}")
    for failure in failures[:5]:
        console.print(f"[red]{failure}")
    return not unfinished and not unverified and not failures
