"""Replay machinery over random games of every kind: proofs, state at every seq, transcripts."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain import registry
from domain.decider import Context
from domain.viewers import Seat
from projections import table as tables
from projections.replay import RawEvent, diff, replay, shuffle_proofs, state_at, transcript
from projections.table import GameCreated, GameStarted, SeatJoined, event_tag

_encoder = msgspec.json.Encoder()
OPTIONS = {
    "exploding_kittens": lambda rng: {
        "players": rng.randint(2, 5),
        "reaction_window": 0,
        "edition": rng.choice(["2022", "classic"]),
    },
    "a_risk_cat": lambda rng: {"players": rng.randint(3, 8), "mode": rng.choice(["base", "full"])},
}


def random_game(kind: str, seed: int) -> tuple[list[RawEvent], Any]:
    rng = random.Random(seed)
    decider = registry.get(kind)
    options = decider.parse_options(OPTIONS[kind](rng))
    events: list[Any] = [
        GameCreated(
            kind=kind, options=msgspec.to_builtins(options), public=True, spectator_delay=0, created_at=0.0
        ),
        *(SeatJoined(seat=i, name=f"p{i}") for i in range(options.players)),
        GameStarted(started_at=0.0),
    ]
    state = decider.initial_state(options)
    new = list(decider.start(state, Context(rng, 0.0, None)))
    state = decider.fold(state, new)
    events += new
    for _ in range(5000):
        if decider.outcome(state) is not None:
            break
        choices = [
            (seat, c)
            for seat in range(options.players)
            for c in decider.legal_commands(state, seat)
            if type(c).__name__ != "Concede"
        ]
        seat, command = rng.choice(choices)
        new = list(decider.decide(state, command, Context(rng, 0.0, seat)))
        state = decider.fold(state, new)
        events += new
    raws = [
        RawEvent(
            seq=i + 1,
            recorded_at=float(i),
            type=event_tag(e),
            schema_version=tables.schema_version(kind, event_tag(e)),
            data=_encoder.encode(e),
            actor="x",
        )
        for i, e in enumerate(events)
    ]
    return raws, state


@pytest.mark.parametrize("kind", sorted(OPTIONS))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_every_shuffle_commitment_of_a_random_game_verifies(kind: str, seed: int) -> None:
    raws, live = random_game(kind, seed)
    steps = replay(raws)
    assert steps[-1].table.state == live
    assert steps[-1].table.status == "finished"
    proofs = shuffle_proofs(steps)
    assert proofs and all(p.valid for p in proofs)


@pytest.mark.parametrize("kind", sorted(OPTIONS))
def test_an_altered_hidden_order_fails_its_proof(kind: str) -> None:
    raws, _ = random_game(kind, 1)
    first = next(i for i, r in enumerate(raws) if b'"commitment"' in bytes(r.data))
    data = msgspec.json.decode(raws[first].data)
    order_field = "draw_pile" if kind == "exploding_kittens" else "bag"
    data[order_field] = list(reversed(data[order_field]))
    raws[first] = msgspec.structs.replace(raws[first], data=msgspec.json.encode(data))
    assert not shuffle_proofs(replay(raws))[0].valid


@pytest.mark.parametrize("kind", sorted(OPTIONS))
def test_state_at_each_seq_is_the_fold_of_the_prefix(kind: str) -> None:
    raws, _ = random_game(kind, 2)
    steps = replay(raws)
    for n in (1, len(raws) // 3, len(raws) // 2, len(raws)):
        assert state_at(steps, n) == replay(raws[:n])[-1].table


def test_diff_names_changed_leaves_by_path() -> None:
    changes = diff({"a": 1, "b": {"c": [1], "d": 2}}, {"a": 1, "b": {"c": [2], "e": 3}})
    assert [(c.path, c.before, c.after) for c in changes] == [
        ("/b/c", [1], [2]),
        ("/b/d", 2, None),
        ("/b/e", None, 3),
    ]


def test_a_seats_transcript_hides_what_the_seat_may_not_see() -> None:
    raws, _ = random_game("exploding_kittens", 3)
    steps = replay(raws)
    everything = transcript(steps)
    own = transcript(steps, Seat(0))
    assert "salt=" in everything and "draw_pile=" in everything
    assert "salt=" not in own and "draw_pile=" not in own
