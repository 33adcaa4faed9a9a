"""Seals, openings and pseudonyms (domain/personal.py, projections/personal.py): pure."""

from __future__ import annotations

import hashlib
import itertools
import re

from hypothesis import given
from hypothesis import strategies as st

from domain import personal
from projections.personal import open_body, seal_body, seals_of

SALT = bytes(range(32))
FIELDS: dict[str, personal.Field] = {"name": "name"}


def test_a_seal_is_the_labelled_sha256_of_salt_and_text() -> None:
    expected = hashlib.sha256(b"playlog/personal/v1\n" + SALT + "Zoë".encode()).hexdigest()
    assert personal.seal(SALT, "Zoë") == "sealed:" + expected
    assert personal.is_seal(personal.seal(SALT, "Zoë"))
    assert not personal.is_seal("sealed:xyz") and not personal.is_seal("Zoë")


@given(st.text(min_size=1, max_size=40))
def test_an_opened_body_goes_back_to_the_stored_one_whatever_it_opens_to(name: str) -> None:
    stored, seals, kept = seal_body(
        {"type": "lobby.joined", "seat": 0, "name": name}, FIELDS, "player:p", SALT
    )
    assert seals == {"name": stored["name"]} and kept[0].text == name and name not in stored.values()
    for shown in ({stored["name"]: name}, {stored["name"]: "Player 7f3a"}, {}):
        opened = open_body(stored, FIELDS, shown)
        assert opened["sealed"] == seals
        assert personal.sealed_form(opened) == stored


def test_a_body_without_seals_is_its_own_sealed_form() -> None:
    body = {"type": "lobby.started", "started_at": 1.0}
    assert personal.sealed_form(body) is body
    assert open_body(body, FIELDS, {}) == body


def test_a_pseudonym_is_stable_short_and_a_valid_display_name() -> None:
    assert personal.pseudonym("player:1") == personal.pseudonym("player:1")
    assert re.fullmatch(r"Player [0-9a-f]{4}", personal.pseudonym("player:1"))
    names = {personal.pseudonym(f"player:{n}") for n in range(50)}
    assert len(names) > 45
    assert personal.erased("text", "player:1") == personal.ERASED_TEXT


def test_a_claim_proves_its_seal_and_nothing_else() -> None:
    claim = personal.claim(b"k" * 32, b"g" * 16, "occupancy")
    seal = personal.seal(personal.claim_salt(claim), "Alice")
    assert personal.claims(seal, claim, "Alice")
    assert not personal.claims(seal, claim, "alice")
    other = personal.claim(b"k" * 32, b"g" * 16, "another holding")
    assert not personal.claims(seal, other, "Alice")


def test_the_seals_of_an_event_include_those_of_the_command_it_records() -> None:
    seal_a, seal_b = (personal.seal(SALT, t) for t in ("a", "b"))
    metadata = {"command": {"body": {"type": "table.join", "name": seal_b}, "now": 1.0, "events": 1}}
    assert seals_of("lobby.joined", {"name": seal_a}, metadata) == [seal_a, seal_b]
    assert seals_of("lobby.started", {"name": seal_a}, {}) == []


def test_distinct_salts_give_distinct_seals_of_one_text() -> None:
    counter = itertools.count()
    seals = {personal.seal(next(counter).to_bytes(32, "big"), "same") for _ in range(10)}
    assert len(seals) == 10
