"""playlog's transparency log checked by code nobody here wrote: golang.org/x/mod's
``sumdb/note`` and ``sumdb/tlog`` (Debian's golang-golang-x-mod-dev, built offline with Debian's
golang-go; .ci/run installs both). tests/reference/gocheck/main.go is built against the source
the package installs (a go.mod ``replace`` written here) and run against a live playlog whose log
two real ``playlog witness`` processes cosign: it opens the checkpoint and every receipt with
``note.Open``, recomputes the root from the hash tiles and from the entry bundles, checks each
game's heads come in order and its last head's inclusion (``tlog.CheckRecord``), and an older
checkpoint's consistency (``tlog.CheckTree``)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import random
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import asyncpg
import httpx

from projections.notes import COSIGNATURE_V1, Checkpoint, Note, Signer
from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.conftest import live_server
from tests.e2e.witnesses import witness_process

SOURCE = Path(__file__).parent.parent / "reference" / "gocheck" / "main.go"
WITNESSES = [Signer.generate(f"witness.test/w{n}", COSIGNATURE_V1) for n in (1, 2)]
DEADLINE = 60.0


def x_mod_source() -> Path:
    """Where Debian's golang-golang-x-mod-dev put golang.org/x/mod (``dpkg -L``)."""
    listed = subprocess.run(
        ["dpkg", "-L", "golang-golang-x-mod-dev"], capture_output=True, text=True, check=True
    ).stdout.split()
    (go_mod,) = [p for p in listed if p.endswith("/golang.org/x/mod/go.mod")]
    return Path(go_mod).parent


def build_checker(work: Path) -> Path:
    """The checker built offline: no proxy, no network, its own build cache."""
    go = shutil.which("go")
    assert go is not None, "Debian's golang-go is not installed (.ci/run installs it)"
    module = work / "gocheck"
    module.mkdir()
    shutil.copy(SOURCE, module / "main.go")
    (module / "go.mod").write_text(
        "module playlog.test/gocheck\n\ngo 1.19\n\nrequire golang.org/x/mod v0.0.0\n\n"
        f"replace golang.org/x/mod => {x_mod_source()}\n"
    )
    env = {
        **os.environ,
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOCACHE": str(work / "gocache"),
        "GOPATH": str(work / "gopath"),
    }
    built = subprocess.run(
        [go, "build", "-o", str(work / "gocheck-bin"), "."],
        cwd=module,
        env=env,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    return work / "gocheck-bin"


async def quiet_and_cosigned(http: httpx.AsyncClient, database_url: str, game_ids: list[uuid.UUID]) -> str:
    """The newest checkpoint once every game's current head is a leaf under it and both witnesses
    cosigned it."""
    until = time.monotonic() + DEADLINE
    while True:
        note = Note.parse(text := (await http.get("/log/checkpoint")).text)
        if all(note.signed_by(w.verifier) for w in WITNESSES):
            conn = await asyncpg.connect(database_url)
            try:
                behind = await conn.fetchval(
                    "SELECT count(*) FROM streams s WHERE s.game_id = ANY($1::uuid[]) AND NOT EXISTS ("
                    " SELECT 1 FROM log_leaves l"
                    " WHERE l.game_id = s.game_id AND l.seq = s.seq AND l.idx < $2)",
                    game_ids,
                    Checkpoint.parse_body(note.body).size,
                )
            finally:
                await conn.close()
            if behind == 0:
                return text
        assert time.monotonic() < until, "the log never settled, cosigned by both witnesses"
        await asyncio.sleep(0.1)


async def test_the_go_reference_code_checks_the_log_its_entries_and_the_receipts(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    checker = await asyncio.to_thread(build_checker, tmp_path)
    log_keys = settings.log_identity().verifiers
    async with contextlib.AsyncExitStack() as stack:
        urls = []
        for n, witness in enumerate(WITNESSES):
            key = tmp_path / f"w{n}.key"
            key.write_text(witness.text + "\n")
            urls.append(await stack.enter_async_context(witness_process(key, tmp_path / f"w{n}", log_keys)))
        pushing = dataclasses.replace(
            settings,
            log_interval=0.05,
            witness_urls=",".join(urls),
            witness_keys=",".join(w.verifier.text for w in WITNESSES),
        )
        url = await stack.enter_async_context(live_server(pushing))
        api = await stack.enter_async_context(PlaylogClient(url))
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=url))
        moderator = {
            "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='m'), 600)}"
        }

        games = []
        options = {"players": 2, "reaction_window": 0, "seed": 11}
        games.append((await play_game(api, "exploding_kittens", options, rng=random.Random(1))).game_id)
        older = await quiet_and_cosigned(http, database_url, games)  # a checkpoint a client kept
        for seed in (2, 3):
            options = {"players": 2, "reaction_window": 0, "seed": seed}
            games.append(
                (await play_game(api, "exploding_kittens", options, rng=random.Random(seed))).game_id
            )
        await quiet_and_cosigned(http, database_url, games)

        lasts = []
        for game_id in games:
            leaves = (await http.get(f"/games/{game_id}/log-proof", headers=moderator)).json()["leaves"]
            last = max(leaves, key=lambda leaf: leaf["seq"])
            lasts.append({"tag": last["tag"], "seq": last["seq"], "head": last["head"]})
        assert len({game["tag"] for game in lasts}) == len(games)
        assert len(api.receipts) > 10
        given = {
            "url": f"{url}/log",
            "log_key": log_keys[0].text,
            "witness_keys": [w.verifier.text for w in WITNESSES],
            "receipts": api.receipts,
            "checkpoints": [older],
            "games": lasts,
        }
        (tmp_path / "input.json").write_text(json.dumps(given))
        done = await asyncio.create_subprocess_exec(
            str(checker), str(tmp_path / "input.json"), stdout=asyncio.subprocess.PIPE
        )
        out, _ = await done.communicate()
        report = out.decode()
        assert done.returncode == 0, report
        for line in (
            "ok checkpoint ",
            "note.Open verified 3 signatures",
            "ok tiles: tlog.TreeHash over tlog.TileHashReader gives the checkpoint's root",
            "hash to the tiles' leaves and give the checkpoint's root",
            "ok monitor: ",
            f"ok inclusion: {len(games)} games' last heads checked with tlog.CheckRecord",
            "ok consistency: 1 older checkpoints checked with tlog.CheckTree",
            f"ok receipts: {len(api.receipts)} opened with note.Open",
        ):
            assert line in report, report

        # The reference code refuses what it should: a receipt with a forged signature.
        forged = api.receipts[0][:-10] + ("A" * 6) + api.receipts[0][-4:]
        (tmp_path / "forged.json").write_text(json.dumps({**given, "receipts": [forged]}))
        done = await asyncio.create_subprocess_exec(
            str(checker), str(tmp_path / "forged.json"), stdout=asyncio.subprocess.PIPE
        )
        out, _ = await done.communicate()
        assert done.returncode == 1 and "receipt 0: note.Open" in out.decode(), out.decode()
