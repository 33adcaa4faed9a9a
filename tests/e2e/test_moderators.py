"""Moderators have names; a revoked name is refused on the next request on every instance."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from contextlib import AsyncExitStack

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.http.app import create_app
from tests.e2e.commandline import playlog


async def cli(settings: Settings, *args: str) -> str:
    code, out, err = await playlog(settings, "moderator-token", *args)
    assert code == 0, err[-2000:]
    return out


async def status(http: AsyncTestClient[Litestar], game_id: str, token: str) -> int:
    response = await http.get(
        f"/games/{game_id}/audit/log",
        params={"reason": "incident"},  # the game has not ended: a read needs a why
        headers={"Authorization": f"Bearer {token}"},
    )
    return response.status_code


async def test_a_revoked_moderator_is_refused_by_every_instance(settings: Settings) -> None:
    # A cache that would trust its list for an hour: only the notification can make this pass.
    slow_cache = dataclasses.replace(settings, moderator_cache_seconds=3600.0)
    async with AsyncExitStack() as stack:
        first, second = [
            await stack.enter_async_context(AsyncTestClient(create_app(slow_cache))) for _ in range(2)
        ]
        game = (
            await first.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
        ).json()
        game_id = game["game_id"]
        mia = (await cli(settings, "--name", "mia", "--ttl", "2")).strip()
        max_ = (await cli(settings, "--name", "max")).strip()
        for http in (first, second):
            assert await status(http, game_id, mia) == 200  # each instance has cached the names
        assert "mia" in await cli(settings, "--list")

        await cli(settings, "--revoke", "mia")

        deadline = time.monotonic() + 30  # the notification arrives; bounded, not timed
        while {await status(http, game_id, mia) for http in (first, second)} != {401}:
            assert time.monotonic() < deadline, "an instance still accepts a revoked moderator"
            await asyncio.sleep(0.05)
        listed = await cli(settings, "--list")
        assert "mia" not in listed and "max" in listed
        assert {await status(http, game_id, max_) for http in (first, second)} == {200}

        # A token issued after the revocation works again.
        again = (await cli(settings, "--name", "mia")).strip()
        assert {await status(http, game_id, again) for http in (first, second)} == {200}


async def test_a_moderator_token_must_name_its_moderator(
    settings: Settings, http: AsyncTestClient[Litestar]
) -> None:
    from service.app.auth import Principal, issue

    game = (await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})).json()
    nameless = issue(settings.keyring(), Principal(role="moderator"), 600)
    assert await status(http, game["game_id"], nameless) == 401


async def _claimed_dispute(http: AsyncTestClient[Litestar], mia: str) -> str:
    """A finished game's dispute, claimed by the moderator whose token is ``mia``."""
    from service.tools.client import PlaylogClient

    api = PlaylogClient(str(http.base_url), http=http)
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    seats = [await api.join(created.game_id, name) for name in ("ann", "ben")]
    await api.start(created.game_id, created.host_token)
    await api.leave(created.game_id, 0, seats[0].token)
    raised = await http.post(
        f"/games/{created.game_id}/disputes",
        json={"seqs": [2], "category": "rules", "reason": "a rule was broken"},
        headers={"Authorization": f"Bearer {seats[0].token}"},
    )
    dispute_id: str = raised.json()["dispute_id"]
    claimed = await http.post(
        f"/moderation/disputes/{dispute_id}/claim", headers={"Authorization": f"Bearer {mia}"}
    )
    assert claimed.status_code == 200, claimed.text
    return dispute_id


async def _queue_status(http: AsyncTestClient[Litestar], token: str, dispute_id: str) -> object:
    """The dispute's status in the moderators' queue (None: the queue does not show it yet)."""
    queue = await http.get("/moderation/disputes", headers={"Authorization": f"Bearer {token}"})
    return next((d["status"] for d in queue.json()["items"] if d["dispute_id"] == dispute_id), None)


async def test_revoking_a_moderator_puts_its_claims_back_in_the_queue(
    settings: Settings, http: AsyncTestClient[Litestar]
) -> None:
    # Given a dispute claimed by mia, as the queue shows it
    mia = (await cli(settings, "--name", "mia")).strip()
    max_ = (await cli(settings, "--name", "max")).strip()
    dispute_id = await _claimed_dispute(http, mia)
    deadline = time.monotonic() + 30
    while await _queue_status(http, max_, dispute_id) != "claimed":
        assert time.monotonic() < deadline, "the queue never showed the claim"
        await asyncio.sleep(0.05)

    # When mia's tokens are revoked
    said = await cli(settings, "--revoke", "mia")

    # Then the CLI released the claim, the queue shows the dispute open and its history says why
    assert "released 1 dispute" in said
    while await _queue_status(http, max_, dispute_id) != "open":
        assert time.monotonic() < deadline, "the queue still shows the revoked claim"
        await asyncio.sleep(0.05)
    detail = (
        await http.get(f"/moderation/disputes/{dispute_id}", headers={"Authorization": f"Bearer {max_}"})
    ).json()
    released = [h for h in detail["dispute"]["history"] if h["type"] == "released"]
    assert [(h["by"], "revoked" in h["text"]) for h in released] == [("mia", True)]
    # And another moderator can take it
    taken = await http.post(
        f"/moderation/disputes/{dispute_id}/claim", headers={"Authorization": f"Bearer {max_}"}
    )
    assert taken.status_code == 200 and taken.json()["claimed_by"] == "max", taken.text


async def test_a_claim_the_queue_missed_at_revocation_is_released_when_another_moderator_acts(
    settings: Settings, http: AsyncTestClient[Litestar]
) -> None:
    import asyncpg

    from service.app import moderators

    # Given a dispute claimed by mia, and mia revoked without the CLI's release
    mia = (await cli(settings, "--name", "mia")).strip()
    max_ = (await cli(settings, "--name", "max")).strip()
    dispute_id = await _claimed_dispute(http, mia)
    conn = await asyncpg.connect(str(settings.database_url))
    try:
        assert await moderators.revoke(conn, "mia")
    finally:
        await conn.close()

    # When another moderator claims it
    taken = await http.post(
        f"/moderation/disputes/{dispute_id}/claim", headers={"Authorization": f"Bearer {max_}"}
    )

    # Then the server released mia's claim first, and the dispute is max's
    assert taken.status_code == 200, taken.text
    history = [(h["type"], h["by"]) for h in taken.json()["history"]]
    assert history[-3:] == [("claimed", "mia"), ("released", "mia"), ("claimed", "max")]
