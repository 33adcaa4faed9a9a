"""The log pushes its checkpoints to two real ``playlog witness`` processes (C2SP tlog-witness):
one is stopped and restarted mid-run and catches up from the size it had cosigned; then the
operator retells the log (a forked history) and both witnesses refuse it, each keeping the
evidence, and the log keeps what it sent and what they answered."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from pathlib import Path

import asyncpg
import httpx

from projections.notes import COSIGNATURE_V1, Checkpoint, Note, Signer
from service.config import Settings
from service.tools.client import PlaylogClient
from tests.conftest import free_port, live_server
from tests.e2e.test_transparency_log import finished_game
from tests.e2e.witnesses import witness_process

W1 = Signer.generate("witness.test/w1", COSIGNATURE_V1)
W2 = Signer.generate("witness.test/w2", COSIGNATURE_V1)
DEADLINE = 30.0


async def cosigned_by(
    http: httpx.AsyncClient, witnesses: list[Signer], larger_than: int, without: Signer | None = None
) -> Checkpoint:
    """The newest checkpoint once it is larger than ``larger_than``, cosigned by ``witnesses`` (and
    not by ``without``)."""
    until = time.monotonic() + DEADLINE
    while True:
        response = await http.get("/log/checkpoint")
        if response.status_code == 200:
            note = Note.parse(response.text)
            checkpoint = Checkpoint.parse_body(note.body)
            signed = all(note.signed_by(w.verifier) for w in witnesses)
            if (
                checkpoint.size > larger_than
                and signed
                and not (without and note.signed_by(without.verifier))
            ):
                return checkpoint
        assert time.monotonic() < until, f"no checkpoint above {larger_than} cosigned by {witnesses}"
        await asyncio.sleep(0.05)


async def test_the_log_pushes_to_two_witnesses_one_restarted_then_both_refuse_a_fork(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    log_keys = settings.log_identity().verifiers  # given to the witnesses out of band
    keys = {}
    for signer in (W1, W2):
        keys[signer] = tmp_path / f"{signer.name.rsplit('/', 1)[1]}.key"
        keys[signer].write_text(signer.text + "\n")
    port = free_port()
    async with contextlib.AsyncExitStack() as stack:
        first = witness_process(keys[W1], tmp_path / "w1", log_keys, port)
        url1 = await first.__aenter__()
        url2 = await stack.enter_async_context(witness_process(keys[W2], tmp_path / "w2", log_keys))
        pushing = dataclasses.replace(
            settings,
            log_interval=0.05,
            witness_urls=f"{url1}/,{url2}",  # a trailing slash or none: the same prefix
            witness_keys=f"{W1.verifier.text},{W2.verifier.text}",
        )
        url = await stack.enter_async_context(live_server(pushing))
        api = await stack.enter_async_context(PlaylogClient(url))
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=url))

        await finished_game(api)
        both = await cosigned_by(http, [W1, W2], 0)

        # Witness 1 stops; the log goes on with witness 2 alone, and asks witness 1 again each round.
        await first.__aexit__(None, None, None)
        await finished_game(api)
        alone = await cosigned_by(http, [W2], both.size, without=W1)

        # Witness 1 is back with its state: it catches up from the size it had cosigned.
        await stack.enter_async_context(witness_process(keys[W1], tmp_path / "w1", log_keys, port))
        again = await cosigned_by(http, [W1, W2], both.size)
        assert again.size >= alone.size
        origin = log_keys[0].name.replace("/", "%2F")
        kept = tmp_path / "w1" / "logs" / origin / "checkpoint"
        assert Checkpoint.parse_body(Note.parse(kept.read_text()).body).size >= again.size

        # The operator retells the log from other heads, larger than before: a history that does
        # not extend the one the witnesses cosigned.
        conn = await asyncpg.connect(database_url)
        try:
            async with conn.transaction():
                for table in ("log_cosignatures", "log_checkpoints", "log_nodes", "log_leaves"):
                    await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
                    await conn.execute(f"DELETE FROM {table}")
                    await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
                await conn.execute("UPDATE streams SET last_hash = sha256(last_hash)")
                await conn.execute(
                    "INSERT INTO streams (game_id, seq, last_hash)"
                    " SELECT gen_random_uuid(), 1, sha256(n::text::bytea) FROM generate_series(1, 40) n"
                )
            until = time.monotonic() + DEADLINE
            while len(refusals := await conn.fetch("SELECT * FROM log_witness_refusals ORDER BY id")) < 2:
                assert time.monotonic() < until, "the witnesses were never shown the retold log"
                await asyncio.sleep(0.05)
        finally:
            await conn.close()

        # Both refuse (422: the proof from what they cosigned does not verify); the log kept what
        # it sent them and what they answered, and serves its new checkpoint cosigned by no one.
        assert {(r["witness"], r["status"]) for r in refusals} == {(url1, 422), (url2, 422)}
        for refusal in refusals:
            assert refusal["request"].startswith(f"old {again.size}\n")
            shown = Note.parse(refusal["request"].split("\n\n", 1)[1])
            assert Checkpoint.parse_body(shown.body).size > again.size
        served = Note.parse((await http.get("/log/checkpoint")).text)
        assert not served.signed_by(W1.verifier) and not served.signed_by(W2.verifier)
        for state in ("w1", "w2"):
            (evidence,) = (tmp_path / state / "evidence" / origin).iterdir()
            cosigned = Checkpoint.parse_body(Note.parse((evidence / "cosigned.checkpoint").read_text()).body)
            assert cosigned.size >= again.size
            assert Note.parse((evidence / "shown.checkpoint").read_text()).body == served.body
