"""The operator as the adversary (TRUST.md, docs/receipts.md): someone with the database and the
log's key rewrites a finished game with every hash recomputed, tells two clients two histories,
drops an acknowledged command. Each is caught, offline, by what a player or a witness kept: the
cosigned checkpoint and its inclusion proof, the witness's refusal, the seat's receipts.

Real PostgreSQL, the real app over HTTP, a real witness; the test plays the sequencer (as the
operator, who holds its key, can) so that the log's rounds happen when the story needs them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import uuid
from pathlib import Path

import asyncpg
import httpx
import pytest
from click.testing import CliRunner
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections import receipts as receipting
from projections.export import verify as export_verify
from projections.export.proofs import Trust
from projections.notes import COSIGNATURE_V1, Checkpoint, Note, Signer, Verifier
from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.bot import play_game
from service.tools.cli import main
from service.tools.client import PlaylogClient
from service.transparency.log import append_round
from tests.conftest import live_server
from tests.e2e.conftest import started_game
from tests.e2e.witnesses import InProcessWitness, Refused

WITNESS = Signer.generate("witness.test/w1", COSIGNATURE_V1)
PROOFS = ("receipt_keys", "proof", "checkpoint")


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # The log's rounds are the test's (``sequence``): the service's own sequencer sleeps.
    return dataclasses.replace(
        settings, log_interval=3600.0, log_origin="playlog.test/log", witness_keys=WITNESS.verifier.text
    )


@pytest.fixture
async def http(http: AsyncTestClient[Litestar]) -> AsyncTestClient[Litestar]:
    await http.app.state.sequencer.stop()
    return http


@pytest.fixture
def moderator(settings: Settings) -> dict[str, str]:
    token = issue(settings.keyring(), Principal(role="moderator", name="mod"), 3600)
    return {"Authorization": f"Bearer {token}"}


# -- what the operator does ----------------------------------------------------------------------


async def sequence(database_url: str, settings: Settings) -> int | None:
    """One round of the log, as the sequencer runs it."""
    conn = await asyncpg.connect(database_url)
    try:
        return await append_round(conn, settings.log_identity())
    finally:
        await conn.close()


async def rewrite_from(database_url: str, game_id: uuid.UUID, seq: int) -> bytes:
    """Change the game from ``seq`` on (a mark in every event's metadata, which the rules never
    read, the same on each event of a command so that its group still holds together) and
    recompute every hash after it, the append-only trigger disabled: the file still agrees with
    itself and re-executes. Returns the new head."""
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
            rows = await conn.fetch(
                "SELECT * FROM events WHERE game_id = $1 AND seq >= $2 ORDER BY seq", game_id, seq
            )
            prev = bytes(rows[0]["prev_hash"])
            for row in rows:
                metadata = row["metadata"][:-1] + ', "rewritten": true}'
                digest = await conn.fetchval(
                    "SELECT playlog_event_digest($1, $2, $3, $4, $5, $6, $7::jsonb, $8)",
                    prev,
                    game_id,
                    row["seq"],
                    row["type"],
                    row["schema_version"],
                    row["data"],
                    metadata,
                    row["recorded_at"],
                )
                await conn.execute(
                    "UPDATE events SET metadata = $3::jsonb, prev_hash = $4, hash = $5"
                    " WHERE game_id = $1 AND seq = $2",
                    game_id,
                    row["seq"],
                    metadata,
                    prev,
                    digest,
                )
                prev = digest
            await conn.execute("UPDATE streams SET last_hash = $2 WHERE game_id = $1", game_id, prev)
            await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
        return prev
    finally:
        await conn.close()


async def retell_log(database_url: str, settings: Settings) -> int | None:
    """The log rebuilt from the games as they are now: the heads it held before are gone."""
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            for table in ("log_cosignatures", "log_checkpoints", "log_nodes", "log_leaves"):
                await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
                await conn.execute(f"DELETE FROM {table}")
                await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        return await append_round(conn, settings.log_identity())
    finally:
        await conn.close()


async def drop_from(database_url: str, game_id: uuid.UUID, seq: int) -> None:
    """Delete the game's events from ``seq`` on, and the commands that made them."""
    conn = await asyncpg.connect(database_url)
    try:
        async with conn.transaction():
            await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
            await conn.execute("DELETE FROM events WHERE game_id = $1 AND seq >= $2", game_id, seq)
            await conn.execute("DELETE FROM commands WHERE game_id = $1 AND last_seq >= $2", game_id, seq)
            last = await conn.fetchval(
                "SELECT hash FROM events WHERE game_id = $1 AND seq = $2", game_id, seq - 1
            )
            await conn.execute(
                "UPDATE streams SET seq = $2, last_hash = $3 WHERE game_id = $1", game_id, seq - 1, last
            )
            await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
    finally:
        await conn.close()


async def first_seq_of(database_url: str, game_id: uuid.UUID, command_id: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        seq: int = await conn.fetchval(
            "SELECT first_seq FROM commands WHERE game_id = $1 AND command_id = $2", game_id, command_id
        )
        return seq
    finally:
        await conn.close()


async def cli_export(game_id: uuid.UUID, database_url: str, settings: Settings, path: Path) -> list[str]:
    """``playlog export``: the operator's own export, with the service's keys."""
    env = {"PLAYLOG_DATABASE_URL": database_url, "PLAYLOG_DATA_DIR": str(settings.data_dir)}
    done = await asyncio.to_thread(
        CliRunner().invoke, main, ["export", str(game_id), "-o", str(path)], env=env
    )
    assert done.exit_code == 0, done.output
    return path.read_text().splitlines(keepends=True)


# -- what a player keeps and checks ----------------------------------------------------------------


def own_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if json.loads(line)["record"] not in PROOFS]


def lines_of(lines: list[str], *records: str) -> list[str]:
    return [line for line in lines if json.loads(line)["record"] in records]


async def trusted(http: AsyncTestClient[Litestar], path: Path) -> Trust:
    """The keys a player trusts, written as ``playlog verify --trust`` reads them."""
    keys = (await http.get("/log/keys")).json()["log_keys"]
    path.write_text(
        "# the log's keys, then the witness's\n" + "\n".join([*keys, WITNESS.verifier.text]) + "\n"
    )
    return Trust.parse(path.read_text().splitlines())


def seat_receipts(texts: list[str], keys: list[Verifier], seat: int) -> list[str]:
    return [t for t in texts if receipting.verify(t, keys).receipt.seat == seat]


def cli_verify(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(main, ["verify", *args])
    return done.exit_code, done.output


# -- the tests -------------------------------------------------------------------------------------


async def test_a_rewritten_game_is_caught_by_the_checkpoint_the_witness_and_the_receipts(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    database_url: str,
    settings: Settings,
    moderator: dict[str, str],
    tmp_path: Path,
) -> None:
    options = {"players": 2, "reaction_window": 0, "seed": 11}
    played = await play_game(api, "exploding_kittens", options, rng=random.Random(7))
    assert played.finished
    game_id = played.game_id
    assert await sequence(database_url, settings) is not None
    witness = InProcessWitness(WITNESS, tmp_path / "witness", settings.log_identity().verifiers, database_url)
    assert await witness.round() == "cosigned"

    # What the players keep: the export (its proofs against the cosigned checkpoint), seat 0's receipts.
    original = (await http.get(f"/games/{game_id}/export", headers=moderator)).text.splitlines(keepends=True)
    trust = await trusted(http, tmp_path / "trusted.keys")
    mine = seat_receipts(api.receipts, trust.log_keys, 0)
    assert len(mine) >= 3
    kept = tmp_path / "receipts.json"
    kept.write_text(json.dumps({"game_id": str(game_id), "receipts": mine}))
    (tmp_path / "original.jsonl").write_text("".join(original))
    code, output = cli_verify(
        str(tmp_path / "original.jsonl"), "--trust", str(tmp_path / "trusted.keys"), "--receipts", str(kept)
    )
    assert code == 0, output
    assert "log:         ok" in output and "cosigned by witness.test/w1" in output
    assert f"receipts:    ok ({len(mine)} of this game checked against the trusted keys)" in output

    # The operator rewrites the game from seat 0's second receipted command on, and retells the
    # log without the heads it held: a tree of the same size with another root.
    second = receipting.verify(mine[1], trust.log_keys).receipt
    rewritten_from = await first_seq_of(database_url, game_id, f"seat:0:{second.key}")
    final_seq = json.loads(original[0])["events"]
    await rewrite_from(database_url, game_id, rewritten_from)
    assert await retell_log(database_url, settings) is not None
    rewritten = await cli_export(game_id, database_url, settings, tmp_path / "rewritten.jsonl")
    alone = export_verify.verify_lines(own_lines(rewritten))
    assert alone.ok, alone.lines()  # the rewritten file agrees with itself, and replays

    # 1. The witness refuses the retold log, with both checkpoints as evidence.
    with pytest.raises(Refused) as refused:
        await witness.round()
    assert "same size" in (refused.value.evidence / "refusal.json").read_text()
    cosigned = Note.parse((refused.value.evidence / "cosigned.checkpoint").read_text()).body
    assert cosigned == Note.parse(json.loads(lines_of(original, "checkpoint")[0])["note"]).body

    # 2. The cosigned checkpoint the players kept, with its inclusion proof, holds the original
    # final head, not the rewritten one; the operator's new checkpoint is cosigned by no witness.
    held = (
        own_lines(rewritten) + lines_of(rewritten, "receipt_keys") + lines_of(original, "proof", "checkpoint")
    )
    report = export_verify.verify_lines(held, trust=trust)
    assert [(f.check, f.seq) for f in report.findings] == [("log", final_seq)]
    assert "rewritten after it was logged" in report.findings[0].reason
    served = export_verify.verify_lines(rewritten, trust=trust)
    assert [(f.check, f.seq) for f in served.findings] == [("log", 0)]
    assert "not cosigned by witness.test/w1" in served.findings[0].reason

    # 3. Seat 0's receipts, against the log's keys it pinned, name the first receipted append the
    # file no longer holds as receipted.
    log_only = tmp_path / "log.keys"
    log_only.write_text("".join(f"{key.text}\n" for key in trust.log_keys))
    code, output = cli_verify(
        str(tmp_path / "rewritten.jsonl"), "--trust", str(log_only), "--receipts", str(kept)
    )
    assert code == 1
    assert "receipt 2 (receipts): (seat 0" in output and "no head of the file is the receipted one" in output
    assert output.rstrip().endswith("FAILED: first bad receipt 2")


async def test_two_clients_shown_two_histories_of_one_size_are_caught_by_the_witness(
    api: PlaylogClient, http: AsyncTestClient[Litestar], database_url: str, settings: Settings, tmp_path: Path
) -> None:
    game = await started_game(api, seed=11, reaction_window=0)
    await api.leave(game.id, 0, game.seats[0].token)
    size = await sequence(database_url, settings)
    assert size is not None
    keys = [Verifier.parse(k) for k in (await http.get("/log/keys")).json()["log_keys"]]
    witness = InProcessWitness(WITNESS, tmp_path / "witness", settings.log_identity().verifiers, database_url)
    assert await witness.round() == "cosigned"
    seen_by_a = (await http.get("/log/checkpoint")).text

    # The operator tells client B another history of the same size.
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute("UPDATE streams SET last_hash = sha256(last_hash) WHERE game_id = $1", game.id)
    finally:
        await conn.close()
    assert await retell_log(database_url, settings) == size
    seen_by_b = (await http.get("/log/checkpoint")).text

    a, b = Note.parse(seen_by_a), Note.parse(seen_by_b)
    assert any(a.signed_by(k) for k in keys) and any(b.signed_by(k) for k in keys)
    first, second = Checkpoint.parse_body(a.body), Checkpoint.parse_body(b.body)
    assert first.size == second.size and first.root != second.root  # both signed: the proof of it
    assert a.signed_by(WITNESS.verifier) and not b.signed_by(WITNESS.verifier)

    # The witness's next round refuses, keeping both as evidence.
    with pytest.raises(Refused) as refused:
        await witness.round()
    assert "same size" in (refused.value.evidence / "refusal.json").read_text()
    shown = Note.parse((refused.value.evidence / "shown.checkpoint").read_text()).body
    cosigned = Note.parse((refused.value.evidence / "cosigned.checkpoint").read_text()).body
    assert (cosigned, shown) == (a.body, b.body)


async def test_a_dropped_acknowledged_command_is_proven_by_its_receipt(
    api: PlaylogClient, http: AsyncTestClient[Litestar], database_url: str, settings: Settings, tmp_path: Path
) -> None:
    game = await started_game(api, seed=11, reaction_window=0)
    for turn in range(4):
        seat = await game.active()
        await game.send(seat, {"type": "DrawCard"}, idempotency_key=f"draw-{turn}")
    assert len(api.receipts) == 4
    keys = [Verifier.parse(k) for k in (await http.get("/log/keys")).json()["log_keys"]]
    last = receipting.verify(api.receipts[-1], keys).receipt
    assert await sequence(database_url, settings) is not None  # the export names the log's keys
    before = await cli_export(game.id, database_url, settings, tmp_path / "before.jsonl")
    pinned = Trust(keys, [])  # the seat pinned the log's keys (receipts are checked against no others)
    assert export_verify.verify_lines(before, trust=pinned, receipts=api.receipts).ok

    # The operator drops the last acknowledged command, as if it had never been sent.
    dropped = await first_seq_of(database_url, game.id, f"seat:{last.seat}:{last.key}")
    await drop_from(database_url, game.id, dropped)
    after = await cli_export(game.id, database_url, settings, tmp_path / "after.jsonl")
    report = export_verify.verify_lines(after, trust=pinned, receipts=api.receipts)
    assert report.chain_ok and report.replay_ok  # the shortened log agrees with itself
    # The receipt names the dropped command; the log, whose only head of the game was the
    # dropped one, holds no head of the shortened file.
    assert [(f.check, f.seq) for f in report.findings] == [("log", 0), ("receipts", len(api.receipts))]
    assert "no head of this game is under the checkpoint" in report.findings[0].reason
    assert "receipted events are missing" in report.findings[1].reason
    assert f"key {last.key}" in report.findings[1].reason


async def test_trust_is_extended_to_the_log_now_and_a_log_that_does_not_extend_is_named(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    """``playlog verify --trust KEYS --extend URL``: the log's cosigned checkpoint now and a
    consistency proof from the file's; then the operator retells the log without the game's heads."""
    async with (
        live_server(settings) as url,
        PlaylogClient(url) as api,
        httpx.AsyncClient(base_url=url) as http,
    ):
        game = await started_game(api, seed=11, reaction_window=0)
        await api.leave(game.id, 0, game.seats[0].token)
        await started_game(api, seed=12)
        assert await sequence(database_url, settings) is not None
        log_keys = settings.log_identity().verifiers
        witness = InProcessWitness(WITNESS, tmp_path / "witness", log_keys, database_url)
        assert await witness.round() == "cosigned"
        moderator = {
            "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='m'), 60)}"
        }
        export = tmp_path / "game.jsonl"
        export.write_text((await http.get(f"/games/{game.id}/export", headers=moderator)).text)
        keys = tmp_path / "trusted.keys"
        await trusted(http, keys)  # type: ignore[arg-type]
        log_only = tmp_path / "log-only.keys"
        log_only.write_text("\n".join((await http.get("/log/keys")).json()["log_keys"]) + "\n")
        file_size = Checkpoint.parse_body(
            Note.parse(json.loads(export.read_text().splitlines()[-1])["note"]).body
        ).size

        # The log grows and the witness cosigns it: the file's checkpoint is extended to it.
        for seed in (13, 14):
            await started_game(api, seed=seed)
        now = await sequence(database_url, settings)
        assert now is not None and now > file_size
        assert await witness.round() == "cosigned"

        async def extend(trust: Path) -> tuple[int, str, str]:
            done = await asyncio.to_thread(
                CliRunner().invoke, main, ["verify", str(export), "--trust", str(trust), "--extend", url]
            )
            return done.exit_code, done.stdout, done.stderr

        code, out, _ = await extend(keys)
        assert code == 0, out
        assert (
            f"extended:    ok (the file's checkpoint of size {file_size} is in the log's of size {now} now,"
            " cosigned by witness.test/w1)" in out
        )

        # The operator rewrites the game and retells the log without its heads, larger than before.
        await rewrite_from(database_url, game.id, 3)
        assert await retell_log(database_url, settings) is not None
        for seed in range(15, 15 + now):
            await started_game(api, seed=seed)
        retold = await sequence(database_url, settings)
        assert retold is not None and retold > now
        # A player who trusts only the log's key: the log's new checkpoint is signed, but no
        # consistency proof joins it to the file's: both are named.
        code, out, err = await extend(log_only)
        assert code == 1, out
        assert "extended:    FAILED (not extended)" in out
        assert "  the log now (extend): the log now does not extend the file's checkpoint" in out
        assert (
            f"the file's checkpoint (size {file_size}, root " in out
            and f"the log's now (size {retold}, root " in out
        )
        assert out.rstrip().endswith("FAILED: the log now")
        assert "the file's checkpoint:" in err and "the log's checkpoint now" in err
        # One who trusts the witness too: the witness cosigned nothing of the retold log.
        code, out, _ = await extend(keys)
        assert code == 1 and "the log serves no checkpoint now" in out, out
