"""One list of games, read by everything that goes through every game: a game registered by its
one line (``registry.serving``, as ``registry.GAMES`` holds the service's) is documented, typed
in the OpenAPI document, played by the conformance kit and aimed at by the fuzzer, with no other
change. The tests' own games (tests/games/) stand in for a new game."""

from __future__ import annotations

import json

from domain import registry
from service.config import Settings
from service.http.app import create_app
from service.http.openapi import export
from service.tools import eventdocs
from tests.conformance.games import kits
from tests.faults.test_schemathesis import aimed_at
from tests.games import GAMES
from tests.golden.corpus import configs

NEW = {game.kind for game in GAMES}


def test_the_tests_games_are_not_the_services() -> None:
    assert not NEW & set(registry.games())
    assert not NEW & {kind for kind, _ in aimed_at()}


def test_the_event_catalogue_has_a_section_for_a_game_registered_by_its_line() -> None:
    with registry.serving(*GAMES):
        catalogue = eventdocs.render()
    for game in GAMES:
        assert game.about is not None
        assert f"## {game.about.title} (`{game.kind}`)" in catalogue


def test_the_openapi_export_types_a_game_registered_by_its_line() -> None:
    with registry.serving(*GAMES):
        app = create_app(Settings(database_url="postgresql://unused/unused", jwt_secret="unused"))
        schemas = json.loads(export(app))["components"]["schemas"]
    assert set(schemas["GameKind"]["enum"]) >= NEW
    assert {"GuessingCommand", "GuessingEvent", "GuessingView"} <= set(schemas)


def test_the_conformance_kit_plays_a_game_registered_by_its_line() -> None:
    with registry.serving(*GAMES):
        played = {kit.decider.kind for kit in kits()}
    assert played == set(registry.games()) | NEW


def test_the_fuzzer_aims_at_a_game_registered_by_its_line() -> None:
    with registry.serving(*GAMES):
        aimed = dict(aimed_at())
    assert aimed["guessing"] == {"players": 2, "rounds": 6}  # its fewest players, its quick options


def test_the_golden_corpus_asks_every_registered_game_for_its_recorded_games() -> None:
    assert {config.kind for config in configs()} == set(registry.games())
