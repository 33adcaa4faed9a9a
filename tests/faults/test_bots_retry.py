"""``playlog bots`` rides out an instance that is not answering yet, and reports its retries."""

from __future__ import annotations

import asyncio

import pytest
import uvicorn

from service.config import Settings
from service.http.app import create_app
from service.tools.bot_runner import run_bots
from tests.faults.processes import free_port


async def test_bots_retry_until_the_instance_answers_and_report_the_retries(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # Short pauses, many of them: the same ride-out in a fraction of the real backoff's time.
    bots = asyncio.create_task(
        run_bots(
            url,
            "exploding_kittens",
            {"players": 2, "reaction_window": 0},
            2,
            2,
            7,
            retries=400,
            first_pause=0.02,
            max_pause=0.05,
        )
    )
    await asyncio.sleep(0.3)  # the outage: every connection refused meanwhile (a span, not a wait)
    assert not bots.done()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(240):
            assert await bots  # every game finished, every chain verified
    finally:
        server.should_exit = True
        await serving
    summary = capsys.readouterr().out
    assert "retries" in summary
    row = next(line for line in summary.splitlines() if line.startswith("│"))  # the one data row
    cells = [cell.strip() for cell in row.strip("│").split("│")]
    assert int(cells[4]) > 0  # games, finished, commands, errors, retries, ...
