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
from typing import Any

import httpx
import pytest
import schemathesis
import uvicorn
from schemathesis import Case, CheckContext, Response
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import StopReason, events

from domain import registry
from service.app import auth
from service.app.auth import Principal
from service.config import Settings
from service.http.app import create_app
from service.tools.bot import play_game
from service.tools.client import PlaylogClient
from tests.conftest import free_port

# Fixed, so that CI is reproducible; set PLAYLOG_SCHEMATHESIS_SEED to explore further.
SEED = int(os.environ.get("PLAYLOG_SCHEMATHESIS_SEED", "12"))
MAX_EXAMPLES = 15  # per operation and phase: about a minute on two cores
# A schema-valid request may still be refused for the state it meets: which games, seats, disputes
# and tokens exist and what they hold, what came before, what a game's rules allow now. Those
# refusals, by status and code; any other refusal of schema-valid data is a rule the document
# could have said (schemathesis' positive_data_acceptance knows statuses only: the check
# `refused_only_for_the_state` below reads the codes).
STATE_DEPENDENT: dict[int, frozenset[str]] = {
    # 400: a cursor the list did not give (opaque, as a token is: the fuzzer makes one up); a
    # deprecated offset sent with a cursor (two parameters that exclude each other: OpenAPI has no
    # way to say so; their descriptions do).
    400: frozenset({"invalid_cursor", "invalid_offset"}),
    # 401: a made-up token (the document cannot know which tokens exist); none, where a moderator's
    # is needed until a public game is over.
    401: frozenset({"unauthorized", "moderator_only"}),
    # 403: a real token of another game, seat or role (the dictionary's tokens are of every game);
    # a seat the run left or conceded earlier; a running game's log proof asked by a seat.
    403: frozenset(
        {
            "forbidden",
            "moderator_only",
            "not_seated",
            "seat_token_revoked",
            "seat_conceded",
            "log_proof_hidden",
        }
    ),
    # 404: a made-up id (a game, a dispute, a player); a seq past the game's end; a checkpoint,
    # tile or spectators' chunk the log or the game has not come to yet; an incident the fuzzer
    # cannot open.
    404: frozenset(
        {
            "not_found",
            "seq_out_of_range",
            "no_checkpoint",
            "no_such_checkpoint",
            "no_such_tile",
            "not_published",
            "no_open_incident",
        }
    ),
    # 409: the state of the game or dispute the request meets, which earlier requests of the run
    # (in an order the fuzzer draws) made: started or not, full or not, finished or not, a lobby
    # closed by the lobby_timeout its create gave (any positive number of seconds); a stale
    # expected_version; a dispute claimed or not, ruled or not, with a question waiting or not,
    # and how many are open.
    409: frozenset(
        {
            "version_conflict",
            "game_already_started",
            "game_full",
            "seats_not_filled",
            "cannot_leave",
            "game_not_started",
            "game_not_finished",
            "lobby_closed",
            "too_many_open_disputes",
            "not_asked",
            "dispute_claimed",
            "dispute_not_claimed",
            "dispute_resolved",
            "dispute_not_resolved",
        }
    ),
    # 422: a key the run already used for another request; a seq or seat past this game's; a
    # dispute of another game; tree sizes past the log's; a seat's seed that does not open its
    # commitment (the fuzzer cannot know the seed); and, on the operations of RULED, a move the
    # game's rules refuse now (any rule code).
    422: frozenset(
        {
            "idempotency_key_reused",
            "seq_out_of_range",
            "invalid_seat",
            "unknown_dispute",
            "bad_tree_sizes",
            "seed_mismatch",
        }
    ),
    # 429: the run sends more writes than a client may in a minute.
    429: frozenset({"too_many_requests"}),
}
# The operations whose 422 is a game's rule (their documented "any other rule code of the game").
RULED = frozenset({"POST /games/{game_id}/seats/{seat}/commands", "DELETE /games/{game_id}/seats/{seat}"})
# Codes a game's rules give for a command's shape rather than for the state: never expected.
SHAPE = frozenset({"invalid_command", "invalid_options"})
ACCEPTED = ["2xx", *map(str, sorted(STATE_DEPENDENT))]  # schemathesis' own check: by status
NEGATIVE = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]


def _documented_exception(case: Case[Any], code: str) -> bool:
    """Refusals the document describes in words, which no JSON Schema of one body can hold."""
    body: dict[str, Any] = case.body if isinstance(case.body, dict) else {}
    if case.operation.label == "POST /games/{game_id}/seats" and code == "invalid_name":
        # A guest (no player token) names itself; a player may leave the name out.
        return body.get("name") is None
    if case.operation.label == "POST /games" and code == "invalid_options":
        options: dict[str, Any] = body.get("options") or {}
        first, players = options.get("first_seat"), options.get("players")
        # Documented as "below `players`".
        return isinstance(first, int | float) and isinstance(players, int | float) and first >= players
    if case.operation.label == "POST /moderation/disputes/{dispute_id}/resolve" and code == "invalid_ruling":
        # As the fields describe; or seats past this game's (the state).
        action, seats = body.get("action") or "none", body.get("seats") or []
        if body.get("verdict") == "dismissed":
            return action != "none" or bool(seats)
        # Upheld: an action named; award and penalize name seats (of this game), the others none.
        return body.get("action") is None or action in ("award", "penalize") or bool(seats)
    return False


@schemathesis.check
def refused_only_for_the_state(ctx: CheckContext, response: Response, case: Case[Any]) -> bool | None:
    """Schema-valid data is refused only for the state it meets (STATE_DEPENDENT)."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or not 400 <= response.status_code < 500:
        return None
    problem: dict[str, Any] = response.json()
    code = problem.get("code", "")
    status = response.status_code
    if code in STATE_DEPENDENT.get(status, frozenset()) or _documented_exception(case, code):
        return None
    if status == 422 and case.operation.label in RULED and code not in SHAPE:
        return None
    raise AssertionError(f"schema-valid data refused {status} {code}: {response.text[:300]}")


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


def aimed_at() -> list[tuple[str, dict[str, Any]]]:
    """The games the fuzzer aims at: one of every registered kind (the registry's order), at its
    fewest players with its quick options (``About``): no game is named here."""
    return [
        (kind, {"players": game.seats.min, **(game.about.quick_options if game.about else {})})
        for kind, game in registry.games().items()
    ]


async def _games(url: str, keys: auth.Keyring) -> tuple[list[str], list[str], list[str]]:
    """Real games for the fuzzer to aim at (of every kind a lobby and a running game, and a
    finished game of the first kind), tokens that act in them and a dispute of a running game."""
    kinds = aimed_at()
    async with PlaylogClient(url) as api:
        first, first_options = kinds[0]
        finished = await play_game(api, first, first_options, rng=random.Random(5))
        game_ids, tokens, seats = [finished.game_id], [], []
        for kind, options in kinds:
            running = await api.create_game(kind, options, spectator_delay=0)
            seats += [await api.join(running.game_id, f"p{n}") for n in range(running.seats)]
            await api.start(running.game_id, running.host_token)
            lobby = await api.create_game(kind, options)
            seats.append(await api.join(lobby.game_id, "q"))
            game_ids += [running.game_id, lobby.game_id]
            tokens += [running.host_token, lobby.host_token]
    async with httpx.AsyncClient(base_url=url) as http:
        raised = await http.post(
            f"/games/{game_ids[1]}/disputes",
            json={"seqs": [1], "category": "rules", "reason": "fuzz"},
            headers={"Authorization": f"Bearer {seats[0].token}"},
        )
        dispute_id = raised.raise_for_status().json()["dispute_id"]
    moderator = auth.issue(keys, Principal(role="moderator", name="fuzz"), 3600)
    tokens += [moderator, *(seat.token for seat in seats)]
    return [str(g) for g in game_ids], [f"Bearer {token}" for token in tokens], [dispute_id]


@pytest.fixture
def served_schema(settings: Settings) -> Iterator[schemathesis.BaseSchema]:
    with threaded_server(settings) as url:
        game_ids, tokens, disputes = asyncio.run(_games(url, settings.keyring()))
        config = SchemathesisConfig.from_dict(
            {
                "seed": SEED,
                "generation": {"max-examples": MAX_EXAMPLES},
                "checks": {
                    "positive_data_acceptance": {"expected-statuses": ACCEPTED},
                    # A body past the service's size limit is refused whole (413 body_too_large,
                    # documented), before its schema is read.
                    "negative_data_rejection": {"expected-statuses": NEGATIVE},
                    # The cases carry real tokens (the dictionaries below), which this check
                    # would take for made-up ones; tests/e2e holds the 401s and 403s.
                    "ignored_auth": {"enabled": False},
                },
                "request-timeout": 5,
                "max-stream-events": 2,
                # Most cases aim at real games, seats and tokens (the rest at made-up ones). A
                # body's kind comes from the document (one per game's create body): drawn apart
                # from its options, it would pair one game's options with another's kind.
                "dictionaries": {
                    "games": {"values": game_ids},
                    "tokens": {"values": tokens},
                    "seats": {"values": [0, 1]},
                    "disputes": {"values": disputes},
                },
                "parameters": {
                    "path.game_id": {"dictionary": "games", "probability": 0.8},
                    "path.seat": {"dictionary": "seats", "probability": 0.8},
                    "path.dispute_id": {"dictionary": "disputes", "probability": 0.8},
                    "header.Authorization": {"dictionary": "tokens", "probability": 0.8},
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
