"""docs/api.md runs as written: every shell block of the walk-through, in order, in one bash.

The page's blocks are run one after the other by a single ``bash`` (so the variables a block sets,
``GAME``, ``T0``, ``MOD`` ..., are there for the next), with ``curl`` against a fresh live server
and ``playlog`` for the operator's commands. The answer the page shows after a block (the fenced
blocks that follow it with no prose between) is compared with what the block printed, once both
are masked (ids, times, tokens, hashes and signatures) and their whitespace around JSON's
punctuation dropped (the page pretty-prints long answers); ``…`` on the page stands for anything.
A section added to the page is run and compared the same way, with nothing to add here.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from service.config import Settings
from service.http.fast.serving import uvicorn_options
from tests.conftest import live_server

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
PAGE_URL = "http://127.0.0.1:8000"  # where the page's reader runs `make serve`
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```\n", re.MULTILINE | re.DOTALL)
MARK = "#<<walkthrough block {n} done>>"

# What changes from one run to the next, on both sides: (pattern, placeholder).
MASKS = [
    (re.compile(r"eyJ[\w-]*…"), "<token>"),  # the page shortens tokens
    (re.compile(r"eyJ[\w-]+\.[\w-]+\.[\w-]+"), "<token>"),
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<id>"),
    (re.compile(r"\b[0-9a-f]{16,}\b"), "<hex>"),  # hashes, salts, commitments, occupancies, claims
    (re.compile(r"\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?Z?\b"), "<time>"),
    (re.compile(r"\b1\d{9}(\.\d+)?\b"), "<time>"),  # seconds since the epoch
    (re.compile(r"\b\d\d:\d\d:\d\d\.\d{3}\b"), "<clock>"),
    (re.compile(r"(?i)content-length: \d+"), "content-length: <n>"),
    (re.compile(r"Player [0-9a-f]{4}\b"), "Player <pseudonym>"),
]
PUNCTUATION = re.compile(r"\s*([{}\[\],:])\s*")


@dataclass
class Block:
    number: int
    script: str
    shown: str | None  # the answer the page shows, if it shows one
    line: int


def blocks(page: str) -> list[Block]:
    """The page's shell blocks, each with the answer shown right after it."""
    found: list[Block] = []
    fences = list(FENCE.finditer(page))
    for index, fence in enumerate(fences):
        if fence.group(1) != "sh":
            continue
        shown: list[str] = []
        end = fence.end()
        for after in fences[index + 1 :]:
            if after.group(1) == "sh" or page[end : after.start()].strip():
                break
            shown.append(after.group(2))
            end = after.end()
        line = page.count("\n", 0, fence.start()) + 1
        found.append(Block(len(found), fence.group(2), "".join(shown) if shown else None, line))
    return found


def normalized(text: str) -> str:
    text = text.replace("\r\n", "\n")
    for pattern, placeholder in MASKS:
        text = pattern.sub(placeholder, text)
    return PUNCTUATION.sub(r"\1", " ".join(text.split()))


def only_shown_headers(real: str, shown: str) -> str:
    """A `curl -i` answer's headers, only those the page shows (dates and the like vary)."""
    names = {line.split(":", 1)[0].lower() for line in shown.splitlines() if re.match(r"^[\w-]+: ", line)}
    lines = real.replace("\r\n", "\n").split("\n")
    kept, in_head = [], False
    for line in lines:
        if line.startswith("HTTP/1.1 "):
            in_head = True
        elif in_head and not line:
            in_head = False
        elif in_head and line.split(":", 1)[0].lower() not in names:
            continue
        kept.append(line)
    return "\n".join(kept)


def matches(shown: str, real: str) -> bool:
    pattern = "".join(
        ".*?" if part == "…" else re.escape(part)
        for part in re.split("(…)", re.sub(r" ?… ?", "…", normalized(shown)))
    )
    return re.fullmatch(pattern, normalized(only_shown_headers(real, shown)), re.DOTALL) is not None


async def run_page(url: str, settings: Settings, workdir: Path) -> list[str]:
    """Every shell block in one bash, in order; what each printed."""
    page_blocks = blocks(PAGE.read_text())
    script = "".join(
        f"{block.script.replace(PAGE_URL, url)}\necho '{MARK.format(n=block.number)}'\n"
        for block in page_blocks
    )
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",  # playlog, python3
        "PLAYLOG_DATABASE_URL": settings.database_url or "",
        "PLAYLOG_JWT_SECRET": settings.jwt_secret,
        "PLAYLOG_DATA_DIR": str(settings.data_dir),
    }
    process = await asyncio.create_subprocess_exec(
        "bash",
        "-c",
        script,
        cwd=workdir,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    printed = out.decode()
    outputs = []
    for block in page_blocks:
        before, mark, printed = printed.partition(MARK.format(n=block.number) + "\n")
        assert mark, f"the page's block at line {block.line} never finished:\n{before[-3000:]}"
        outputs.append(before)
    return outputs


async def test_the_walkthrough_runs_as_written(settings: Settings, tmp_path: Path) -> None:
    page_blocks = blocks(PAGE.read_text())
    assert len(page_blocks) > 20
    async with live_server(settings, **uvicorn_options(settings, in_process=True)) as url:
        outputs = await run_page(url, settings, tmp_path)
    differences = [
        f"docs/api.md line {block.line}:\n{block.script}\n--- shown:\n{block.shown}\n--- real:\n{real}"
        for block, real in zip(page_blocks, outputs, strict=True)
        if block.shown is not None and not matches(block.shown, real)
    ]
    if differences:
        pytest.fail(f"{len(differences)} answers differ from the page:\n\n" + "\n\n".join(differences))


def test_the_comparison_masks_what_varies_and_nothing_else() -> None:
    shown = (
        '{\n  "game_id": "dd36af59-5eb4-4a43-8d3c-98f6642000e6",\n'
        '  "token": "eyJhbGciOiJ…",\n  "moves": [\n    …\n  ]\n}'
    )
    real = (
        '{"game_id":"0b6e3f4c-5d1a-4a8e-9c2f-7e1d3b5a9c40",'
        '"token":"eyJa.eyJb.sig","moves":[{"type":"DrawCard"}]}'
    )
    assert matches(shown, real)
    assert not matches(shown, real.replace("game_id", "game"))
    head = "HTTP/1.1 201 Created\ncontent-type: application/json\n\n{}"
    assert matches(head, "HTTP/1.1 201 Created\r\ndate: today\r\ncontent-type: application/json\r\n\r\n{}")
    assert not matches(head, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{}")
