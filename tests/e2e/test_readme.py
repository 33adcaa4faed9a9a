"""The README's minute of curl runs as written against a live server: every command succeeds
(`curl -f`), the move is answered, and the other seat's events hide the drawn card."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def the_minute_of_curl() -> str:
    section = README.read_text(encoding="utf-8").split("## One minute of curl", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    assert block, "README.md's 'One minute of curl' has no sh block"
    return block.group(1)


async def test_the_readme_s_minute_of_curl_runs_as_written(server_url: str) -> None:
    script = the_minute_of_curl()
    assert "URL=http://127.0.0.1:8000\n" in script
    script = script.replace("URL=http://127.0.0.1:8000\n", f"URL={server_url}\n")
    process = await asyncio.create_subprocess_exec(
        "bash",
        "-euo",
        "pipefail",
        "-c",
        script,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    answers, text, at = [], out.decode(), 0
    decoder = json.JSONDecoder()
    while at < len(text):  # curl prints the answers back to back, without new lines
        answer, at = decoder.raw_decode(text, at)
        answers.append(answer)
        at += len(text[at:]) - len(text[at:].lstrip())
    started, view, move, bobs_events = answers
    assert started["status"] == "running"
    assert view["seat"] == 0 and view["view"]["hand"]
    drawn = next(e for e in move["events"] if e["type"] == "CardDrawn")
    assert drawn["data"]["card"]
    seen_by_bob = next(e for e in bobs_events if e["type"] == "CardDrawn")
    assert seen_by_bob["data"].get("card") is None
