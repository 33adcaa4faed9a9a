"""RULES 1.9: the seed a game was created with is hidden from every player and spectator, in the
table's creation event as the projections show it, and so is the shuffle's salt."""

from __future__ import annotations

from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.events import DeckDealt
from domain.exploding_kittens.tests.builders import given
from domain.viewers import Moderator, Seat, Spectator
from projections import envelopes
from projections.table import GameCreated


def test_1_9_hidden__the_rng_seed_is_hidden_from_every_player_and_spectator() -> None:
    created = GameCreated(
        kind="exploding_kittens",
        options={"players": 2, "seed": 42},
        public=True,
        spectator_delay=0.0,
        created_at=0.0,
    )
    for viewer in (Seat(0), Seat(1), Spectator()):
        shown = envelopes.redact(DECIDER, created, viewer)
        assert shown is not None and shown.options["seed"] == "hidden"
    assert envelopes.redact(DECIDER, created, Moderator()) == created
    (dealt,) = given(DECIDER.initial_state(DECIDER.parse_options({"players": 2}))).when_started(seed=1).events
    assert isinstance(dealt, DeckDealt)
    assert DECIDER.redact(dealt, Spectator()).salt is None  # nor the shuffle's salt
