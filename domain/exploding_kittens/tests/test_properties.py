"""Property tests: random games played through ``legal_commands`` and the server's deadlines."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.decider import ActOnTimeout, Concede, Context
from domain.errors import RuleViolation
from domain.exploding_kittens import DECIDER
from domain.exploding_kittens.cards import ALL_TITLES, DECK_SIZE, Card
from domain.exploding_kittens.commands import (
    Defuse,
    DrawCard,
    GiveCard,
    Nope,
    PassReaction,
    PlayCard,
    PlayCombo,
    ResolveReactions,
    TakeFromDiscard,
)
from domain.exploding_kittens.events import (
    CardDrawn,
    CardStolen,
    DeckDealt,
    DeckShuffled,
    FavorGiven,
    FutureSeen,
    KittenDefused,
    ReactionPassed,
)
from domain.exploding_kittens.state import ExplodingKittensState
from domain.rereading import rereading
from domain.viewers import Seat, Spectator

EVENT_DECODER = msgspec.json.Decoder(DECIDER.types.event)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

game_options = st.fixed_dictionaries(
    {
        "players": st.integers(2, 5),
        "edition": st.sampled_from(["2022", "classic"]),
        "special_combos": st.booleans(),
        "reaction_window": st.sampled_from([0.0, 0.0, 2.0]),
        "decision_timeout": st.sampled_from([None, 10.0]),
    }
)


@dataclass
class Game:
    options: Any
    rng: random.Random
    state: ExplodingKittensState
    now: float = 0.0
    events: list[Any] = field(default_factory=list)

    def apply(self, seat: int | None, command: Any) -> list[Any]:
        batch = list(DECIDER.decide(self.state, command, Context(self.rng, self.now, seat)))
        for event in batch:
            self.state = DECIDER.evolve(self.state, event)
            self.events.append(event)
            check_cards(self.state)
            check_redaction(self.state, event)
        return batch


def new_game(raw: dict[str, Any], seed: int) -> Game:
    options = DECIDER.parse_options(raw)
    rng = random.Random(seed)
    state = DECIDER.initial_state(options)
    events = list(DECIDER.start(state, Context(rng, 0.0, None)))
    return Game(options=options, rng=rng, state=DECIDER.fold(state, events), events=events)


def check_cards(state: ExplodingKittensState) -> None:
    held = 1 if state.drawn_kitten is not None else 0
    total = sum(map(len, state.hands)) + len(state.draw_pile) + len(state.discard) + len(state.out_of_game)
    assert total + held == DECK_SIZE
    assert Card.EXPLODING_KITTEN not in state.discard
    assert all(Card.EXPLODING_KITTEN not in hand for hand in state.hands)
    # RULES 1.9: what a seat knows of the pile is always true now.
    for known, placed in zip(state.seen_future, state.placed_kitten, strict=True):
        assert state.draw_pile[: len(known)] == known
        assert placed is None or state.draw_pile[placed] is Card.EXPLODING_KITTEN
    if state.drawn_kitten is None:
        living = sum(state.alive)
        assert state.draw_pile.count(Card.EXPLODING_KITTEN) == living - 1


def check_redaction(state: ExplodingKittensState, event: Any) -> None:
    """No seat sees another seat's cards or the pile order in any event."""
    for seat in range(state.players):
        seen = DECIDER.redact(event, Seat(seat))
        match seen:
            case DeckDealt():
                assert seen.draw_pile == () and seen.salt is None
                assert all(hand == () for i, hand in enumerate(seen.hands) if i != seat)
            case CardDrawn():
                assert seen.card is None or seen.seat == seat
            case FutureSeen():
                assert seen.cards == () or seen.seat == seat
            case FavorGiven():
                assert seen.card is None or seat in (seen.giver, seen.receiver)
            case CardStolen():
                assert seen.card is None or seat in (seen.thief, seen.victim)
            case DeckShuffled():
                assert seen.order == () and seen.salt is None
            case KittenDefused():
                assert seen.salt is None and (seen.position is None or seen.seat == seat)
            case ReactionPassed():
                assert seen.seat == seat
    spectator = DECIDER.redact(event, Spectator())
    if isinstance(spectator, DeckDealt):
        assert all(hand == () for hand in spectator.hands)
    # ``private_to`` (what the numbering counts) agrees with what ``redact`` leaves out entirely.
    assert DECIDER.hidden.private_to is not None
    owner = DECIDER.hidden.private_to(event)
    assert (spectator is None) == (owner is not None)
    for seat in range(state.players):
        assert (DECIDER.redact(event, Seat(seat)) is None) == (owner not in (None, seat))


def check_views(state: ExplodingKittensState) -> None:
    spectator = msgspec.json.decode(msgspec.json.encode(DECIDER.view(state, Spectator())))
    assert set(spectator) == {"view", "public"}
    for seat in range(state.players):
        seat_view = msgspec.json.decode(msgspec.json.encode(DECIDER.view(state, Seat(seat))))
        assert set(seat_view) == {
            "view",
            "seat",
            "hand",
            "seen_future",
            "placed_kitten",
            "public",
            "legal_commands",
        }
        assert seat_view["public"] == spectator["public"]
        assert seat_view["hand"] == [str(c) for c in state.hands[seat]]
        for command in seat_view["legal_commands"]:
            if command["type"] in ("PlayCard", "GiveCard"):
                assert command["card"] in seat_view["hand"]
            if command["type"] == "PlayCombo":
                assert all(c in seat_view["hand"] for c in command["cards"])
            if command["type"] == "TakeFromDiscard":
                assert command["card"] in seat_view["public"]["discard"]


def choices(game: Game) -> list[tuple[int, Any]]:
    state = game.state
    return [
        (seat, command)
        for seat in range(state.players)
        for command in DECIDER.legal_commands(state, seat)
        if not isinstance(command, Concede)
    ]


def steps(game: Game, max_steps: int = 3000) -> Iterator[None]:
    """Play one step at a time until the game ends."""
    rng = game.rng
    for _ in range(max_steps):
        if DECIDER.outcome(game.state) is not None:
            return
        due = DECIDER.clock.deadline(game.state)
        if due is not None and rng.random() < 0.15:
            game.now = max(game.now, due)
            game.apply(None, DECIDER.clock.on_deadline(game.state))
        elif rng.random() < 0.01:
            living = game.state.living()
            game.apply(rng.choice(living), Concede())
        else:
            options = choices(game)
            if not options:  # only waiting on a deadline is left
                assert due is not None
                game.now = max(game.now, due)
                game.apply(None, DECIDER.clock.on_deadline(game.state))
            else:
                seat, command = rng.choice(options)
                game.apply(seat, command)
        yield
    raise AssertionError("the game did not end")


@SETTINGS
@given(raw=game_options, seed=st.integers(0, 2**32 - 1))
def test_1_1__random_games_keep_every_invariant_and_end_with_one_winner(
    raw: dict[str, Any], seed: int
) -> None:
    game = new_game(raw, seed)
    check_cards(game.state)
    for i, _ in enumerate(steps(game)):
        if i % 5 == 0:
            check_views(game.state)
        if i % 25 == 0:
            assert DECIDER.fold(DECIDER.initial_state(game.options), game.events) == game.state
    result = DECIDER.outcome(game.state)
    assert result is not None and len(result.winners) == 1
    assert game.state.living() == list(result.winners)
    encoded = [msgspec.json.encode(e) for e in game.events]
    replayed = DECIDER.fold(DECIDER.initial_state(game.options), [EVENT_DECODER.decode(b) for b in encoded])
    assert replayed == game.state
    check_views(game.state)


def universe(state: ExplodingKittensState, rng: random.Random) -> Any:
    """A random syntactically valid command, in the canonical form ``legal_commands`` uses."""
    n = state.players
    cards = list(Card)
    target = rng.choice([None, None, *range(-1, n + 1)])
    kind = rng.randrange(11)
    if kind == 0:
        return DrawCard()
    if kind == 1:
        return PlayCard(card=rng.choice(cards), target=target)
    if kind == 2:
        size = rng.choice([1, 2, 2, 3, 3, 4, 5])
        if rng.random() < 0.5:
            picked = [rng.choice(cards)] * size
        else:
            picked = sorted((rng.choice(cards) for _ in range(size)), key=ALL_TITLES.index)
        named = rng.choice([None, *cards])
        return PlayCombo(cards=tuple(picked), target=target, named=named)
    if kind == 3:
        return Nope(chain_length=rng.randrange(-1, 4))
    if kind == 4:
        return PassReaction()
    if kind == 5:
        return Defuse(position=rng.randrange(-1, len(state.draw_pile) + 2))
    if kind == 6:
        return GiveCard(card=rng.choice(cards))
    if kind == 7:
        return TakeFromDiscard(card=rng.choice(cards))
    if kind == 8:
        return ResolveReactions()
    if kind == 9:
        return ActOnTimeout()
    return Concede()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=game_options, seed=st.integers(0, 2**32 - 1))
def test_0_enforced__legal_commands_are_exactly_the_accepted_ones(raw: dict[str, Any], seed: int) -> None:
    game = new_game(raw, seed)
    probe = random.Random(seed ^ 0x5EED)
    for i, _ in enumerate(steps(game)):
        if i % 3:
            continue
        state = game.state
        for seat in range(-1, state.players + 1):
            offered = DECIDER.legal_commands(state, seat) if 0 <= seat < state.players else []
            for command in offered:
                DECIDER.decide(state, command, Context(random.Random(0), game.now, seat))
            for _ in range(12):
                command = universe(state, probe)
                try:
                    DECIDER.decide(state, command, Context(random.Random(0), game.now, seat))
                    accepted = True
                except RuleViolation:
                    accepted = False
                assert accepted == (command in offered), (seat, command)


garbage_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.sampled_from([str(c) for c in Card]),
    st.lists(st.sampled_from(list(Card)), max_size=6),
    st.tuples(st.sampled_from(list(Card)), st.integers()),
)
HAND_BUILT = rereading(DECIDER)  # garbage is built by hand: read as a client's body would be
garbage_commands = st.one_of(
    st.builds(PlayCard, card=garbage_value, target=garbage_value),
    st.builds(PlayCombo, cards=garbage_value, target=garbage_value, named=garbage_value),
    st.builds(Nope, chain_length=garbage_value),
    st.builds(Defuse, position=garbage_value),
    st.builds(GiveCard, card=garbage_value),
    st.builds(TakeFromDiscard, card=garbage_value),
    st.builds(DrawCard),
    st.builds(PassReaction),
    st.builds(ResolveReactions),
    st.builds(ActOnTimeout),
    st.builds(Concede),
    garbage_value,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=game_options,
    seed=st.integers(0, 2**16),
    at=st.integers(0, 200),
    commands=st.lists(st.tuples(garbage_commands, st.one_of(st.none(), st.integers(-2, 6))), max_size=8),
    now=st.floats(0, 1e6),
)
def test_0_enforced__garbage_commands_only_raise_rule_violations(
    raw: dict[str, Any], seed: int, at: int, commands: list[tuple[Any, int | None]], now: float
) -> None:
    game = new_game(raw, seed)
    for i, _ in enumerate(steps(game)):
        if i >= at:
            break
    for command, seat in commands:
        try:
            events = HAND_BUILT.decide(game.state, command, Context(random.Random(1), now, seat))
        except RuleViolation:
            continue
        state = DECIDER.fold(game.state, events)
        check_cards(state)
