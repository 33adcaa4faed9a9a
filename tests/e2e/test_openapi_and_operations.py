"""The OpenAPI document, health, readiness and metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain import registry
from domain.decider import ActOnTimeout, Concede
from service.config import Settings
from service.http.app import create_app
from service.http.openapi import export
from tests.e2e.conftest import Game

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_openapi_document_is_up_to_date() -> None:
    app = create_app(Settings(database_url="postgresql://unused/unused", jwt_secret="unused"))
    assert COMMITTED.read_bytes() == export(app), "stale: run `make openapi`"


async def test_served_openapi_equals_the_committed_one(http: AsyncTestClient[Litestar]) -> None:
    served = (await http.get("/schema/openapi.json")).json()
    assert served == json.loads(COMMITTED.read_text())


def test_every_command_and_event_type_is_in_the_schema() -> None:
    schemas: dict[str, Any] = json.loads(COMMITTED.read_text())["components"]["schemas"]
    for kind, decider in registry.games().items():
        for union in (decider.types.command, decider.types.event):
            for member in union.__args__:
                shared = member in (ActOnTimeout, Concede)  # the kernel's: one schema, every game's
                assert f"{'kernel' if shared else kind}.{member.__name__}" in schemas


def test_every_game_s_command_is_one_variant_of_command_by_its_tag() -> None:
    schemas: dict[str, Any] = json.loads(COMMITTED.read_text())["components"]["schemas"]
    mapping = schemas["Command"]["discriminator"]["mapping"]
    for decider in registry.games().values():
        assert {registry.tag_of(member) for member in decider.types.command.__args__} <= set(mapping)
    assert len(schemas["Command"]["oneOf"]) == len(set(mapping.values()))


async def test_health_and_readiness(http: AsyncTestClient[Litestar]) -> None:
    assert (await http.get("/healthz")).json() == {"status": "ok"}
    assert (await http.get("/readyz")).json() == {"status": "ready"}


async def test_metrics_count_commands_by_outcome(http: AsyncTestClient[Litestar], game: Game) -> None:
    active = await game.active()
    await game.send(active, {"type": "DrawCard"})
    text = (await http.get("/metrics")).text
    assert 'playlog_commands_total{kind="exploding_kittens",outcome="applied"}' in text
    assert "litestar_requests_total" in text or "playlog_requests_total" in text
