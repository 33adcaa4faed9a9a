"""Portable export: a game leaves one database as a file, verifies offline, enters another."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from click.testing import CliRunner
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections.export import format as export_format
from projections.export import verify as export_verify
from service.app.auth import Principal, issue
from service.config import Settings
from service.http.app import create_app
from service.store import portable
from service.store.events import EventStore
from service.tools.bot import play_game
from service.tools.cli import main
from service.tools.client import PlaylogClient
from tests.conftest import with_database
from tests.e2e.conftest import started_game


@pytest.fixture
def moderator(settings: Settings) -> dict[str, str]:
    return {
        "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='mod'), 3600)}"
    }


@pytest.fixture
async def other_database_url(postgres_server_url: str, template_database: str) -> AsyncIterator[str]:
    """A second fresh database: where an exported game is imported."""
    name = f"playlog_other_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(postgres_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_database}"')
        yield with_database(postgres_server_url, name)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def _exported(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str], kind: str, options: dict
) -> list[str]:
    report = await play_game(api, kind, options, rng=random.Random(7))
    assert report.finished, (report.commands, report.errors[:3], report.errors[-1:])  # why, when it is not
    response = await http.get(f"/games/{report.game_id}/export", headers=moderator)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return response.text.splitlines(keepends=True)


@pytest.fixture
async def exploding(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> list[str]:
    return await _exported(
        api, http, moderator, "exploding_kittens", {"players": 3, "reaction_window": 0, "seed": 11}
    )


PROOFS = ("receipt_keys", "proof", "checkpoint")  # lines a store's export lacks: the log's


def _own(lines: list[str]) -> list[str]:
    """The game's own lines of an export, without the log's proofs."""
    return [line for line in lines if json.loads(line)["record"] not in PROOFS]


def _records(lines: list[str]) -> list[dict]:
    return [json.loads(line) for line in lines]


async def test_an_exported_game_verifies_offline_with_chain_shuffles_and_replay(exploding: list[str]) -> None:
    report = export_verify.verify_lines(exploding)
    assert report.ok, report.lines()
    header = _records(exploding)[0]
    assert header["kind"] == "exploding_kittens"
    assert header["rules_version"] == 1
    assert header["schema_versions"]["lobby.created"] == 1
    assert report.winners == header["winners"]
    assert report.shuffles >= 1
    assert report.events == header["events"]


async def test_an_a_risk_cat_game_verifies_offline(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    lines = await _exported(api, http, moderator, "a_risk_cat", {"players": 3, "mode": "full", "seed": 5})
    report = export_verify.verify_lines(lines)
    assert report.ok, report.lines()
    assert report.shuffles >= 1


async def test_an_exported_game_imports_into_another_database_where_its_chain_verifies(
    exploding: list[str], other_database_url: str
) -> None:
    export = export_format.read(exploding)
    conn = await asyncpg.connect(other_database_url)
    try:
        await portable.import_game(conn, export)
        chain = await EventStore(conn).verify(uuid.UUID(export.header.game_id))
        again = [line async for line in portable.export_lines(conn, uuid.UUID(export.header.game_id), now=0)]
    finally:
        await conn.close()
    assert chain.ok and chain.events == len(export.events)
    assert again[1:] == _own(exploding)[1:]  # the same rows, byte for byte (the proofs are the log's)


async def test_an_imported_game_can_be_audited_by_the_app_on_the_other_database(
    exploding: list[str], other_database_url: str, settings: Settings
) -> None:
    export = export_format.read(exploding)
    conn = await asyncpg.connect(other_database_url)
    try:
        await portable.import_game(conn, export)
    finally:
        await conn.close()
    elsewhere = dataclasses.replace(settings, database_url=other_database_url)
    async with AsyncTestClient(create_app(elsewhere)) as other:
        audit = (await other.get(f"/games/{export.header.game_id}/audit")).json()
        summary = (await other.get(f"/games/{export.header.game_id}")).json()
    assert audit["chain"]["ok"] and audit["shuffles_valid"]
    assert summary["status"] == "finished"
    assert summary["winners"] == export.header.winners


async def test_importing_a_game_that_exists_is_refused(exploding: list[str], database_url: str) -> None:
    conn = await asyncpg.connect(database_url)
    try:
        with pytest.raises(portable.ImportRefused) as refused:
            await portable.import_game(conn, export_format.read(exploding))
    finally:
        await conn.close()
    assert refused.value.code == "game_exists"


def _tamper_data(lines: list[str], seq: int) -> list[str]:
    """One byte of one event changed: a digit of its data."""
    out = list(lines)
    record = json.loads(out[seq])
    assert record["seq"] == seq
    line = out[seq]
    at = line.index('"data":') + len('"data":')
    digit = next(i for i in range(at, len(line)) if line[i].isdigit())
    out[seq] = line[:digit] + str((int(line[digit]) + 1) % 10) + line[digit + 1 :]
    return out


async def test_a_file_with_one_byte_of_one_event_changed_is_rejected_naming_the_seq(
    exploding: list[str], other_database_url: str
) -> None:
    tampered = _tamper_data(exploding, 5)
    report = export_verify.verify_lines(tampered)
    assert not report.ok and not report.chain_ok
    assert report.first_bad_seq == 5
    conn = await asyncpg.connect(other_database_url)
    try:
        with pytest.raises(portable.ImportRefused) as refused:
            await portable.import_game(conn, export_format.read(tampered))
        assert await conn.fetchval("SELECT count(*) FROM events") == 0
    finally:
        await conn.close()
    assert refused.value.code == "export_not_verified"


async def test_a_file_with_one_event_removed_is_rejected_naming_the_seq(exploding: list[str]) -> None:
    removed = exploding[:7] + exploding[8:]  # line 8 holds seq 7
    report = export_verify.verify_lines(removed)
    assert not report.chain_ok
    assert report.first_bad_seq == 7
    assert "seq 7 is missing" in "\n".join(report.lines())


async def test_a_file_with_its_last_event_removed_is_rejected(exploding: list[str]) -> None:
    records = _records(exploding)
    last = max(r["seq"] for r in records if r["record"] == "event")
    truncated = [line for line, r in zip(exploding, records, strict=True) if r.get("seq") != last]
    report = export_verify.verify_lines(truncated)
    assert not report.ok
    assert report.first_bad_seq == last


async def test_a_file_with_a_shuffle_reveal_altered_is_rejected_naming_the_seq(exploding: list[str]) -> None:
    records = _records(exploding)
    index, shuffle = next((i, r) for i, r in enumerate(records) if r["record"] == "shuffle")
    shuffle["order"][0], shuffle["order"][-1] = shuffle["order"][-1], shuffle["order"][0]
    if shuffle["order"][0] == shuffle["order"][-1]:
        shuffle["order"].reverse()
    altered = list(exploding)
    altered[index] = json.dumps(shuffle) + "\n"
    report = export_verify.verify_lines(altered)
    assert report.chain_ok and not report.shuffles_ok
    assert report.first_bad_seq == shuffle["seq"]


async def test_a_header_claiming_another_outcome_fails_the_replay(exploding: list[str]) -> None:
    records = _records(exploding)
    header = records[0]
    header["winners"] = [w + 1 for w in header["winners"]]
    report = export_verify.verify_lines([json.dumps(header) + "\n", *exploding[1:]])
    assert report.chain_ok and not report.replay_ok
    assert report.first_bad_seq == header["events"]


async def test_the_cli_verifies_a_file_and_exits_non_zero_naming_the_first_bad_seq(
    exploding: list[str], tmp_path: Path
) -> None:
    good = tmp_path / "game.jsonl"
    good.write_text("".join(exploding))
    bad = tmp_path / "tampered.jsonl"
    bad.write_text("".join(_tamper_data(exploding, 9)))
    runner = CliRunner()
    ok = runner.invoke(main, ["verify", str(good)])
    assert ok.exit_code == 0, ok.output
    assert ok.output.strip().endswith("OK")
    failed = runner.invoke(main, ["verify", str(bad)])
    assert failed.exit_code == 1
    assert "first bad seq 9" in failed.output


async def test_the_export_is_refused_to_anyone_but_a_moderator_while_the_game_runs(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    anonymous = await http.get(f"/games/{created.game_id}/export")
    assert anonymous.status_code == 401
    assert anonymous.json()["code"] == "moderator_only"
    unexplained = await http.get(f"/games/{created.game_id}/export", headers=moderator)
    assert unexplained.json()["code"] == "access_reason_required"  # the game has not ended
    why = {"reason": "incident"}
    assert (
        await http.get(f"/games/{created.game_id}/export", params=why, headers=moderator)
    ).status_code == 200
    missing = await http.get(f"/games/{uuid.uuid4()}/export", headers=moderator)
    assert missing.status_code == 404


async def test_anyone_may_export_a_finished_public_game_after_the_spectator_delay(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    report = await play_game(
        api, "exploding_kittens", {"players": 2, "reaction_window": 0}, rng=random.Random(3)
    )
    response = await http.get(f"/games/{report.game_id}/export")
    assert response.status_code == 200
    assert export_verify.verify_lines(response.text.splitlines()).ok


async def test_the_cli_exports_a_game_and_imports_it_into_another_database_once(
    exploding: list[str],
    database_url: str,
    other_database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    settings: Settings,
) -> None:
    game_id = json.loads(exploding[0])["game_id"]
    file = tmp_path / "game.jsonl"
    runner = CliRunner()
    monkeypatch.setenv("PLAYLOG_DATABASE_URL", database_url)
    monkeypatch.setenv("PLAYLOG_DATA_DIR", str(settings.data_dir))  # the service's keys
    exported = await asyncio.to_thread(runner.invoke, main, ["export", game_id, "-o", str(file)])
    assert exported.exit_code == 0, exported.output
    written = file.read_text().splitlines(keepends=True)
    assert _own(written)[1:] == _own(exploding)[1:]  # the proofs are as of each export
    assert json.loads(written[-1])["record"] in PROOFS  # the CLI's export carries its proofs

    monkeypatch.setenv("PLAYLOG_DATABASE_URL", other_database_url)
    imported = await asyncio.to_thread(runner.invoke, main, ["import", str(file)])
    assert imported.exit_code == 0, imported.output
    again = await asyncio.to_thread(runner.invoke, main, ["import", str(file)])
    assert again.exit_code == 1
    assert "game_exists" in again.output
    conn = await asyncpg.connect(other_database_url)
    try:
        assert (await EventStore(conn).verify(uuid.UUID(game_id))).ok
    finally:
        await conn.close()


async def test_the_cli_refuses_to_export_an_unknown_game(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAYLOG_DATABASE_URL", database_url)
    result = await asyncio.to_thread(CliRunner().invoke, main, ["export", str(uuid.uuid4())])
    assert result.exit_code == 1
    assert "does not exist" in result.output


async def ordered_export(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> list[str]:
    """A moderator's export of a finished game with every kind of line: personal lines, two
    shuffle lines or more, an access line and the proofs."""
    report = await play_game(
        api, "exploding_kittens", {"players": 3, "reaction_window": 0, "seed": 2}, rng=random.Random(7)
    )
    token = issue(settings.keyring(), Principal(role="moderator", name="mod"), 600)
    # The app's sequencer makes the game's head a leaf within its interval: then the export
    # carries its proofs.
    for _ in range(600):
        answer = await http.get(
            f"/games/{report.game_id}/export", headers={"Authorization": f"Bearer {token}"}
        )
        lines = answer.text.splitlines(keepends=True)
        kinds = [json.loads(line)["record"] for line in lines]
        if "proof" in kinds:
            break
        await asyncio.sleep(0.2)
    assert export_verify.verify_lines(lines).ok
    assert kinds.count("shuffle") >= 2 and {"personal", "access", "proof"} <= set(kinds), kinds
    return lines


def moved_line(lines: list[str], source: int, target: int) -> list[str]:
    """The file with its line at index ``source`` moved to index ``target`` (of what remains)."""
    out = list(lines)
    out.insert(target, out.pop(source))
    return out


def out_of_order(lines: list[str]) -> dict[str, tuple[list[str], int]]:
    """The four files of #56 that hold every line but not in the stated order, each with the line
    (1-based) that first breaks it."""
    kinds = [json.loads(line)["record"] for line in lines]
    first_shuffle, last_shuffle = kinds.index("shuffle"), len(kinds) - 1 - kinds[::-1].index("shuffle")
    personal_count = kinds.count("personal")
    swapped = list(lines)
    swapped[first_shuffle], swapped[first_shuffle + 1] = swapped[first_shuffle + 1], swapped[first_shuffle]
    personal = [line for line, kind in zip(lines, kinds, strict=True) if kind == "personal"]
    personal_last = [line for line, kind in zip(lines, kinds, strict=True) if kind != "personal"]
    after_shuffles = last_shuffle - personal_count + 1
    personal_last[after_shuffles:after_shuffles] = personal
    return {
        # a shuffle line between event lines 2 and 3: event 3 comes after a shuffle line
        "a shuffle among the events": (moved_line(lines, first_shuffle, 3), 5),
        # the personal lines after the shuffles: the first personal line follows a shuffle line
        "personal after the shuffles": (personal_last, after_shuffles + 1),
        # two shuffle lines swapped: the second is of a smaller seq
        "two shuffles swapped": (swapped, first_shuffle + 2),
        # a proof line right after the header: the first event follows it
        "a proof after the header": (moved_line(lines, kinds.index("proof"), 1), 3),
    }


async def test_a_file_out_of_its_stated_order_is_refused_naming_the_line(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> None:
    """docs/export-format.md states the order of the lines; a file holding every line of a
    genuine export, moved, is refused naming `line N (order)` by verify and by import."""
    lines = await ordered_export(api, http, settings)
    for name, (moved, line) in out_of_order(lines).items():
        assert sorted(moved) == sorted(lines), name
        report = export_verify.verify_lines(moved)
        assert not report.ok and report.first_bad_line == line, (name, report.lines())
        assert any(text.startswith(f"  line {line} (order): ") for text in report.lines()), report.lines()
        with pytest.raises(export_format.ExportError) as refused:  # what `playlog import` reads with
            export_format.read(moved)
        assert (refused.value.line, refused.value.check) == (line, "order"), name


async def test_an_unfinished_game_with_a_committed_server_seed_is_not_imported(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str], other_database_url: str
) -> None:
    """Its export carries the commitment, not the seed: the importing database could only go on
    with randomness no commitment explains, so it refuses the game (docs/export-format.md)."""
    game = await started_game(api, reaction_window=0)  # no `seed` option: the server's seed
    response = await http.get(f"/games/{game.id}/export", params={"reason": "incident"}, headers=moderator)
    lines = response.text.splitlines(keepends=True)
    report = export_verify.verify_lines(lines)
    assert report.ok and report.seed_committed and not report.seed_disclosed, report.lines()
    conn = await asyncpg.connect(other_database_url)
    try:
        with pytest.raises(portable.ImportRefused) as refused:
            await portable.import_game(conn, export_format.read(lines))
        assert await conn.fetchval("SELECT count(*) FROM events") == 0  # nothing half-written
    finally:
        await conn.close()
    assert refused.value.code == "server_seed_not_disclosed"
