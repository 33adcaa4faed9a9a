"""The OpenAPI document is the contract: every response the app gives is described in it."""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain import registry
from service.app import auth
from service.app.auth import Principal
from service.config import Settings
from service.http.api.problems import RACES
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.e2e.conftest import started_game
from tests.e2e.contract import Contract


@pytest.fixture
async def contract(http: AsyncTestClient[Litestar]) -> AsyncIterator[Contract]:
    """Every response ``http`` receives, checked against the committed document."""
    checker = Contract()
    http.event_hooks["response"].append(checker.hook)
    yield checker
    http.event_hooks["response"].remove(checker.hook)


def test_every_refusal_is_a_problem_with_its_codes() -> None:
    document = Contract().document
    problem = document["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "code"} <= set(problem["required"])
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if int(status) < 400:
                    continue
                content = response["content"]
                assert list(content) == ["application/problem+json"], (method, path, status)
                base, codes = content["application/problem+json"]["schema"]["allOf"]
                assert base == {"$ref": "#/components/schemas/Problem"}
                listed = response["description"].partition("; code: ")[2]
                assert set(listed.partition(" (")[0].split(", ")) <= set(codes["properties"]["code"]["enum"])


def test_a_refused_command_lists_every_game_s_codes_and_marks_the_races() -> None:
    document = Contract().document
    responses = document["paths"]["/games/{game_id}/seats/{seat}/commands"]["post"]["responses"]
    refused = responses["422"]
    enum = refused["content"]["application/problem+json"]["schema"]["allOf"][1]["properties"]["code"]["enum"]
    by_kind = refused["x-playlog-codes-by-kind"]
    assert set(by_kind) == set(registry.games())
    for kind, decider in registry.games().items():
        assert decider.about is not None
        assert by_kind[kind] == sorted(decider.about.refusal_codes)
        assert decider.about.refusal_codes <= set(enum)
    races = {code for response in responses.values() for code in response.get("x-playlog-races", [])}
    assert races == RACES and {"version_conflict", "window_closed", "stale_nope"} <= races
    assert responses["409"]["x-playlog-races"] == ["version_conflict"]
    # The events of every game, one union discriminated by type; streams without 3.2's itemSchema.
    event = document["components"]["schemas"]["GameEvent"]
    assert event["discriminator"]["propertyName"] == "type"
    assert len(event["oneOf"]) == len(set(event["discriminator"]["mapping"].values()))
    stream = document["paths"]["/games/{game_id}/spectate/stream"]["get"]["responses"]["200"]
    assert "itemSchema" not in stream["content"]["text/event-stream"]
    assert stream["content"]["text/event-stream"]["x-playlog-item-schema"] == {
        "$ref": "#/components/schemas/EventMessage"
    }


def test_enforced_constraints_are_in_the_schema() -> None:
    document = Contract().document
    schemas = document["components"]["schemas"]
    for kind in ("ExplodingKittensCreateGame", "ARiskCatCreateGame"):  # CreateGame: one per kind
        assert schemas[kind]["additionalProperties"] is False
        assert "options" in schemas[kind]["required"]  # without them: 422 invalid_options
    assert schemas["JoinSeat"]["additionalProperties"] is False
    # A name, or none (a player joins under its own name).
    name = next(s for s in schemas["JoinSeat"]["properties"]["name"]["anyOf"] if s["type"] == "string")
    assert (name["minLength"], name["maxLength"]) == (1, 40)
    assert "422 invalid_name" in schemas["JoinSeat"]["properties"]["name"]["description"]  # a guest's
    for kind in ("exploding_kittens.ExplodingKittensOptions", "a_risk_cat.ARiskCatOptions"):
        assert "players" in schemas[kind]["required"]
    listing = {p["name"]: p["schema"] for p in document["paths"]["/games"]["get"]["parameters"]}
    assert listing["offset"]["minimum"] == 0 and listing["offset"]["maximum"] == 2**31 - 1
    assert listing["limit"]["type"] == "integer"
    queue = {p["name"]: p["schema"] for p in document["paths"]["/moderation/disputes"]["get"]["parameters"]}
    assert queue["cursor"]["pattern"] == "^[A-Za-z0-9_-]+$"  # base64url unpadded, as `next` gives it
    for path in ("/games", "/players/me/games", "/moderation/disputes"):
        paged = {p["name"]: p for p in document["paths"][path]["get"]["parameters"]}
        assert (paged["limit"]["schema"]["minimum"], paged["limit"]["schema"]["maximum"]) == (1, 200)
        assert paged.get("offset", {"deprecated": True})["deprecated"] is True
        assert "Link" in document["paths"][path]["get"]["responses"]["200"]["headers"]
    events = document["paths"]["/games/{game_id}/seats/{seat}/events"]["get"]["parameters"]
    after = next(p["schema"] for p in events if p["name"] == "after")
    assert after["maximum"] == 2**31 - 1
    assert list(document["paths"]["/metrics"]["get"]["responses"]["200"]["content"]) == ["text/plain"]
    stream = document["paths"]["/games/{game_id}/seats/{seat}/stream"]["get"]["responses"]["200"]
    assert list(stream["content"]) == ["text/event-stream"]


def test_the_checker_catches_an_undocumented_status_and_body() -> None:
    contract = Contract()
    contract.check("GET", "/healthz", 418, "application/json", b"{}")
    contract.check("GET", "/healthz", 200, "application/json", b'{"state": 1}')
    path = f"/games/{uuid.uuid4()}"
    contract.check("GET", path, 404, "application/problem+json", b'{"status": 404}')
    problem = b'{"type": "t", "title": "t", "status": 404, "detail": "d", "code": "game_full"}'
    contract.check("GET", path, 404, "application/problem+json", problem)
    # The third: no code, no detail; the fourth: a code out of the enum of its response.
    assert len(contract.violations) == 4, contract.violations


async def test_a_whole_game_and_its_refusals_keep_to_the_document(
    contract: Contract, api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    report = await play_game(
        api, "exploding_kittens", {"players": 3, "reaction_window": 0}, rng=random.Random(3)
    )
    assert report.finished and report.verified
    game = await started_game(api, seed=7, reaction_window=0)
    token = {"Authorization": f"Bearer {game.seats[0].token}"}
    seat = f"/games/{game.id}/seats/0"
    await http.get("/healthz")
    await http.get("/readyz")
    await http.get("/metrics")
    await http.get("/games", params={"status": "running", "limit": 5})
    await http.get("/games", params={"offset": "-1"})
    await http.get("/games", params={"limit": "x", "offset": "y"})
    await http.post("/games", json={"kind": "chess"})
    await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 9}})
    await http.post("/games", content=b"[" * 5000, headers={"Content-Type": "application/json"})
    await http.post("/games", content=b"{}", headers={"Content-Type": "text/plain"})
    await http.post(f"/games/{game.id}/seats", json={"name": "late"})
    await http.post(f"/games/{game.id}/seats", json={"name": "   "})
    await http.post(f"/games/{game.id}/start")
    await http.get(f"/games/{uuid.uuid4()}")
    await http.get(f"{seat}/view")
    await http.get(f"{seat}/view", headers={"Authorization": f"Bearer {game.seats[1].token}"})
    await http.get(f"/games/{game.id}/seats/{2**31}/view", headers=token)
    await http.get(f"{seat}/events", params={"after": 2**31}, headers=token)
    await http.get(f"{seat}/events", params={"after": 3}, headers=token)
    await http.post(f"{seat}/commands", content=b"not json", headers=token)
    await http.post(f"{seat}/commands", json={"type": "Castle"}, headers=token)
    await http.post(
        f"{seat}/commands", json={"type": "DrawCard"}, params={"expected_version": 0}, headers=token
    )
    await http.get(f"{seat}/transcript", headers=token)
    await http.get(f"/games/{game.id}/audit/state", params={"at": 1})
    await http.get(f"/games/{game.id}/audit/state", params={"at": 0})
    await http.get(f"/games/{report.game_id}/audit/state", params={"at": 10**6})
    await http.get(f"/games/{report.game_id}/audit/log")
    await http.get(f"/games/{report.game_id}/audit/transcript")
    await http.get(f"/games/{game.id}/spectate")
    await http.delete(f"{seat}", headers=token)
    assert contract.checked > 40
    assert contract.violations == []


async def test_parameter_refusals_carry_the_documented_codes(
    contract: Contract, http: AsyncTestClient[Litestar], api: PlaylogClient
) -> None:
    game = await started_game(api, seed=7, reaction_window=0)
    token = {"Authorization": f"Bearer {game.seats[0].token}"}
    commands = f"/games/{game.id}/seats/0/commands"
    before = contract.checked
    await http.post(commands, params={"view": "maybe"}, json={"type": "DrawCard"}, headers=token)
    await http.post(commands, json={"type": "DrawCard"}, headers={**token, "Idempotency-Key": "a b"})
    await http.post(commands, params={"expected_version": "x"}, json={"type": "DrawCard"}, headers=token)
    stream = f"/games/{game.id}/spectate/stream"
    await http.get(stream, headers={"Last-Event-ID": "seven"})
    await http.get(stream, params={"after": "-1"})
    await http.get(f"/games/{game.id}/seats/-1/view", headers=token)
    await http.get("/games", params={"kind": "Chess!"})
    assert contract.checked - before == 7
    assert contract.violations == []


@pytest.mark.parametrize("kind", list(registry.games()))
async def test_a_seeded_games_answers_to_each_viewer_keep_to_the_document(
    contract: Contract, api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings, kind: str
) -> None:
    """The first event of a seeded game hides its seed from all but moderators: as a string the
    document must allow (it said integer or null, so every viewer's first event failed)."""
    game = await started_game(api, kind, players=3, seed=11)
    before = contract.checked
    moderator = auth.issue(settings.keyring(), Principal(role="moderator", name="mo"), 600)
    seat = f"/games/{game.id}/seats/0"
    token = {"Authorization": f"Bearer {game.seats[0].token}"}
    events = await http.get(f"{seat}/events", params={"after": 0}, headers=token)
    created = events.json()[0]
    assert created["type"] == "lobby.created" and created["data"]["options"]["seed"] == "hidden"
    await http.get(f"{seat}/view", headers=token)
    await http.get(f"{seat}/transcript", headers=token)
    await http.get(f"/games/{game.id}")
    await http.get(f"/games/{game.id}/spectate")
    await http.get("/games", params={"kind": kind})
    log = await http.get(
        f"/games/{game.id}/audit/log",
        params={"reason": "incident", "note": "checking the document"},  # a running game: a reason
        headers={"Authorization": f"Bearer {moderator}"},
    )
    assert log.json()[0]["data"]["options"]["seed"] == 11
    assert contract.checked - before == 7
    assert contract.violations == []


@pytest.mark.parametrize("kind", list(registry.games()))
async def test_an_integer_option_may_come_as_a_number_without_a_fraction(
    contract: Contract, http: AsyncTestClient[Litestar], kind: str
) -> None:
    """JSON Schema's integer: 3.0 is one (the document's, and schemathesis' positive data)."""
    options = {"players": 3.0, "first_seat": 2.0}
    created = await http.post("/games", json={"kind": kind, "options": options})
    assert created.status_code == 201, created.text
    assert created.json()["seats"] == 3
    assert contract.violations == []


async def test_the_fuzzers_nine_finds_keep_to_the_document(
    contract: Contract, http: AsyncTestClient[Litestar], api: PlaylogClient, settings: Settings
) -> None:
    """What schemathesis found answered off the document (#56): a moderation POST's bad key, the
    queue's and a dispute's bad filters, a control character in an incident's clearing note."""
    game = await started_game(api, seed=7, reaction_window=0)
    raised = await http.post(
        f"/games/{game.id}/disputes",
        json={"seqs": [1], "category": "rules", "reason": "checking the document"},
        headers={"Authorization": f"Bearer {game.seats[0].token}"},
    )
    dispute = f"/moderation/disputes/{raised.json()['dispute_id']}"
    token = auth.issue(settings.keyring(), Principal(role="moderator", name="mo"), 600)
    moderator = {"Authorization": f"Bearer {token}"}
    bad_key = {**moderator, "Idempotency-Key": "a b"}
    before = contract.checked
    bodies: dict[str, Any] = {
        "claim": None,
        "release": None,
        "notes": {"text": "a note"},
        "questions": {"seat": 0, "text": "a question"},
        "resolve": {"verdict": "dismissed", "explanation": "none"},
        "reviews": {"reason": "again"},
    }
    for action, body in bodies.items():
        answer = await http.post(f"{dispute}/{action}", json=body, headers=bad_key)
        assert (answer.status_code, answer.json()["code"]) == (400, "invalid_idempotency_key"), action
    for name, value in {"status": "lost", "kind": "k" * 65, "category": "lost"}.items():
        answer = await http.get("/moderation/disputes", params={name: value}, headers=moderator)
        assert answer.json()["code"] == f"invalid_{name}"
    answer = await http.get(dispute, params={"states": "maybe"}, headers=moderator)
    assert answer.json()["code"] == "invalid_states"
    answer = await http.post(
        f"/moderation/incidents/{game.id}/clear", json={"note": "looked\x00"}, headers=moderator
    )
    assert (answer.status_code, answer.json()["code"]) == (400, "invalid_body")
    assert contract.checked - before == 11
    assert contract.violations == []
    note = Contract().document["components"]["schemas"]["ClearBody"]["properties"]["note"]
    assert not re.fullmatch(note["pattern"], "looked\x00") and re.fullmatch(note["pattern"], "looked")


def test_the_document_names_where_each_format_it_carries_is_defined() -> None:
    """Formats a schema cannot say all of (command ids, receipts, streams, transcripts ...) are
    named from the document itself, each by a page of docs/ that exists (#56)."""
    document = Contract().document
    about = document["info"]["description"]
    pages = set(re.findall(r"docs/[\w./-]+\.md|docs/rules/", about))
    root = Path(__file__).resolve().parents[2]
    assert all((root / page).exists() for page in pages), pages
    for page in ("export-format.md", "receipts.md", "transparency-log.md", "api.md", "access-records.md"):
        assert f"docs/{page}" in pages, page
    assert "command_id" in about and "Last-Event-ID" in about
    # The races, in words too: each response that has some names them in its description.
    for operations in document["paths"].values():
        for operation in operations.values():
            for response in operation["responses"].values():
                for code in response.get("x-playlog-races", []):
                    assert code in response["description"].partition("(races")[2], (operation, code)
