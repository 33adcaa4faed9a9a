"""The transparency log over HTTP, with the real app, the real sequencer and real witnesses
(docs/transparency-log.md). The operator's tests play someone with the database and the log's
key: they rewrite a finished game with a recomputed chain, and fork the log."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections import merkle
from projections.merkle import LEAF_PREFIX
from projections.notes import COSIGNATURE_V1, Checkpoint, Note, Signer, Verifier
from service.app.auth import Principal, issue
from service.config import Settings
from service.http.app import create_app
from service.tools.client import PlaylogClient
from service.transparency.log import append_round, tile_path
from service.transparency.witness import Refused, Witness
from tests.conftest import live_server
from tests.e2e.test_dishonest_operator import rewrite_from
from tests.unit.test_merkle import rebuild_from_path

WITNESS = Signer.generate("witness.test/w1", COSIGNATURE_V1)
OTHER_WITNESS = Signer.generate("witness.test/w2", COSIGNATURE_V1)
DEADLINE = 30.0


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return dataclasses.replace(
        settings,
        log_interval=0.05,
        log_origin="playlog.test/log",
        witness_keys=f"{WITNESS.verifier.text},{OTHER_WITNESS.verifier.text}",
    )


@pytest.fixture
def moderator(settings: Settings) -> dict[str, str]:
    token = issue(settings.keyring(), Principal(role="moderator", name="mod"), 3600)
    return {"Authorization": f"Bearer {token}"}


async def finished_game(api: PlaylogClient) -> tuple[uuid.UUID, list[str]]:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0, public=False)
    seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
    await api.start(created.game_id, created.host_token)
    assert (await api.leave(created.game_id, 0, seats[0].token)).winners == [1]
    return created.game_id, [s.token for s in seats]


async def head(database_url: str, game_id: uuid.UUID) -> tuple[int, bytes]:
    conn = await asyncpg.connect(database_url)
    try:
        row = await conn.fetchrow("SELECT seq, last_hash FROM streams WHERE game_id = $1", game_id)
        return int(row["seq"]), bytes(row["last_hash"])
    finally:
        await conn.close()


async def proof_of_head(
    client: httpx.AsyncClient, game_id: uuid.UUID, seq: int, headers: dict[str, str], size: int | None = None
) -> dict[str, Any]:
    """The log proof of ``game_id`` once its head at ``seq`` is a leaf under a checkpoint."""
    until = time.monotonic() + DEADLINE
    while True:
        params = {"size": size} if size else {}
        response = await client.get(f"/games/{game_id}/log-proof", params=params, headers=headers)
        if response.status_code == 200 and any(leaf["seq"] == seq for leaf in response.json()["leaves"]):
            body: dict[str, Any] = response.json()
            return body
        assert response.status_code in (200, 404), response.text
        assert time.monotonic() < until, "the head never became a leaf"
        await asyncio.sleep(0.02)


async def log_keys(client: httpx.AsyncClient) -> list[Verifier]:
    response = await client.get("/log/keys")
    assert response.status_code == 200
    assert "max-age" in response.headers["cache-control"]
    return [Verifier.parse(k) for k in response.json()["log_keys"]]


def checked(note_text: str, keys: list[Verifier]) -> Checkpoint:
    note = Note.parse(note_text)
    assert any(note.signed_by(k) for k in keys)
    return Checkpoint.parse_body(note.body)


def leaf_of(game_id: uuid.UUID, seq: int, head_hash: bytes) -> bytes:
    return merkle.leaf_hash(LEAF_PREFIX + game_id.bytes + seq.to_bytes(8, "big") + head_hash)


async def test_a_finished_game_s_head_is_a_leaf_under_a_signed_checkpoint(
    api: PlaylogClient, http: AsyncTestClient[Litestar], database_url: str, moderator: dict[str, str]
) -> None:
    game_id, tokens = await finished_game(api)
    seq, final = await head(database_url, game_id)
    body = await proof_of_head(http, game_id, seq, moderator)
    checkpoint = checked(body["checkpoint"], await log_keys(http))
    assert checkpoint.origin == "playlog.test/log" and checkpoint.size == body["size"]
    leaf = next(leaf for leaf in body["leaves"] if leaf["seq"] == seq)
    assert leaf["head"] == final.hex()
    assert base64.b64decode(leaf["leaf_data"]) == LEAF_PREFIX + game_id.bytes + seq.to_bytes(8, "big") + final
    proof = [base64.b64decode(p) for p in leaf["proof"]]
    leaf_hash = leaf_of(game_id, seq, final)
    assert rebuild_from_path(leaf_hash, leaf["index"], checkpoint.size, proof) == checkpoint.root
    assert merkle.verify_inclusion(leaf_hash, leaf["index"], checkpoint.size, proof, checkpoint.root)

    # A seat of the game reads the same (nothing in this game is hidden from anyone); others not.
    as_seat = await http.get(f"/games/{game_id}/log-proof", headers={"Authorization": f"Bearer {tokens[1]}"})
    assert as_seat.status_code == 200 and as_seat.json()["leaves"][-1]["head"] in {
        leaf["head"]
        for leaf in (await http.get(f"/games/{game_id}/log-proof", headers=moderator)).json()["leaves"]
    }
    anonymous = await http.get(f"/games/{game_id}/log-proof")
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "moderator_only"


async def test_consistency_between_two_checkpoints_and_the_tiles_give_the_roots(
    api: PlaylogClient, http: AsyncTestClient[Litestar], database_url: str, moderator: dict[str, str]
) -> None:
    keys = await log_keys(http)
    first, _ = await finished_game(api)
    old = checked(
        (await proof_of_head(http, first, (await head(database_url, first))[0], moderator))["checkpoint"],
        keys,
    )
    second, _ = await finished_game(api)
    new = checked(
        (await proof_of_head(http, second, (await head(database_url, second))[0], moderator))["checkpoint"],
        keys,
    )
    assert new.size > old.size
    response = await http.get("/log/consistency", params={"from": old.size, "to": new.size})
    assert response.status_code == 200
    proof = [base64.b64decode(p) for p in response.json()["proof"]]
    assert merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)
    assert not merkle.verify_consistency(old.size, new.size, new.root, new.root, proof)

    tile = await http.get(f"/log/tile/{tile_path(0, 0, new.size)}")
    assert tile.status_code == 200 and len(tile.content) == 32 * new.size
    hashes = [tile.content[i : i + 32] for i in range(0, len(tile.content), 32)]
    nodes = merkle.appended({}, 0, hashes)
    assert merkle.root(new.size, nodes) == new.root
    assert (await http.get(f"/log/tile/{tile_path(0, 0)}")).status_code == 404  # not full yet
    assert (await http.get("/log/tile/entries/000")).status_code == 404
    too_far = await http.get("/log/consistency", params={"from": 1, "to": new.size + 1000})
    assert too_far.status_code == 422 and too_far.json()["code"] == "bad_tree_sizes"


async def rewrite(database_url: str, game_id: uuid.UUID) -> bytes:
    """What an operator with the database can do: change a finished game's last event and
    recompute every hash after it, the append-only trigger disabled. Returns the new head."""
    conn = await asyncpg.connect(database_url)
    try:
        last: int = await conn.fetchval("SELECT max(seq) FROM events WHERE game_id = $1", game_id)
    finally:
        await conn.close()
    return await rewrite_from(database_url, game_id, last)


async def test_a_rewritten_game_fails_the_old_cosigned_checkpoint(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    database_url: str,
    moderator: dict[str, str],
    tmp_path: Path,
) -> None:
    keys = await log_keys(http)
    game_id, _ = await finished_game(api)
    seq, original = await head(database_url, game_id)
    body = await proof_of_head(http, game_id, seq, moderator)
    witness = Witness(str(http.base_url), WITNESS, tmp_path / "w1")
    assert await witness.round(http) == "cosigned"
    cosigned = (await http.get("/log/checkpoint")).text
    assert Note.parse(cosigned).signed_by(WITNESS.verifier)
    old = checked(cosigned, keys)
    assert old.size >= body["size"]
    old_leaf = next(
        leaf
        for leaf in (await proof_of_head(http, game_id, seq, moderator, old.size))["leaves"]
        if leaf["seq"] == seq
    )
    proof = [base64.b64decode(p) for p in old_leaf["proof"]]

    rewritten = await rewrite(database_url, game_id)
    assert rewritten != original
    assert merkle.verify_inclusion(
        leaf_of(game_id, seq, original), old_leaf["index"], old.size, proof, old.root
    )
    assert not merkle.verify_inclusion(
        leaf_of(game_id, seq, rewritten), old_leaf["index"], old.size, proof, old.root
    )
    at_old = (
        await http.get(f"/games/{game_id}/log-proof", params={"size": old.size}, headers=moderator)
    ).json()
    assert rewritten.hex() not in {leaf["head"] for leaf in at_old["leaves"]}
    assert Note.parse(at_old["checkpoint"]).signed_by(WITNESS.verifier)  # the proof comes cosigned
    assert (await http.get("/log/checkpoint", params={"cosigned": "true"})).text == at_old["checkpoint"]

    # The log goes on: the rewritten head becomes a leaf too, next to the original one, and the
    # witness cosigns that (the log is consistent; the two heads of one seq are the evidence).
    until = time.monotonic() + DEADLINE
    later = await proof_of_head(http, game_id, seq, moderator)
    while rewritten.hex() not in {leaf["head"] for leaf in later["leaves"]}:
        assert time.monotonic() < until, "the rewritten head never became a leaf"
        await asyncio.sleep(0.02)
        later = await proof_of_head(http, game_id, seq, moderator)
    heads_at_seq = {leaf["head"] for leaf in later["leaves"] if leaf["seq"] == seq}
    assert heads_at_seq == {original.hex(), rewritten.hex()}
    assert await witness.round(http) == "cosigned"


async def test_a_forked_log_is_refused_by_the_witness_with_evidence(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    quiet = dataclasses.replace(settings, log_interval=3600.0)  # the test sequences, as the operator would
    identity = quiet.log_identity()
    async with AsyncTestClient(create_app(quiet)) as http:
        await http.app.state.sequencer.stop()  # the test plays the sequencer
        api = PlaylogClient(str(http.base_url), http=http)
        game_id, _ = await finished_game(api)
        conn = await asyncpg.connect(database_url)
        try:
            size = await append_round(conn, identity)
            assert size is not None
            witness = Witness(str(http.base_url), WITNESS, tmp_path / "w1")
            assert await witness.round(http) == "cosigned"
            assert await witness.round(http) == "unchanged"
            seen = (tmp_path / "w1" / "checkpoint").read_text()

            # The operator forks: the log rebuilt from another history of the same size.
            async with conn.transaction():
                for table in ("log_cosignatures", "log_checkpoints", "log_nodes", "log_leaves"):
                    await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
                    await conn.execute(f"DELETE FROM {table}")
                    await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
                await conn.execute(
                    "UPDATE streams SET last_hash = sha256(last_hash) WHERE game_id = $1", game_id
                )
            assert await append_round(conn, identity) == size
            with pytest.raises(Refused) as refused:
                await witness.round(http)
            assert "same size" in refused.value.reason
            evidence = refused.value.evidence
            assert (evidence / "cosigned.checkpoint").read_text() == seen
            shown = (evidence / "shown.checkpoint").read_text()
            assert Note.parse(shown).body != Note.parse(seen).body
            assert Checkpoint.parse_body(Note.parse(shown).body).size == size
            assert (tmp_path / "w1" / "checkpoint").read_text() == seen  # it cosigned nothing new

            # The fork grows: a larger tree that does not extend what the witness saw.
            await finished_game(api)
            assert await append_round(conn, identity) == size + 1
            with pytest.raises(Refused) as refused:
                await witness.round(http)
            assert "does not extend" in refused.value.reason
            assert (refused.value.evidence / "log-answer.txt").exists()
            served = (await http.get("/log/checkpoint")).text
            assert not Note.parse(served).signed_by(WITNESS.verifier)
        finally:
            await conn.close()


async def test_a_cosignature_from_an_unknown_witness_or_of_another_checkpoint_is_refused(
    api: PlaylogClient, http: AsyncTestClient[Litestar], database_url: str, moderator: dict[str, str]
) -> None:
    game_id, _ = await finished_game(api)
    await proof_of_head(http, game_id, (await head(database_url, game_id))[0], moderator)
    from projections.notes import cosign

    text = (await http.get("/log/checkpoint")).text
    note = Note.parse(text)
    stranger = Signer.generate("stranger", COSIGNATURE_V1)
    response = await http.post(
        "/log/cosignatures", json={"checkpoint": text + cosign(note.body, stranger, 1)}
    )
    assert response.status_code == 403 and response.json()["code"] == "unknown_witness"
    forged = Checkpoint.parse_body(note.body)
    other = Checkpoint(forged.origin, forged.size, bytes(32)).body
    signed = other + "\n" + text.split("\n\n", 1)[1]
    response = await http.post(
        "/log/cosignatures", json={"checkpoint": signed + cosign(other, OTHER_WITNESS, 1)}
    )
    assert response.status_code == 409 and response.json()["code"] == "checkpoint_mismatch"
    response = await http.post(
        "/log/cosignatures", json={"checkpoint": text + cosign(note.body, OTHER_WITNESS, 1)}
    )
    assert response.status_code == 201


async def run_witness(url: str, key: Path, state: Path) -> tuple[int, str]:
    playlog = Path(sys.executable).parent / "playlog"
    process = await asyncio.create_subprocess_exec(
        str(playlog),
        "witness",
        "--log",
        url,
        "--key",
        str(key),
        "--state",
        str(state),
        "--once",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, err.decode()


async def test_the_witness_process_cosigns_a_live_log_and_refuses_its_fork(
    settings: Settings, database_url: str, tmp_path: Path
) -> None:
    key = tmp_path / "witness.key"
    key.write_text(WITNESS.text + "\n")
    state = tmp_path / "state"
    async with live_server(settings) as url, PlaylogClient(url) as api:
        game_id, _ = await finished_game(api)
        seq, _ = await head(database_url, game_id)
        moderator = {
            "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='m'), 60)}"
        }
        async with httpx.AsyncClient(base_url=url) as client:
            await proof_of_head(client, game_id, seq, moderator)
            code, err = await run_witness(url, key, state)
            assert code == 0, err
            served = (await client.get("/log/checkpoint")).text
            assert Note.parse(served).signed_by(WITNESS.verifier)
            assert (state / "log-keys").read_text().strip() == (await log_keys(client))[0].text

            conn = await asyncpg.connect(database_url)
            try:
                async with conn.transaction():  # the operator rebuilds the log from a rewritten head
                    for table in ("log_cosignatures", "log_checkpoints", "log_nodes", "log_leaves"):
                        await conn.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
                        await conn.execute(f"DELETE FROM {table}")
                        await conn.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
                    await conn.execute(
                        "UPDATE streams SET last_hash = sha256(last_hash) WHERE game_id = $1", game_id
                    )
            finally:
                await conn.close()
            until = time.monotonic() + DEADLINE
            while (await client.get("/log/checkpoint")).status_code != 200:
                assert time.monotonic() < until
                await asyncio.sleep(0.02)
            code, err = await run_witness(url, key, state)
            assert code == 3, err
            assert "REFUSED" in err
            (evidence,) = (state / "evidence").iterdir()
            assert (evidence / "cosigned.checkpoint").read_text() != (
                evidence / "shown.checkpoint"
            ).read_text()


async def test_a_seat_gets_no_proof_while_its_game_holds_an_event_hidden_from_it(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    from tests.e2e.test_numbering_leaks import _window_open

    game = await _window_open(api, moderator)
    seat = {"Authorization": f"Bearer {game.seats[2].token}"}
    assert (await http.get(f"/games/{game.id}/log-proof", headers=seat)).status_code == 200
    await game.send(1, {"type": "PassReaction"})  # seat 1 alone may know this event exists
    refused = await http.get(f"/games/{game.id}/log-proof", headers=seat)
    assert refused.status_code == 403 and refused.json()["code"] == "log_proof_hidden"
    assert (await http.get(f"/games/{game.id}/log-proof", headers=moderator)).status_code == 200
    response = await http.get(f"/games/{uuid.uuid4()}/log-proof", headers=moderator)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


async def test_several_instances_share_one_log_with_one_sequencer(
    settings: Settings, http: AsyncTestClient[Litestar], database_url: str, moderator: dict[str, str]
) -> None:
    async with AsyncTestClient(create_app(settings)) as second:
        sequencers = [http.app.state.sequencer, second.app.state.sequencer]
        until = time.monotonic() + DEADLINE
        while not any(s.leading for s in sequencers):
            assert time.monotonic() < until
            await asyncio.sleep(0.02)
        assert sum(s.leading for s in sequencers) == 1
        game_id, _ = await finished_game(PlaylogClient(str(second.base_url), http=second))
        seq, _ = await head(database_url, game_id)
        body = await proof_of_head(second, game_id, seq, moderator)
        assert (await http.get("/log/checkpoint")).text.startswith(Note.parse(body["checkpoint"]).body)
        keys = await log_keys(second)
        assert keys == await log_keys(http)  # one identity (the data directory's) for both
        indexes = [leaf["index"] for leaf in body["leaves"]]
        assert len(indexes) == len(set(indexes))


async def test_tiles_of_two_levels_give_the_checkpoint_s_root(settings: Settings, database_url: str) -> None:
    quiet = dataclasses.replace(settings, log_interval=3600.0)  # the test runs the rounds
    async with AsyncTestClient(create_app(quiet)) as http:
        await http.app.state.sequencer.stop()  # the test plays the sequencer
        conn = await asyncpg.connect(database_url)
        try:
            # 300 games' heads, as streams rows (their events do not matter to the log).
            await conn.execute(
                "INSERT INTO streams (game_id, seq, last_hash)"
                " SELECT gen_random_uuid(), 1, sha256(n::text::bytea) FROM generate_series(1, 300) n"
            )
            assert await append_round(conn, quiet.log_identity()) == 300
            assert await append_round(conn, quiet.log_identity()) is None  # nothing moved since
        finally:
            await conn.close()
        checkpoint = checked((await http.get("/log/checkpoint")).text, await log_keys(http))
        full = await http.get(f"/log/tile/{tile_path(0, 0)}")
        assert full.status_code == 200 and full.headers["cache-control"].endswith("immutable")
        partial = await http.get(f"/log/tile/{tile_path(0, 1, 44)}")
        upper = await http.get(f"/log/tile/{tile_path(1, 0, 1)}")
        assert len(full.content) == 256 * 32 and len(partial.content) == 44 * 32 and len(upper.content) == 32
        hashes = [full.content[i : i + 32] for i in range(0, 256 * 32, 32)]
        hashes += [partial.content[i : i + 32] for i in range(0, 44 * 32, 32)]
        nodes = merkle.appended({}, 0, hashes)
        assert merkle.range_hash(0, 256, nodes) == upper.content
        assert merkle.root(300, nodes) == checkpoint.root
        for missing in (tile_path(0, 1), tile_path(0, 1, 45), tile_path(1, 0), tile_path(2, 0, 1)):
            assert (await http.get(f"/log/tile/{missing}")).status_code == 404, missing
