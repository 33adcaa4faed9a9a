"""The ``moderator`` guard (service/http/api/guards.py), for routes only a moderator may call (the
dispute routes): no token 401, another role 403 ``moderator_only``, a moderator passes."""

from __future__ import annotations

from litestar import get
from litestar.datastructures import State
from litestar.testing import create_test_client

from service.app.auth import Keyring, Principal, issue
from service.http.api import guards
from service.http.errors import EXCEPTION_HANDLERS, problem_details_plugin

KEYS = Keyring.parse("k1:a-secret-for-tests-only-32-bytes-long")


class NoRevocations:
    async def check(self, principal: Principal) -> None:
        return None


@get("/only-moderators", guards=[guards.moderator])
async def only_moderators() -> str:
    return "ok"


def test_only_a_moderator_token_passes() -> None:
    state = State({"keyring": KEYS, "moderators": NoRevocations(), "players": NoRevocations()})
    with create_test_client(
        [only_moderators],
        state=state,
        plugins=[problem_details_plugin()],
        exception_handlers=EXCEPTION_HANDLERS,
    ) as client:
        assert client.get("/only-moderators").status_code == 401
        seat = issue(KEYS, Principal(role="player"), 60)
        refused = client.get("/only-moderators", headers={"Authorization": f"Bearer {seat}"})
        assert refused.status_code == 403 and refused.json()["code"] == "moderator_only"
        moderator = issue(KEYS, Principal(role="moderator", name="mod"), 60)
        assert client.get("/only-moderators", headers={"Authorization": f"Bearer {moderator}"}).text == "ok"
