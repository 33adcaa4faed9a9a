"""Event versioning: rows of any stored schema version decode into today's Structs."""

from __future__ import annotations

import pytest

from domain.exploding_kittens.events import ExplodingKittensWon
from domain.exploding_kittens.upcasters import SCHEMA_VERSIONS
from projections import table as tables
from projections.upcast import UnknownSchemaVersion
from tests.golden.corpus import load_export, names

KIND = "exploding_kittens"


def test_given_a_version_1_win_when_decoded_then_its_seat_is_todays_winner() -> None:
    event = tables.decode(KIND, "ExplodingKittensWon", b'{"type": "ExplodingKittensWon", "seat": 3}', 1)
    assert event == ExplodingKittensWon(winner=3)


def test_given_a_current_win_when_decoded_then_no_upcast_is_needed() -> None:
    event = tables.decode(KIND, "ExplodingKittensWon", b'{"type": "ExplodingKittensWon", "winner": 2}', 2)
    assert event == ExplodingKittensWon(winner=2)


def test_new_events_are_written_with_the_current_schema_version() -> None:
    assert tables.schema_version(KIND, "ExplodingKittensWon") == SCHEMA_VERSIONS["ExplodingKittensWon"] == 2
    assert tables.schema_version(KIND, "DeckDealt") == 1
    assert tables.schema_version(KIND, "lobby.created") == 1


def test_a_version_newer_than_the_code_is_refused_not_misread() -> None:
    with pytest.raises(UnknownSchemaVersion):
        tables.decode(KIND, "ExplodingKittensWon", b'{"type": "ExplodingKittensWon", "winner": 2}', 3)


def test_a_version_with_no_upcaster_is_refused() -> None:
    with pytest.raises(UnknownSchemaVersion):
        tables.decode(KIND, "DeckDealt", b"{}", 0)


def test_the_golden_corpus_holds_version_1_wins_that_replay_through_the_upcaster() -> None:
    """The corpus was recorded before the rename: its wins are stored as version 1."""
    wins = [
        e
        for name in names()
        if name.startswith("ek-")
        for e in load_export(name).events
        if e.type == "ExplodingKittensWon"
    ]
    assert wins and all(e.schema_version == 1 and "seat" in e.data for e in wins)


def test_a_game_created_before_rules_versions_were_recorded_is_a_version_1_game() -> None:
    old = b'{"type": "lobby.created", "kind": "exploding_kittens", "options": {"players": 2},'
    old += b' "public": true, "spectator_delay": 0.0, "created_at": 0.0}'
    table = tables.evolve(None, tables.decode(None, "lobby.created", old, 1))
    assert table.rules_version == 1


def test_a_game_keeps_the_rules_version_it_was_created_under() -> None:
    created = tables.GameCreated(
        kind=KIND, options={"players": 2}, public=True, spectator_delay=0, created_at=0.0, rules_version=7
    )
    assert tables.evolve(None, created).rules_version == 7
