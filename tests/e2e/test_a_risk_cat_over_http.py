"""A Risk Cat through the same service: a bot game, streams, replay and proofs."""

from __future__ import annotations

import random

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.bot import play_game
from service.tools.client import ApiError, PlaylogClient
from tests.e2e.conftest import started_game


async def test_a_risk_cat_bot_game_runs_to_the_end_and_audits(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> None:
    """The game's smoke test: every kind of move and decision of a full game (the powers too)
    carried over HTTP to its end. Player counts and modes are rules, proven in the unit tests
    (domain/a_risk_cat/tests/, the conformance kit)."""
    report = await play_game(api, "a_risk_cat", {"players": 8, "mode": "full"}, rng=random.Random(8))
    assert report.errors == []
    assert report.finished and report.verified
    assert report.winners

    moderator = {
        "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='mod'), 3600)}"
    }
    audit = (await http.get(f"/games/{report.game_id}/audit", headers=moderator)).json()
    assert audit["chain"]["ok"] and audit["shuffles_valid"]
    assert audit["shuffles"][0]["type"] == "ARiskCatGameSetUp"
    final = (await http.get(f"/games/{report.game_id}/audit/state", headers=moderator)).json()
    scores = final["state"]["game"]
    assert final["state"]["status"] == "finished"
    assert scores is not None
    text = (await http.get(f"/games/{report.game_id}/audit/transcript", headers=moderator)).text
    assert "TokenDrawn" in text


async def test_the_old_timeout_tag_is_refused_to_a_seat_exactly_as_act_on_timeout(api: PlaylogClient) -> None:
    # Issue 39: ``ARiskCatActOnTimeout`` is the kernel's ``ActOnTimeout``, the server's alone.
    game = await started_game(api, "a_risk_cat", players=3, decision_timeout=30)
    refusals = []
    for tag in ("ActOnTimeout", "ARiskCatActOnTimeout"):
        with pytest.raises(ApiError) as refused:
            await game.send(0, {"type": tag})
        refusals.append((refused.value.status, refused.value.code, refused.value.detail))
    assert refusals[0] == refusals[1] and refusals[0][1] == "server_only"
