"""Seeds nobody can choose (domain/randomness.py, domain/table/seeds.py), as data: the stream is
the documented construction, a seat's revealed seed changes the deal, and the lobby's seed rules
refuse what would let someone steer it."""

from __future__ import annotations

import hashlib
import hmac
import uuid
from typing import Any

import pytest
from hypothesis import given as for_all
from hypothesis import strategies as st

from domain import randomness
from domain.decider import Concede, Context
from domain.randomness import Draws, SeedUnavailable
from domain.registry import for_kind
from domain.table import seeds
from domain.table.commands import CreateGame, JoinSeat, LeaveSeat, Play, RevealSeed, StartGame
from domain.table.events import GameCreated, SeatJoined, SeedDisclosed, SeedRevealed
from domain.table.refusals import TableRefusal
from domain.table.state import Table

KIND = "exploding_kittens"
RULES = for_kind(KIND)
GAME = uuid.UUID("8f6213b4-3f4f-4fa9-94ec-4c2ce81b3443")
SERVER = bytes(range(32))
ALICE_SEED = bytes([1]) * 32
BOB_SEED = bytes([2]) * 32


def created() -> GameCreated:
    return GameCreated(
        kind=KIND,
        options={"players": 2, "reaction_window": 0},
        public=True,
        spectator_delay=0.0,
        created_at=1.0,
        seed_commitment=randomness.server_commitment(SERVER),
    )


def joined(seat: int, seed: bytes | None) -> SeatJoined:
    committed = randomness.seat_commitment(seed) if seed is not None else None
    return SeatJoined(seat=seat, name=f"p{seat}", occupancy=f"o{seat}", seed_commitment=committed)


def given(*events: Any) -> Table:
    table = RULES.fold(None, events)
    assert table is not None
    return table


def decide(table: Table, command: Any) -> list[Any]:
    rng = seeds.draws(table, GAME, SERVER)
    assert rng is not None
    return list(RULES.decide(table, command, seeds.context(table, rng, 5.0, SERVER)).events)


def deal(*events: Any) -> Any:
    return decide(given(*events), StartGame())[1]


def test_the_stream_is_hmac_of_the_key_the_version_and_the_block() -> None:
    key = randomness.key(SERVER, GAME, [None, BOB_SEED])
    message = b"playlog/key/v1\x00" + GAME.bytes + b"\x00" + b"\x01" + BOB_SEED
    assert key == hmac.digest(SERVER, message, "sha256")
    block = hmac.digest(
        key, b"playlog/draws/v1\x00" + (7).to_bytes(8, "big") + (0).to_bytes(8, "big"), "sha256"
    )
    draws = Draws(key, 7)
    assert draws.getrandbits(128) == int.from_bytes(block[:16], "big")
    assert draws.getrandbits(12) == int.from_bytes(block[16:18], "big") >> 4
    assert (
        randomness.server_commitment(SERVER)
        == hashlib.sha256(b"playlog/server-seed/v1\x00" + SERVER).hexdigest()
    )


def test_below_is_uniform_by_rejection_and_a_shuffle_is_fisher_yates() -> None:
    draws = Draws(b"k" * 32, 0)
    assert {draws.below(3) for _ in range(200)} == {0, 1, 2}
    assert Draws(b"k" * 32, 0).below(1) == 0
    items = list(range(10))
    Draws(b"k" * 32, 1).shuffle(items)
    assert sorted(items) == list(range(10)) and items != list(range(10))


@for_all(st.binary(min_size=32, max_size=32), st.lists(st.integers(1, 70_000), min_size=1, max_size=60))
def test_below_reads_the_stream_as_the_fewest_bits_would(key: bytes, bounds: list[int]) -> None:
    """export-format.md's construction: ``below(n)`` draws ``getrandbits(bit_length(n - 1))``
    until a value is below ``n``, and the stream reads on from where it stopped."""
    drawn, reference = Draws(key, 3), Draws(key, 3)
    for n in bounds:
        while (expected := reference.getrandbits((n - 1).bit_length())) >= n:
            pass
        assert drawn.below(n) == expected
    assert drawn.getrandbits(64) == reference.getrandbits(64)


def test_a_generator_without_the_server_seed_refuses_to_draw() -> None:
    with pytest.raises(SeedUnavailable):
        Draws(None, 3).below(5)


def test_a_seats_contributed_seed_changes_the_deal() -> None:
    without = deal(
        created(), joined(0, ALICE_SEED), joined(1, None), SeedRevealed(seat=0, seed=ALICE_SEED.hex())
    )
    other = bytes([9]) * 32
    changed = deal(created(), joined(0, other), joined(1, None), SeedRevealed(seat=0, seed=other.hex()))
    unrevealed = deal(created(), joined(0, ALICE_SEED), joined(1, None))
    assert without.hands != changed.hands or without.commitment != changed.commitment
    assert without.commitment != unrevealed.commitment
    # The same seeds give the same deal: a verifier re-derives it.
    again = deal(
        created(), joined(0, ALICE_SEED), joined(1, None), SeedRevealed(seat=0, seed=ALICE_SEED.hex())
    )
    assert again == without


def test_a_seat_reveals_its_seed_only_once_every_seat_is_taken_and_only_the_committed_one() -> None:
    alone = given(created(), joined(0, ALICE_SEED))
    with pytest.raises(TableRefusal) as early:
        decide(alone, RevealSeed(seat=0, seed=ALICE_SEED.hex()))
    assert early.value.code == "seats_not_filled"
    full = given(created(), joined(0, ALICE_SEED), joined(1, None))
    with pytest.raises(TableRefusal) as wrong:
        decide(full, RevealSeed(seat=0, seed=BOB_SEED.hex()))
    assert wrong.value.code == "seed_mismatch"
    with pytest.raises(TableRefusal) as none:
        decide(full, RevealSeed(seat=1, seed=BOB_SEED.hex()))
    assert none.value.code == "no_seed_commitment"
    assert decide(full, RevealSeed(seat=0, seed=ALICE_SEED.hex())) == [
        SeedRevealed(seat=0, seed=ALICE_SEED.hex())
    ]


def test_nobody_leaves_the_lobby_once_a_seed_is_revealed() -> None:
    revealed = given(
        created(), joined(0, ALICE_SEED), joined(1, None), SeedRevealed(seat=0, seed=ALICE_SEED.hex())
    )
    with pytest.raises(TableRefusal) as caught:
        decide(revealed, LeaveSeat(seat=1))
    assert caught.value.code == "seeds_revealed"


def test_a_bad_seed_commitment_is_refused_at_the_join() -> None:
    table = given(created())
    with pytest.raises(TableRefusal) as caught:
        decide(table, JoinSeat(name="x", occupancy="o", seed_commitment="ABC"))
    assert caught.value.code == "invalid_seed_commitment"


def test_the_create_commits_the_server_seed_and_the_end_discloses_it() -> None:
    ctx = Context(Draws(None, 0), 1.0, None, seed_commitment=randomness.server_commitment(SERVER))
    (event,) = RULES.decide(None, CreateGame(kind=KIND, options={"players": 2}), ctx).events
    assert event.seed_commitment == randomness.server_commitment(SERVER)
    table = given(created(), joined(0, None), joined(1, None))
    table = RULES.fold(table, decide(table, StartGame()))
    assert table is not None
    for _ in range(200):  # seat 0 leaves: the other wins, and the seed follows the win
        if table.status == "finished":
            break
        events = decide(table, Play(seat=table.state.active_seat, command=Concede()))
        table = RULES.fold(table, events)
    assert table.status == "finished"
    assert events[-1] == SeedDisclosed(seed=SERVER.hex())
    assert table.server_seed == SERVER.hex()
