"""Answers do not depend on the instance that gives them (docs/scaling.md, "Shared settings"):
two live instances of one deployment on one database, a request through one and its retry (the
same Idempotency-Key) through the other; and the deployment's identity as the database records
it, changed only on purpose."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

import asyncpg
import httpx
import pytest
from click.testing import CliRunner
from litestar.testing import AsyncTestClient

from domain import personal
from projections.export.format import parse
from projections.export.proofs import Trust
from projections.export.verify import verify_lines
from projections.notes import Signer, Verifier
from projections.receipts import verify
from service import deployment
from service.app.auth import Principal, issue
from service.config import Settings
from service.http.app import create_app
from service.store import deployment as record
from service.tools.cli import main
from service.tools.client import PlaylogClient
from tests.conftest import two_instances
from tests.e2e.commandline import playlog

NAME = "Quentin Zebulon"


async def _same_through_both(
    a: httpx.AsyncClient, b: httpx.AsyncClient, path: str, body: dict[str, Any], key: str, **headers: str
) -> httpx.Response:
    """POST through ``a``, then its retry through ``b``: the very same answer (a command's receipt in it)."""
    sent = {"Idempotency-Key": key, **headers}
    first, again = await a.post(path, json=body, headers=sent), await b.post(path, json=body, headers=sent)
    assert first.status_code in (200, 201), first.text
    assert (again.status_code, again.content) == (first.status_code, first.content)
    return first


async def test_a_retry_through_another_instance_gets_the_same_answer_receipt_and_claim(
    settings: Settings,
) -> None:
    moderator = {
        "Authorization": f"Bearer {issue(settings.keyring(), Principal('moderator', name='mo'), 600)}"
    }
    async with two_instances(settings) as (a, b):
        created = (
            await _same_through_both(
                a, b, "/games", {"kind": "exploding_kittens", "options": {"players": 2}}, "create-1"
            )
        ).json()
        game = created["game_id"]
        joined = (await _same_through_both(b, a, f"/games/{game}/seats", {"name": NAME}, "join-1")).json()
        other = (await _same_through_both(a, b, f"/games/{game}/seats", {"name": "Ann"}, "join-2")).json()
        host = {"Authorization": f"Bearer {created['host_token']}"}
        assert (await a.post(f"/games/{game}/start", headers=host)).status_code == 200

        seats = {joined["seat"]: joined["token"], other["seat"]: other["token"]}
        api = PlaylogClient(str(a.base_url), http=a)
        for seat, token in seats.items():
            view = await api.view(uuid.UUID(game), seat, token)
            for command in (c for c in view.legal_commands if c["type"] == "DrawCard"):
                answered = await _same_through_both(
                    b,
                    a,
                    f"/games/{game}/seats/{seat}/commands",
                    command,
                    "draw-1",
                    Authorization=f"Bearer {token}",
                )
                break
        receipt = answered.json()["receipt"]  # in the answer: the retry's is the same, byte for byte
        keys = {(await c.get("/log/keys")).text for c in (a, b)}
        assert len(keys) == 1
        log_keys = [Verifier.parse(k) for k in httpx.Response(200, text=keys.pop()).json()["log_keys"]]
        verify(receipt, log_keys)

        # The log as either instance shows it: one checkpoint, one proof.
        for _ in range(200):
            if (await a.get(f"/games/{game}/log-proof", headers=moderator)).json()["size"]:
                break
            await asyncio.sleep(0.05)
        for path in ("/log/checkpoint", f"/games/{game}/log-proof", "/log/tile/0/000.p/1"):
            for _ in range(50):  # b's answer read between two alike of a's: no round signed between
                first, other, again = [await c.get(path, headers=moderator) for c in (a, b, a)]
                if first.content == again.content:
                    break
            assert first.status_code == 200, (path, first.text)
            assert other.content == first.content, path

        # The seat's claim, given by either instance, opens the seal of its name in the log.
        exported = (
            await b.get(f"/games/{game}/export", params={"reason": "player_request"}, headers=moderator)
        ).text
        seal = next(
            r["data"]["name"]
            for r in map(parse, exported.splitlines())
            if r.get("record") == "event"
            and r["type"] == "lobby.joined"
            and r["data"]["seat"] == joined["seat"]
        )
        assert personal.claims(seal, bytes.fromhex(joined["claim"]), NAME)
        # The seat's receipt from one instance checks against the export and keys of the other.
        report = verify_lines(exported.splitlines(), trust=Trust(log_keys, []), receipts=[receipt])
        assert report.ok and report.receipts is not None and report.receipts.startswith("1 "), report.lines()


async def _refusal(settings: Settings) -> str:
    """Why an app with these settings does not start (its lifespan's error, out of its group)."""
    try:
        async with AsyncTestClient(create_app(settings)):
            pass
    except BaseException as exc:  # the lifespan's task group raises a group
        found: BaseException = exc
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        assert isinstance(found, deployment.Disagreement), found
        return str(found)
    raise AssertionError("the app started")


async def _identity(url: str) -> dict[str, str]:
    conn = await asyncpg.connect(url)
    try:
        return {name: value for name, (value, _) in (await record.recorded(conn)).items()}
    finally:
        await conn.close()


async def test_the_first_start_records_the_public_identity_and_never_a_secret(settings: Settings) -> None:
    async with AsyncTestClient(create_app(settings)):
        pass
    recorded = await _identity(str(settings.database_url))
    log = settings.log_identity()
    assert recorded == deployment.public_identity(log, settings.keyring(), settings.witnesses())
    assert recorded["PLAYLOG_LOG_SIGNING_KEY"] == log.verifiers[0].text
    assert recorded["PLAYLOG_LOG_ORIGIN"] == log.origin
    assert settings.jwt_secret not in str(recorded) and log.signer.text not in str(recorded)


@pytest.mark.parametrize(
    "changes",
    [
        {"log_signing_key": Signer.generate("playlog.localhost/log").text},
        {"witness_keys": Signer.generate("w.example", 0x04).verifier.text},
        {"jwt_secret": "yet-another-secret-that-is-long-enough"},
    ],
)
async def test_an_app_whose_configuration_disagrees_does_not_start(
    settings: Settings, changes: dict[str, str]
) -> None:
    async with AsyncTestClient(create_app(settings)):
        pass
    assert "differs from the deployment's" in await _refusal(dataclasses.replace(settings, **changes))


async def test_rotate_log_key_signs_with_a_new_key_the_record_and_every_instance_follow(
    settings: Settings,
) -> None:
    async with AsyncTestClient(create_app(settings)) as http:
        before = (await http.get("/log/keys")).json()["log_keys"]
        env = {"PLAYLOG_DATA_DIR": str(settings.data_dir), "PLAYLOG_LOG_SIGNING_KEY": ""}
        code, out, err = await playlog(settings, "deployment", "rotate-log-key", env=env)
        assert code == 0, err
        rotated = out.split()
        assert rotated[1:] == before and rotated[0] != before[0]
        # Published at once by the running instance, which still signs with the old key: a
        # witness can learn the new key before any instance signs with it.
        assert (await http.get("/log/keys")).json()["log_keys"] == rotated
    assert (await _identity(str(settings.database_url)))["PLAYLOG_LOG_SIGNING_KEY"] == ",".join(rotated)
    async with AsyncTestClient(create_app(settings)) as http:  # the data directory's new keys
        assert (await http.get("/log/keys")).json()["log_keys"] == rotated
    # A copy of the old keys elsewhere is refused now, as the message says.
    stale = dataclasses.replace(settings, log_signing_key=settings.log_identity().keys[-1].text)
    assert "PLAYLOG_LOG_SIGNING_KEY differs" in await _refusal(stale)


async def test_rotate_log_key_rewrites_the_shared_file_and_adopt_records_a_new_jwt_key(
    settings: Settings,
) -> None:
    shared = settings.data_dir / "playlog.env"
    env = {
        "PLAYLOG_DATA_DIR": str(settings.data_dir / "cli"),
        "PLAYLOG_JWT_SECRET": "",
        "PLAYLOG_LOG_SIGNING_KEY": "",
    }
    code, _, err = await playlog(settings, "deployment", "init", "--file", str(shared), env=env)
    assert code == 0, err
    env = {**env, "PLAYLOG_DEPLOYMENT_FILE": str(shared)}
    code, out, err = await playlog(settings, "deployment", "adopt", env=env)  # the first record
    assert code == 0, err
    first = Settings.from_env({"PLAYLOG_DEPLOYMENT_FILE": str(shared)}).log_identity()
    code, out, err = await playlog(settings, "deployment", "rotate-log-key", env=env)
    assert code == 0, err
    now = Settings.from_env({"PLAYLOG_DEPLOYMENT_FILE": str(shared)}).log_identity()
    assert out.split() == [v.text for v in now.verifiers] and now.verifiers[1:] == first.verifiers

    # A new JWT key first, the old one still verifying: refused until adopted.
    secret = Settings.from_env({"PLAYLOG_DEPLOYMENT_FILE": str(shared)}).jwt_secret
    rotated = {**env, "PLAYLOG_JWT_SECRET": f"k2:a-new-secret-that-is-long-enough-for-hs256,{secret}"}
    code, out, err = await playlog(settings, "deployment", "rotate-log-key", env=rotated)
    assert code == 1 and "PLAYLOG_JWT_SECRET differs from the deployment's" in err
    code, out, err = await playlog(settings, "deployment", "adopt", "PLAYLOG_JWT_SECRET", env=rotated)
    assert code == 0 and out.startswith("PLAYLOG_JWT_SECRET: recorded k2:"), (out, err)
    assert (await _identity(str(settings.database_url)))["PLAYLOG_JWT_SECRET"].startswith("k2:")

    # Log keys that leave the recorded ones out: only when they are lost, said so.
    lost = {**env, "PLAYLOG_LOG_SIGNING_KEY": Signer.generate(now.origin).text}
    code, out, err = await playlog(settings, "deployment", "adopt", "PLAYLOG_LOG_SIGNING_KEY", env=lost)
    assert code == 2 and "leaves out keys the deployment signed with" in err, (out, err)
    code, out, err = await playlog(
        settings, "deployment", "adopt", "PLAYLOG_LOG_SIGNING_KEY", "--drop-log-keys", env=lost
    )
    assert code == 0 and "PLAYLOG_LOG_SIGNING_KEY: recorded" in out, (out, err)


async def test_playlog_export_refuses_log_keys_other_than_the_deployment_s(settings: Settings) -> None:
    async with AsyncTestClient(create_app(settings)) as http:
        created = await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
    export = ["export", created.json()["game_id"]]
    # Its own keys, generated elsewhere: the game keys it would reveal would open no receipt.
    elsewhere = {
        "PLAYLOG_DATABASE_URL": str(settings.database_url),
        "PLAYLOG_DATA_DIR": str(settings.data_dir / "x"),
    }
    done = await asyncio.to_thread(CliRunner().invoke, main, export, env=elsewhere)
    assert done.exit_code == 1 and "PLAYLOG_LOG_SIGNING_KEY differs from the deployment's" in done.output
    same = {**elsewhere, "PLAYLOG_DATA_DIR": str(settings.data_dir)}
    assert (await asyncio.to_thread(CliRunner().invoke, main, export, env=same)).exit_code == 0
