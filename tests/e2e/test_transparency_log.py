"""The transparency log over HTTP, with the real app, the real sequencer and real witnesses
(docs/transparency-log.md). The operator's tests play someone with the database and the log's
key: they rewrite a finished game with a recomputed chain, and fork the log."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
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
from projections.notes import COSIGNATURE_V1, Checkpoint, Note, Signer, Verifier, sign
from service.app.auth import Principal, issue
from service.config import Settings
from service.http.app import create_app
from service.tools.client import PlaylogClient
from service.transparency.log import append_round, tile_path
from tests.e2e.test_dishonest_operator import rewrite_from
from tests.e2e.witnesses import InProcessWitness, Refused
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


def leaf_of(tag: str, seq: int, head_hash: bytes) -> bytes:
    """A version-2 leaf's hash: ``"playlog/head/v2" || tag || seq || head``."""
    return merkle.leaf_hash(b"playlog/head/v2" + bytes.fromhex(tag) + seq.to_bytes(8, "big") + head_hash)


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
    assert len(bytes.fromhex(leaf["tag"])) == 32  # the game's tag: random, named nowhere else
    data = b"playlog/head/v2" + bytes.fromhex(leaf["tag"]) + seq.to_bytes(8, "big") + final
    assert base64.b64decode(leaf["leaf_data"]) == data
    proof = [base64.b64decode(p) for p in leaf["proof"]]
    leaf_hash = leaf_of(leaf["tag"], seq, final)
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
    assert (await http.get("/log/tile/entries/000")).status_code == 404  # not full yet
    # The entries (C2SP tlog-tiles' bundle): each hashes to its leaf, and names no game.
    bundle = await http.get(f"/log/tile/entries/{tile_path(0, 0, new.size).removeprefix('0/')}")
    assert bundle.status_code == 200
    entries, at = [], 0
    while at < len(bundle.content):
        length = int.from_bytes(bundle.content[at : at + 2], "big")
        entries.append(bundle.content[at + 2 : at + 2 + length])
        at += 2 + length
    assert [merkle.leaf_hash(e) for e in entries] == hashes
    assert all(e.startswith(b"playlog/head/v2") and len(e) == 15 + 32 + 8 + 32 for e in entries)
    assert not any(g.bytes in bundle.content for g in (first, second))
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
    witness = InProcessWitness(WITNESS, tmp_path / "w1", keys, database_url)
    assert await witness.round() == "cosigned"
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
        leaf_of(old_leaf["tag"], seq, original), old_leaf["index"], old.size, proof, old.root
    )
    assert not merkle.verify_inclusion(
        leaf_of(old_leaf["tag"], seq, rewritten), old_leaf["index"], old.size, proof, old.root
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
    # Under the game's one tag: a monitor reading the entries sees a seq logged twice.
    assert {leaf["tag"] for leaf in later["leaves"]} == {old_leaf["tag"]}
    assert await witness.round() == "cosigned"


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
            witness = InProcessWitness(WITNESS, tmp_path / "w1", identity.verifiers, database_url)
            assert await witness.round() == "cosigned"
            assert await witness.round() == "current"
            kept = tmp_path / "w1" / "logs" / "playlog.test%2Flog" / "checkpoint"
            seen = kept.read_text()

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
            witness.pusher.peers[0].refused = False  # as after a restart of the log: asked again
            with pytest.raises(Refused) as refused:
                await witness.round()
            evidence = refused.value.evidence
            assert "same size" in (evidence / "refusal.json").read_text()
            assert (evidence / "cosigned.checkpoint").read_text() == seen
            shown = (evidence / "shown.checkpoint").read_text()
            assert Note.parse(shown).body != Note.parse(seen).body
            assert Checkpoint.parse_body(Note.parse(shown).body).size == size
            assert kept.read_text() == seen  # it cosigned nothing new

            # The fork grows: a larger tree that does not extend what the witness saw.
            await finished_game(api)
            assert await append_round(conn, identity) == size + 1
            witness.pusher.peers[0].refused = False
            with pytest.raises(Refused) as refused:
                await witness.round()
            assert "does not extend" in (refused.value.evidence / "refusal.json").read_text()
            assert (refused.value.evidence / "request.txt").read_text().startswith(f"old {size}\n")
            served = (await http.get("/log/checkpoint")).text
            assert not Note.parse(served).signed_by(WITNESS.verifier)
            # The log kept what it sent and what the witness answered, both times.
            refusals = await conn.fetch("SELECT size, status FROM log_witness_refusals ORDER BY id")
            assert [(r["size"], r["status"]) for r in refusals] == [(size, 409), (size + 1, 422)]
        finally:
            await conn.close()


async def test_a_cosignature_by_a_witness_the_log_does_not_accept_is_not_kept(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    database_url: str,
    moderator: dict[str, str],
    tmp_path: Path,
) -> None:
    game_id, _ = await finished_game(api)
    await proof_of_head(http, game_id, (await head(database_url, game_id))[0], moderator)
    stranger = Signer.generate("stranger.test/w", COSIGNATURE_V1)
    witness = InProcessWitness(stranger, tmp_path / "s", await log_keys(http), database_url)
    witness.pusher.witnesses = [WITNESS.verifier]  # the log keeps only PLAYLOG_WITNESS_KEYS' lines
    assert await witness.round() == "cosigned"  # the stranger cosigned ...
    served = Note.parse((await http.get("/log/checkpoint")).text)
    assert [name for name, _ in served.signatures] == ["playlog.test/log"]  # ... and nothing was kept


async def test_a_restarted_log_resends_from_the_size_a_witness_names(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    database_url: str,
    moderator: dict[str, str],
    tmp_path: Path,
) -> None:
    keys = await log_keys(http)
    first, _ = await finished_game(api)
    await proof_of_head(http, first, (await head(database_url, first))[0], moderator)
    witness = InProcessWitness(WITNESS, tmp_path / "w1", keys, database_url)
    assert await witness.round() == "cosigned"
    cosigned = witness.pusher.peers[0].cosigned
    second, _ = await finished_game(api)
    await proof_of_head(http, second, (await head(database_url, second))[0], moderator)

    # The log's process restarts: it knows no witness's size and sends "old 0"; the witness
    # answers 409 with its size (text/x.tlog.size), and the log proves the rest from there.
    restarted = InProcessWitness(WITNESS, tmp_path / "w1", keys, database_url)
    answers: list[tuple[int, str]] = []

    async def record(response: httpx.Response) -> None:
        await response.aread()
        answers.append((response.status_code, response.text))

    assert restarted.pusher.client is not None
    restarted.pusher.client.event_hooks["response"].append(record)
    assert await restarted.round() == "cosigned"
    assert answers[0] == (409, f"{cosigned}\n") and answers[1][0] == 200
    assert restarted.pusher.peers[0].cosigned > cosigned


async def test_a_seat_gets_no_proof_while_its_game_runs_or_holds_an_event_hidden_from_it(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    from tests.e2e.test_numbering_leaks import _window_open

    game = await _window_open(api, moderator)
    seat = {"Authorization": f"Bearer {game.seats[2].token}"}
    # Nothing hidden yet, but the game runs: its tag would let the seat follow its later leaves
    # (and their seqs) in the log's public entries, hidden events included.
    running = await http.get(f"/games/{game.id}/log-proof", headers=seat)
    assert running.status_code == 403 and running.json()["code"] == "log_proof_hidden"
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


async def test_a_leaf_of_version_1_keeps_its_proof_and_its_bundle_is_not_served(
    settings: Settings, database_url: str, moderator: dict[str, str]
) -> None:
    quiet = dataclasses.replace(settings, log_interval=3600.0)  # the test runs the rounds
    identity = quiet.log_identity()
    async with AsyncTestClient(create_app(quiet)) as http:
        await http.app.state.sequencer.stop()
        api = PlaylogClient(str(http.base_url), http=http)
        old_game, _ = await finished_game(api)
        seq, old_head = await head(database_url, old_game)
        conn = await asyncpg.connect(database_url)
        try:
            # The log as it was before the tags: one version-1 leaf, whose data names the game.
            leaf = merkle.leaf_hash(merkle.leaf_data(old_game, seq, old_head))
            await conn.execute(
                "INSERT INTO log_leaves (idx, game_id, seq, head) VALUES (0, $1, $2, $3)",
                old_game,
                seq,
                old_head,
            )
            await conn.execute("INSERT INTO log_nodes (level, idx, hash) VALUES (0, 0, $1)", leaf)
            note = sign(Checkpoint(identity.origin, 1, leaf).body, identity.signer)
            await conn.execute(
                "INSERT INTO log_checkpoints (size, root, note) VALUES (1, $1, $2)", leaf, note
            )
            # Then a game logged today: a version-2 leaf next to it.
            await finished_game(api)
            assert await append_round(conn, identity) == 2
        finally:
            await conn.close()
        checkpoint = checked((await http.get("/log/checkpoint")).text, await log_keys(http))
        (proven,) = (await http.get(f"/games/{old_game}/log-proof", headers=moderator)).json()["leaves"]
        assert proven["tag"] is None
        assert base64.b64decode(proven["leaf_data"]) == merkle.leaf_data(old_game, seq, old_head)
        proof = [base64.b64decode(p) for p in proven["proof"]]
        assert merkle.verify_inclusion(leaf, 0, checkpoint.size, proof, checkpoint.root)
        # Its hashes are served; its entry, which would name the game, is not.
        assert (await http.get(f"/log/tile/{tile_path(0, 0, 2)}")).status_code == 200
        bundle = await http.get("/log/tile/entries/000.p/2")
        assert bundle.status_code == 404 and bundle.json()["code"] == "no_such_tile"
