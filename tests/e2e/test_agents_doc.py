"""docs/agents.md runs as written: its shell block seats a computer player in a live server's
game (the page's ``$URL``, ``$GAME`` and ``$HOST`` given as the walk-through defines them)."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import httpx

PAGE = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


async def test_the_agents_page_seats_a_computer_player_as_written(server_url: str) -> None:
    blocks = re.findall(r"```sh\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert blocks, "docs/agents.md has no shell block"
    async with httpx.AsyncClient(base_url=server_url) as http:
        created = (
            await http.post(
                "/games", json={"kind": "a_risk_cat", "options": {"players": 3}, "spectator_delay": 0}
            )
        ).json()
    env = {**os.environ, "URL": server_url, "GAME": created["game_id"], "HOST": created["host_token"]}
    process = await asyncio.create_subprocess_exec(
        "bash", "-euo", "pipefail", "-c", "\n".join(blocks), env=env, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await process.communicate()
    assert process.returncode == 0
    seated = json.loads(out)
    assert seated["seat"] == 0 and seated["name"] == "Computer (normal)"
