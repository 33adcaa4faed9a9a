"""schemathesis over the served OpenAPI document of the real app: no 5xx, no answer off the document.

The app runs under uvicorn on loopback (in a thread, with its own event loop) on a fresh database;
schemathesis loads ``/schema/openapi.json`` from it and sends what it generates over HTTP, every
built-in check on, a bounded number of examples per operation, with a fixed seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
import schemathesis
import uvicorn
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import StopReason, events

from service import auth
from service.app import create_app
from service.auth import Principal
from service.bot import play_game
from service.client import PlaylogClient
from service.config import Settings
from tests.conftest import free_port

# Fixed, so that CI is reproducible; set PLAYLOG_SCHEMATHESIS_SEED to explore further.
SEED = int(os.environ.get("PLAYLOG_SCHEMATHESIS_SEED", "12"))
MAX_EXAMPLES = 15  # per operation and phase: about a minute on two cores
# A well-formed request the game's rules refuse (not your turn, unknown kind...) is answered
# 422 or 404 by design; schemathesis' default for schema-valid data does not list 422.
OPTIONS = {"players": 2, "reaction_window": 0}
ACCEPTED = ["2xx", "401", "403", "404", "409", "422", "429"]


@contextlib.contextmanager
def threaded_server(settings: Settings) -> Iterator[str]:
    """uvicorn on 127.0.0.1 in a thread of its own (schemathesis calls block)."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="schemathesis-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


async def _games(url: str, keys: auth.Keyring) -> tuple[list[str], list[str]]:
    """Real games for the fuzzer to aim at (open, running, finished) and tokens that act in them."""
    async with PlaylogClient(url) as api:
        finished = await play_game(api, "exploding_kittens", OPTIONS, rng=random.Random(5))
        running = await api.create_game("exploding_kittens", OPTIONS, spectator_delay=0)
        seats = [await api.join(running.game_id, f"p{n}") for n in range(running.seats)]
        await api.start(running.game_id, running.host_token)
        lobby = await api.create_game("a_risk_cat", {"players": 3})
        seats.append(await api.join(lobby.game_id, "q"))
    moderator = auth.issue(keys, Principal(role="moderator", name="fuzz"), 3600)
    game_ids = [str(g) for g in (finished.game_id, running.game_id, lobby.game_id)]
    tokens = [running.host_token, lobby.host_token, moderator, *(seat.token for seat in seats)]
    return game_ids, [f"Bearer {token}" for token in tokens]


@pytest.fixture
def served_schema(settings: Settings) -> Iterator[schemathesis.BaseSchema]:
    with threaded_server(settings) as url:
        game_ids, tokens = asyncio.run(_games(url, settings.keyring()))
        config = SchemathesisConfig.from_dict(
            {
                "seed": SEED,
                "generation": {"max-examples": MAX_EXAMPLES},
                "checks": {
                    "positive_data_acceptance": {"expected-statuses": ACCEPTED},
                    # The cases carry real tokens (the dictionaries below), which this check
                    # would take for made-up ones; tests/e2e holds the 401s and 403s.
                    "ignored_auth": {"enabled": False},
                },
                "request-timeout": 5,
                "max-stream-events": 2,
                # Most cases aim at real games, seats and tokens (the rest at made-up ones).
                "dictionaries": {
                    "games": {"values": game_ids},
                    "tokens": {"values": tokens},
                    "seats": {"values": [0, 1]},
                    "kinds": {"values": ["exploding_kittens", "a_risk_cat"]},
                },
                "parameters": {
                    "path.game_id": {"dictionary": "games", "probability": 0.8},
                    "path.seat": {"dictionary": "seats", "probability": 0.8},
                    "header.Authorization": {"dictionary": "tokens", "probability": 0.8},
                    "body.kind": {"dictionary": "kinds", "probability": 0.8},
                },
            }
        )
        yield schemathesis.openapi.from_url(f"{url}/schema/openapi.json", config=config)


def test_no_server_error_and_no_answer_off_the_document(served_schema: schemathesis.BaseSchema) -> None:
    failures: list[str] = []
    errors: list[str] = []
    scenarios = 0
    statuses: Counter[str] = Counter()
    finished: events.EngineFinished | None = None
    for event in schemathesis.engine.from_schema(served_schema).execute():
        if isinstance(event, events.ScenarioFinished):
            scenarios += 1
            for interaction in event.recorder.interactions.values():
                if interaction.response is not None:
                    statuses[f"{event.recorder.label} {interaction.response.status_code}"] += 1
            for checks in event.recorder.checks.values():
                for check in checks:
                    if check.failure_info is not None:
                        failure = check.failure_info.failure
                        failures.append(
                            f"{event.recorder.label} {check.name}: {failure.title}\n"
                            f"{failure.message}\n{check.failure_info.code_sample}"
                        )
        elif isinstance(event, (events.NonFatalError, events.FatalError)):
            errors.append(repr(event))
        elif isinstance(event, events.EngineFinished):
            finished = event
    assert finished is not None and finished.stop_reason == StopReason.COMPLETED, finished
    assert scenarios > 0
    # The fuzzer reached real games (the dictionaries), not only 404s.
    assert any("{game_id}" in label and label.endswith(" 200") for label in statuses), statuses
    assert errors == []
    unique = sorted(set(failures))
    assert unique == [], f"{len(unique)} failures:\n" + "\n\n".join(unique[:15])
