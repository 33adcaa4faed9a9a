"""Access records (issue 37): every face-up read by a moderator is on the record, a running game is
read face up only with a why, and each seat of a game sees who looked (service/app/access.py)."""

from __future__ import annotations

import base64
import dataclasses
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections.export import format as export_format
from projections.export import verify as export_verify
from service.app.auth import Principal, issue
from service.config import Settings
from service.http.app import create_app
from service.readmodels.rebuild import rebuild
from service.store import portable
from service.store.events import EventStore
from service.tools.client import JoinedSeat, PlaylogClient
from tests.e2e.test_export import other_database_url  # noqa: F401  (a fixture)
from tests.e2e.test_numbering_leaks import _auth, _window_open

MODERATOR = "mia"

# The GET operations a moderator's token may call that show nothing hidden from the seats, and why.
SHOWS_NOTHING_HIDDEN = {
    "getGame": "the public summary (status, seats, winners): live for a moderator, no card",
    "listGameDisputes": "the disputes' records: categories, texts and rulings, no card or order",
    "disputeQueue": "which disputes wait, not what a game holds",
    "listAccessRecords": "the access records themselves",
    "gameLogProof": "the game's heads in the transparency log: hashes and seqs, no card or order",
    "openIncidents": "which games lost acknowledged seqs, and their seqs: no card or order",
}
# The GET operations that refuse a moderator's token: another principal's reads, and why.
NOT_A_MODERATORS = {
    "getSeatView": "a seat token's own view",
    "getSeatEvents": "a seat token's own events",
    "streamSeatEvents": "a seat token's own stream",
    "seatTranscript": "a seat token's own transcript",
    "seatTrace": "a seat token's own match trace",
    "listMyGames": "a player token's games",
    "myGameTranscript": "a player token's own transcripts",
    "listWebhooks": "a player token's own webhooks",
}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def moderator_headers(settings: Settings, name: str = MODERATOR) -> dict[str, str]:
    return bearer(issue(settings.keyring(), Principal(role="moderator", name=name), 3600))


@pytest.fixture
def mod(settings: Settings) -> dict[str, str]:
    return moderator_headers(settings)


@dataclass
class Table:
    """A running 2-seat game whose seats joined with player tokens."""

    game_id: uuid.UUID
    seats: list[JoinedSeat]
    players: list[str]  # their player tokens

    def seat(self, n: int) -> dict[str, str]:
        return bearer(self.seats[n].token)

    def player(self, n: int) -> dict[str, str]:
        return bearer(self.players[n])


async def running(api: PlaylogClient) -> Table:
    players = [await api.create_player(name) for name in ("ann", "ben")]
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=0
    )
    seats = [await api.join(created.game_id, player_token=p.token) for p in players]
    await api.start(created.game_id, created.host_token)
    return Table(created.game_id, seats, [p.token for p in players])


async def end(api: PlaylogClient, table: Table) -> None:
    summary = await api.leave(table.game_id, 0, table.seats[0].token)  # seat 1 wins
    assert summary.winners == [1]


async def raise_dispute(http: AsyncTestClient[Litestar], table: Table, seat: int = 0) -> str:
    body = {"seqs": [2], "category": "rules", "reason": "the deal looked wrong"}
    response = await http.post(f"/games/{table.game_id}/disputes", json=body, headers=table.seat(seat))
    assert response.status_code == 201, response.text
    dispute_id: str = response.json()["dispute_id"]
    return dispute_id


async def records(http: AsyncTestClient[Litestar], game_id: uuid.UUID, headers: dict[str, str]) -> Any:
    response = await http.get(f"/games/{game_id}/access", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()["items"]


async def refused(response: Any, status: int, code: str) -> None:
    assert (response.status_code, response.json()["code"]) == (status, code), response.text


# -- coverage: every operation --------------------------------------------------------------------


def _moderators_gets(document: dict[str, Any]) -> list[tuple[str, str]]:
    """Every GET operation of the document that reads a token: (operationId, path)."""
    return [
        (operation["operationId"], path)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method == "get" and (operation.get("security") or operation.get("x-playlog-optional-token"))
    ]


def _path(template: str, game_id: uuid.UUID, dispute_id: str) -> str:
    filled = template.format(game_id=game_id, dispute_id=dispute_id, seat=0, player_id=uuid.uuid4())
    assert "{" not in filled, f"a path parameter this test cannot fill: {template}"
    return filled


async def _walk(
    http: AsyncTestClient[Litestar],
    mod: dict[str, str],
    game_id: uuid.UUID,
    dispute_id: str,
    why: dict[str, str],
) -> dict[str, int]:
    """Call every GET operation with a moderator token; how many records each left."""
    document = (await http.get("/schema/openapi.json")).json()
    left: dict[str, int] = {}
    for operation, template in _moderators_gets(document):
        before = len(await records(http, game_id, mod))
        response = await http.get(_path(template, game_id, dispute_id), params=why, headers=mod)
        after = await records(http, game_id, mod)
        if operation in NOT_A_MODERATORS:
            assert response.status_code in (401, 403), (operation, response.text)
        else:
            assert response.status_code == 200, (operation, response.text)
        left[operation] = len(after) - before
        if left[operation]:
            assert after[-1]["operation"] == operation and after[-1]["moderator"] == MODERATOR
    return left


async def test_every_face_up_read_of_the_openapi_document_leaves_a_record(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    table = await running(api)
    dispute_id = await raise_dispute(http, table)
    for why in ({"reason": "incident"}, {}):  # running with a reason; then ended, with none
        left = await _walk(http, mod, table.game_id, dispute_id, why)
        quiet = {op for op, n in left.items() if n == 0}
        assert quiet == SHOWS_NOTHING_HIDDEN.keys() | NOT_A_MODERATORS.keys(), left
        assert all(n == 1 for op, n in left.items() if op not in quiet), left
        assert {"auditLog", "auditState", "exportGame", "getDispute", "verifyChain"} <= left.keys()
        if not why:
            break
        await end(api, table)
    reasons = {r["reason"] for r in await records(http, table.game_id, mod)}
    assert reasons == {"incident", "after_end", "dispute"}  # the dispute's detail names its own


async def test_a_running_game_is_not_read_face_up_without_a_reason(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    """The dishonest moderator: no reason, refused; with one, recorded, and the seats see it after
    the end (not before, the read being about no dispute of theirs)."""
    table = await running(api)
    log = f"/games/{table.game_id}/audit/log"
    await refused(await http.get(log, headers=mod), 403, "access_reason_required")
    await refused(await http.get(log, params={"reason": "curious"}, headers=mod), 400, "invalid_reason")
    unknown = {"dispute": str(uuid.uuid4())}
    await refused(await http.get(log, params=unknown, headers=mod), 403, "access_reason_required")
    await refused(
        await http.get(f"/games/{table.game_id}/export", headers=mod), 403, "access_reason_required"
    )
    assert await records(http, table.game_id, mod) == []  # a refused read is no read

    why = {"reason": "cheating_report", "note": "ticket 81"}
    assert (await http.get(log, params=why, headers=mod)).status_code == 200
    assert await records(http, table.game_id, table.seat(1)) == []  # not yet: the game runs
    await end(api, table)
    [seen] = await records(http, table.game_id, table.seat(1))
    assert seen["moderator"] == MODERATOR and seen["operation"] == "auditLog"
    assert (seen["reason"], seen["note"], seen["dispute_id"]) == ("cheating_report", "ticket 81", None)
    assert seen["n"] is None and seen["hash"] is None  # seats read no chain
    assert seen["seq_from"] == 1 and seen["seq_to"] >= 1


async def test_a_seat_sees_the_reads_of_its_own_dispute_at_once(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    table = await running(api)
    mine = await raise_dispute(http, table, seat=0)
    resolved = await raise_dispute(http, table, seat=1)
    claimed = await http.post(f"/moderation/disputes/{resolved}/claim", headers=mod)
    assert claimed.status_code == 200
    ruled = await http.post(
        f"/moderation/disputes/{resolved}/resolve",
        json={"verdict": "dismissed", "explanation": "fine"},
        headers=mod,
    )
    assert ruled.status_code == 200, ruled.text
    # A resolved dispute no longer opens a running game.
    stale = await http.get(f"/games/{table.game_id}/audit/state", params={"dispute": resolved}, headers=mod)
    await refused(stale, 403, "access_reason_required")
    state = await http.get(
        f"/games/{table.game_id}/audit/state", params={"dispute": mine, "at": 3}, headers=mod
    )
    assert state.status_code == 200
    detail = await http.get(f"/moderation/disputes/{mine}", headers=mod)
    assert detail.status_code == 200 and detail.json()["disputed"]
    polled = await http.get(f"/moderation/disputes/{mine}", params={"states": "false"}, headers=mod)
    assert polled.status_code == 200 and polled.json()["disputed"] == []  # not face up, no record

    seen = await records(http, table.game_id, table.seat(0))
    assert [(r["operation"], r["reason"], r["dispute_id"]) for r in seen] == [
        ("auditState", "dispute", mine),
        ("getDispute", "dispute", mine),
    ]
    assert await records(http, table.game_id, table.seat(1)) == []  # not its dispute
    assert await records(http, table.game_id, table.player(0)) == seen  # the player who holds it
    await refused(await http.get(f"/games/{table.game_id}/access"), 401, "unauthorized")


async def test_a_seat_lists_exactly_the_reads_made_of_its_game(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], settings: Settings
) -> None:
    table = await running(api)
    await end(api, table)
    base = f"/games/{table.game_id}"
    reads = [
        ("auditLog", f"{base}/audit/log", {}),
        ("auditState", f"{base}/audit/state", {"at": "2"}),
        ("auditDiffs", f"{base}/audit/diffs", {"note": "checking a report"}),
        ("auditTranscript", f"{base}/audit/transcript", {}),
        ("verifyChain", f"{base}/audit/verify", {"reason": "incident"}),
        ("auditGame", f"{base}/audit/", {}),
        ("exportGame", f"{base}/export", {}),
        ("auditLog", f"{base}/audit/log", {}),
    ]
    for _, path, params in reads:
        assert (await http.get(path, params=params, headers=mod)).status_code == 200
    # Anyone's reads of the finished public game are not privileged: not recorded.
    assert (await http.get(f"{base}/audit/log")).status_code == 200
    assert (await http.get(f"{base}/audit/log", headers=table.seat(0))).status_code == 200

    everything = await records(http, table.game_id, mod)
    assert [r["n"] for r in everything] == list(range(1, len(reads) + 1))
    for seat in (0, 1):
        seen = await records(http, table.game_id, table.seat(seat))
        assert [r["operation"] for r in seen] == [operation for operation, _, _ in reads]
        assert await records(http, table.game_id, table.player(seat)) == seen
    by_n = {r["n"]: r for r in everything}
    assert by_n[2]["seq_to"] == 2 and by_n[3]["note"] == "checking a report"
    assert [by_n[n]["reason"] for n in (1, 5)] == ["after_end", "incident"]

    stranger = await api.create_player("cy")
    await refused(await http.get(f"{base}/access", headers=bearer(stranger.token)), 403, "not_seated")
    other = await running(api)
    await refused(await http.get(f"{base}/access", headers=other.seat(0)), 403, "not_seated")
    assert len(await records(http, table.game_id, mod)) == len(reads)  # listing is no read


async def test_a_seat_reads_each_range_in_its_own_numbering(server_url: str, settings: Settings) -> None:
    """Seat 2 cannot see seat 1's pass: a read up to the end counts only what seat 2 saw."""
    mod = moderator_headers(settings)
    async with httpx.AsyncClient(base_url=server_url) as http:
        game = await _window_open(PlaylogClient(server_url, http=http), mod)
        await game.send(1, {"type": "PassReaction"})  # hidden from seat 2
        await game.send(2, {"type": "PassReaction"})
        base = f"/games/{game.id}"
        raised = await http.post(
            f"{base}/disputes", json={"seqs": [1], "category": "rules", "reason": "r"}, headers=_auth(game, 2)
        )
        dispute = raised.json()["dispute_id"]
        assert (
            await http.get(f"{base}/audit/log", params={"dispute": dispute}, headers=mod)
        ).status_code == 200
        # The deal was chosen by a moderator's read of the seed (tests/e2e/dealt.py): a record too.
        listed = (await http.get(f"{base}/access", headers=mod)).json()["items"]
        [logged] = [r for r in listed if r["operation"] == "auditLog"]
        [seen] = (await http.get(f"{base}/access", headers=_auth(game, 2))).json()["items"]
        own = (await http.get(f"{base}/seats/2/events", headers=_auth(game, 2))).json()
        assert seen["seq_to"] == own[-1]["seq"] < logged["seq_to"]


# -- pages (docs/api.md, "Pages") ------------------------------------------------------------------


async def _pages(
    http: AsyncTestClient[Litestar], url: str, headers: dict[str, str], between: Any = None
) -> list[dict[str, Any]]:
    """Every page of ``url`` following ``next`` (and checking ``Link`` says the same), awaiting
    ``between()`` after each page but the last."""
    pages: list[dict[str, Any]] = []
    while True:
        response = await http.get(url, headers=headers)
        assert response.status_code == 200, response.text
        pages.append(response.json())
        following = pages[-1]["next"]
        if following is None:
            assert "link" not in response.headers
            return pages
        assert response.headers["link"] == f'<{following}>; rel="next"'
        url = following
        if between is not None:
            await between()


async def _read(http: AsyncTestClient[Litestar], table: Table, mod: dict[str, str], **why: str) -> None:
    response = await http.get(f"/games/{table.game_id}/audit/log", params=why, headers=mod)
    assert response.status_code == 200, response.text


async def test_paging_to_the_end_gives_every_record_once_with_records_added_between_pages(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    table = await running(api)
    await end(api, table)
    for _ in range(5):
        await _read(http, table, mod)
    base = f"/games/{table.game_id}/access"

    async def another() -> None:
        await _read(http, table, mod, note="while a client pages")

    for headers in (mod, table.seat(0), table.player(1)):
        pages = await _pages(http, f"{base}?limit=2", headers, between=another)
        assert all(len(page["items"]) <= 2 for page in pages)
        paged = [r for page in pages for r in page["items"]]
        everything = await records(http, table.game_id, headers)
        assert len(everything) > 5 and paged == everything  # each once, none skipped, in order
    by_n = [r["n"] for r in await records(http, table.game_id, mod)]
    assert by_n == list(range(1, len(by_n) + 1))


async def test_records_of_one_microsecond_page_without_a_skip_or_a_repeat(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], pool: asyncpg.Pool
) -> None:
    """The database's clock can give two appends one ``at``: the cursor counts the reader's ties."""
    table = await running(api)
    await end(api, table)
    await _read(http, table, mod)
    for n in (2, 3, 4):  # ties of record 1's time, as two appends in one microsecond would be
        await pool.execute(
            "INSERT INTO access_records (game_id, n, at, moderator, operation, seq_from, seq_to,"
            " reason, dispute_id, note, prev_hash, hash) SELECT game_id, $2, at, moderator,"
            " operation, seq_from, seq_to, reason, dispute_id, $3, prev_hash, hash"
            " FROM access_records WHERE game_id = $1 AND n = 1",
            table.game_id,
            n,
            f"tie {n}",
        )
    await _read(http, table, mod)
    for limit in (1, 2, 3):
        for headers in (mod, table.seat(1)):
            pages = await _pages(http, f"/games/{table.game_id}/access?limit={limit}", headers)
            notes = [r["note"] for page in pages for r in page["items"]]
            assert notes == [None, "tie 2", "tie 3", "tie 4", None]


async def test_a_seats_cursor_shows_nothing_it_may_not_see(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    """Seat 0 pages the reads of its own dispute while the game runs: the moderators' reads for
    another seat's dispute or with a reason, which it may not see, change none of its pages,
    cursors or links."""
    table = await running(api)
    mine = await raise_dispute(http, table, seat=0)
    theirs = await raise_dispute(http, table, seat=1)
    for _ in range(3):
        await _read(http, table, mod, dispute=mine)
    url = f"/games/{table.game_id}/access?limit=1"

    async def seen() -> list[tuple[dict[str, Any], str | None]]:
        pages: list[tuple[dict[str, Any], str | None]] = []
        following: str | None = url
        while following is not None:
            response = await http.get(following, headers=table.seat(0))
            assert response.status_code == 200, response.text
            pages.append((response.json(), response.headers.get("link")))
            following = response.json()["next"]
        return pages

    alone = await seen()
    assert [len(page["items"]) for page, _ in alone] == [1, 1, 1]
    for why in ({"dispute": theirs}, {"reason": "incident"}, {"dispute": theirs}):
        await _read(http, table, mod, **why)
    assert len(await records(http, table.game_id, mod)) == 6
    assert await seen() == alone  # the same bodies, cursors and links
    assert len(await records(http, table.game_id, table.seat(1))) == 2  # seat 1's own dispute's


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("limit=0", "invalid_limit"),
        ("limit=201", "invalid_limit"),
        ("limit=many", "invalid_limit"),
        ("cursor=made-up", "invalid_cursor"),
        ("cursor=" + base64.urlsafe_b64encode(b'["disputes",1,2]').decode().rstrip("="), "invalid_cursor"),
        ("cursor=" + base64.urlsafe_b64encode(b'["access",1,-1]').decode().rstrip("="), "invalid_cursor"),
        ("cursor=" + base64.urlsafe_b64encode(b'["access",1]').decode().rstrip("="), "invalid_cursor"),
    ],
)
async def test_a_bad_cursor_or_limit_is_refused(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], query: str, code: str
) -> None:
    table = await running(api)
    await end(api, table)
    for headers in (mod, table.seat(0)):
        response = await http.get(f"/games/{table.game_id}/access?{query}", headers=headers)
        await refused(response, 400, code)
        assert response.headers["content-type"].startswith("application/problem+json")


@asynccontextmanager
async def _client(settings: Settings, **changes: Any) -> AsyncIterator[tuple[PlaylogClient, Any]]:
    async with AsyncTestClient(create_app(dataclasses.replace(settings, **changes))) as http:
        yield PlaylogClient(str(http.base_url), http=http), http


async def test_the_player_who_held_a_seat_reads_the_records_after_its_seat_token_lapsed(
    settings: Settings,
) -> None:
    async with _client(settings, seat_token_after_game=0.0) as (api, http):
        table = await running(api)
        await end(api, table)
        mod = moderator_headers(settings)
        assert (await http.get(f"/games/{table.game_id}/audit/log", headers=mod)).status_code == 200
        await refused(
            await http.get(f"/games/{table.game_id}/access", headers=table.seat(1)), 401, "token_expired"
        )
        [seen] = await records(http, table.game_id, table.player(1))
        assert seen["operation"] == "auditLog"


async def test_records_survive_a_rebuild_and_refuse_change(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    mod: dict[str, str],
    database_url: str,
    pool: asyncpg.Pool,
    store: EventStore,
) -> None:
    table = await running(api)
    await end(api, table)
    assert (await http.get(f"/games/{table.game_id}/audit/log", headers=mod)).status_code == 200
    before = await records(http, table.game_id, mod)
    await rebuild(store, database_url)
    assert await records(http, table.game_id, mod) == before
    for statement in (
        "UPDATE access_records SET note = 'x'",
        "DELETE FROM access_records",
        "TRUNCATE access_records",
    ):
        with pytest.raises(asyncpg.PostgresError, match="append-only"):
            await pool.execute(statement)


async def test_a_read_that_cannot_be_recorded_is_not_shown(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str], pool: asyncpg.Pool
) -> None:
    table = await running(api)
    await end(api, table)
    await pool.execute("ALTER TABLE access_records RENAME TO access_records_away")
    try:
        response = await http.get(f"/games/{table.game_id}/audit/log", headers=mod)
        await refused(response, 503, "access_not_recorded")
        assert "DeckDealt" not in response.text
    finally:
        await pool.execute("ALTER TABLE access_records_away RENAME TO access_records")


# -- the export ------------------------------------------------------------------------------------


async def _export(api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]) -> list[str]:
    table = await running(api)
    for reason in ("incident", "cheating_report"):
        assert (
            await http.get(f"/games/{table.game_id}/audit/log", params={"reason": reason}, headers=mod)
        ).status_code == 200
    await end(api, table)
    response = await http.get(f"/games/{table.game_id}/export", headers=mod)
    assert response.status_code == 200
    return response.text.splitlines(keepends=True)


def _access(lines: list[str]) -> list[tuple[int, dict[str, Any]]]:
    return [(i, json.loads(line)) for i, line in enumerate(lines) if json.loads(line)["record"] == "access"]


def _rechained(lines: list[str], game_id: str) -> list[str]:
    """The access lines' chain recomputed after a change, as a forger would."""
    out = list(lines)
    running = export_format.GENESIS_HASH
    for i, record in _access(out):
        record["prev_hash"] = running.hex()
        line = export_format._access_line(record)
        record["hash"] = export_format.access_digest(running, game_id, line).hex()
        running = bytes.fromhex(record["hash"])
        out[i] = json.dumps(record) + "\n"
    return out


PROOFS = ("receipt_keys", "proof", "checkpoint")  # the last lines of the service's exports


async def test_an_export_carries_the_records_and_verify_names_a_tampered_one(
    api: PlaylogClient, http: AsyncTestClient[Litestar], mod: dict[str, str]
) -> None:
    lines = await _export(api, http, mod)
    report = export_verify.verify_lines(lines)
    assert report.ok and report.access == 3, report.lines()  # two reads and the export itself
    kinds = [json.loads(line)["record"] for line in lines if json.loads(line)["record"] not in PROOFS]
    assert kinds[-3:] == ["access"] * 3 and "shuffle" in kinds[:-3]  # the game's lines, then its proofs
    game_id = json.loads(lines[0])["game_id"]
    without = [line for line in lines if json.loads(line)["record"] != "access"]
    assert export_verify.verify_lines(without).ok  # an export without access lines stays valid

    ((i, second),) = [(i, r) for i, r in _access(lines) if r["n"] == 2]
    edited = list(lines)
    edited[i] = json.dumps({**second, "moderator": "nobody"}) + "\n"
    report = export_verify.verify_lines(edited)
    assert (report.access_ok, report.first_bad_access, report.first_bad_seq) == (False, 2, None)
    assert "access record 2 (access): content does not match its hash" in "\n".join(report.lines())

    # Recomputing the chain hides no change the log contradicts: a read before the end passed off
    # as one after it, a range beyond what was logged by then, a record dropped.
    edited = list(lines)
    edited[i] = json.dumps({**second, "reason": "after_end"}) + "\n"
    report = export_verify.verify_lines(_rechained(edited, game_id))
    assert report.first_bad_access == 2 and "before the game ended" in "\n".join(report.lines())
    edited[i] = json.dumps({**second, "seq_to": 10_000}) + "\n"
    report = export_verify.verify_lines(_rechained(edited, game_id))
    assert report.first_bad_access == 2 and "were not all logged" in "\n".join(report.lines())
    dropped = [line for n, line in enumerate(lines) if n != i]
    report = export_verify.verify_lines(dropped)
    assert report.first_bad_access == 2 and "access record 2 is missing" in "\n".join(report.lines())


async def test_an_import_loads_the_access_records(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    mod: dict[str, str],
    other_database_url: str,  # noqa: F811
) -> None:
    lines = await _export(api, http, mod)
    conn = await asyncpg.connect(other_database_url)
    try:
        await portable.import_game(conn, export_format.read(lines))
        game_id = uuid.UUID(json.loads(lines[0])["game_id"])
        again = [line async for line in portable.export_lines(conn, game_id, now=0.0)]
    finally:
        await conn.close()
    own = [json.loads(line) for line in lines[1:] if json.loads(line)["record"] not in PROOFS]
    assert [json.loads(line) for line in again[1:]] == own  # the proofs are the log's, not the game's
