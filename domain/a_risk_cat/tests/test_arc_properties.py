"""Property tests: random games in both modes, played through ``legal_commands`` and the
server's ``clock.on_deadline`` command, checked after every event."""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.a_risk_cat import DECIDER
from domain.a_risk_cat.commands import COMMAND_TYPES, DrawToken
from domain.a_risk_cat.events import ARiskCatEventUnion, TurnBusted
from domain.a_risk_cat.scoring import score
from domain.a_risk_cat.state import ARiskCatState
from domain.a_risk_cat.tokens import ALL_TOKENS, painting, tokens_in_play
from domain.decider import Concede, Context
from domain.errors import RuleViolation
from domain.rereading import rereading
from domain.viewers import MODERATOR, SPECTATOR, Seat, Viewer

_events = msgspec.json.Decoder(list[ARiskCatEventUnion])
MAX_STEPS = 20_000


def _hidden_tokens(state: ARiskCatState) -> set[str]:
    """Tokens no player may see: the bag, and every stack (and Robin Tell's pile) below its top."""
    hidden = set(state.bag)
    for stack in (*state.stacks, state.robin_pile):
        hidden.update(stack[:-1])
    return hidden


def _mentions(encoded: str, tokens: set[str]) -> set[str]:
    return {t for t in tokens if f'"{t}"' in encoded}


def _check_invariants(state: ARiskCatState, *, settled: bool = True) -> None:
    """``settled``: after the last event of a command (the state waits for a decision again)."""
    held = [
        *state.bag,
        *(t for stack in state.stacks for t in stack),
        *state.turn_tokens,
        *state.robin_pile,
    ]
    removed = [t for t in ALL_TOKENS if painting(t) in state.removed_paintings]
    assert len(held) + len(removed) == 66
    assert Counter(held) == Counter(tokens_in_play(state.players))
    if settled and state.phase == "playing":
        assert state.pending is not None
        for seat in range(state.players):
            assert bool(DECIDER.legal_commands(state, seat)) == (seat == state.pending.seat)
        if state.options.decision_timeout is not None:
            assert DECIDER.clock.deadline(state) is not None


def _check_views(state: ARiskCatState) -> None:
    hidden = _hidden_tokens(state)
    seats = {state.active_seat, (state.active_seat + 1) % state.players}
    viewers: list[Viewer] = [SPECTATOR, *(Seat(s) for s in seats)]
    for viewer in viewers:
        encoded = msgspec.json.encode(DECIDER.view(state, viewer)).decode()
        assert not _mentions(encoded, hidden), viewer
        if state.salt:
            assert state.salt not in encoded
    msgspec.json.encode(DECIDER.view(state, MODERATOR))


def _check_redacted(event: Any, state: ARiskCatState) -> None:
    for viewer in (SPECTATOR, Seat(0)):
        public = DECIDER.redact(event, viewer)
        assert public is not None
        encoded = msgspec.json.encode(public).decode()
        below_tops = {t for stack in (*state.stacks, state.robin_pile) for t in stack[:-1]}
        assert not _mentions(encoded, below_tops), event
        if not isinstance(event, TurnBusted):  # a bust names the (public) tokens it put back
            assert not _mentions(encoded, set(state.bag)), event
        assert state.salt == "" or state.salt not in encoded
    assert DECIDER.redact(event, MODERATOR) == event


def _play(
    players: int,
    mode: str,
    seed: int,
    timeout_rate: float,
    check_all_legal: bool,
    draw_bias: float = 0.0,
    concede_rate: float = 0.0,
) -> None:
    """``draw_bias``: how often the bot draws again when it may (more busts, more powers), until
    the bag runs low (a bot that always draws again can keep a few tokens circulating for ages).
    ``concede_rate``: how often a random standing seat concedes instead (RULES 3)."""
    rng = random.Random(seed)
    options = DECIDER.parse_options(
        {"players": players, "mode": mode, "decision_timeout": 10 if timeout_rate else None}
    )
    initial = DECIDER.initial_state(options)
    now = 0.0
    log: list[Any] = list(DECIDER.start(initial, Context(rng, now, None)))
    state = DECIDER.fold(initial, log)
    _check_invariants(state)
    for step in range(MAX_STEPS):
        if DECIDER.outcome(state) is not None:
            break
        assert state.pending is not None
        seat = state.pending.seat
        offered = DECIDER.legal_commands(state, seat)
        if check_all_legal:
            for command in offered:
                DECIDER.decide(state, command, Context(random.Random(step), now, seat))
        now += 1.0
        if concede_rate and rng.random() < concede_rate:
            new = DECIDER.decide(state, Concede(), Context(rng, now, rng.choice(state.standing())))
        elif timeout_rate and rng.random() < timeout_rate:
            when = DECIDER.clock.deadline(state)
            assert when is not None
            now = max(now, when)
            new = DECIDER.decide(state, DECIDER.clock.on_deadline(state), Context(rng, now, None))
        else:
            command = rng.choice(offered)
            if len(state.bag) > 12 and DrawToken() in offered and rng.random() < draw_bias:
                command = DrawToken()
            new = DECIDER.decide(state, command, Context(rng, now, seat))
        assert new, "an accepted command appends events"
        # the log is stored as JSON: fold what comes back from it
        decoded = _events.decode(msgspec.json.encode(list(new)))
        for index, event in enumerate(decoded):
            state = DECIDER.evolve(state, event)
            _check_invariants(state, settled=index == len(decoded) - 1)
            _check_redacted(event, state)
            _check_views(state)
            log.append(event)
    else:  # pragma: no cover
        raise AssertionError("the game did not end")
    assert DECIDER.fold(initial, log) == state
    result = DECIDER.outcome(state)
    assert result is not None and result.scores is not None
    sheet = score(state.stacks, state.removed_paintings, state.conceded)
    assert result.scores == sheet.scores and result.winners == sheet.winners
    assert result.winners and not set(result.winners) & set(state.conceded)
    assert state.turn_tokens == () and state.robin_pile == ()
    if len(state.standing()) >= 2:  # ended by the bag, not by concessions
        assert sum(result.scores) == (120 if players <= 4 else 140)
        assert state.bag == ()


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(3, 8),
    mode=st.sampled_from(["base", "full"]),
    seed=st.integers(0, 2**32),
    timeout_rate=st.sampled_from([0.0, 0.1, 0.5]),
    draw_bias=st.sampled_from([0.0, 0.6]),
)
def test_random_games_end_conserve_tokens_replay_and_hide_what_is_hidden(
    players: int, mode: str, seed: int, timeout_rate: float, draw_bias: float
) -> None:
    _play(players, mode, seed, timeout_rate, check_all_legal=False, draw_bias=draw_bias)


@settings(max_examples=30, deadline=None)
@given(
    players=st.integers(3, 8),
    mode=st.sampled_from(["base", "full"]),
    seed=st.integers(0, 2**32),
    concede_rate=st.sampled_from([0.01, 0.05, 0.3]),
)
def test_3_concede_arc_win__random_games_with_concessions_end_scored_and_no_conceded_seat_wins(
    players: int, mode: str, seed: int, concede_rate: float
) -> None:
    _play(players, mode, seed, 0.1, check_all_legal=False, draw_bias=0.3, concede_rate=concede_rate)


@settings(max_examples=20, deadline=None)
@given(players=st.integers(3, 8), mode=st.sampled_from(["base", "full"]), seed=st.integers(0, 2**32))
def test_0_enforced__every_command_legal_commands_offers_is_accepted(
    players: int, mode: str, seed: int
) -> None:
    _play(players, mode, seed, 0.0, check_all_legal=True, draw_bias=0.5)


HAND_BUILT = rereading(DECIDER)  # garbage is built by hand: read as a client's body would be

_garbage_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.text(max_size=6),
    st.sampled_from(ALL_TOKENS),
    st.lists(st.one_of(st.integers(-2, 9), st.sampled_from(ALL_TOKENS), st.none()), max_size=6),
    st.floats(allow_nan=True),
)


def _garbage_command(cls: type, values: list[Any]) -> Any:
    fields = msgspec.structs.fields(cls)
    return cls(**{f.name: v for f, v in zip(fields, values, strict=False)})


@st.composite
def _garbage(draw: st.DrawFn) -> tuple[Any, Any]:
    kind = draw(st.sampled_from(["command", "junk"]))
    if kind == "junk":
        command: Any = draw(st.one_of(_garbage_value, st.just(object()), st.just(Seat(0))))
    else:
        cls = draw(st.sampled_from(COMMAND_TYPES))
        command = _garbage_command(cls, draw(st.lists(_garbage_value, min_size=1, max_size=1)))
    seat = draw(st.one_of(st.none(), st.integers(-2, 9), st.booleans(), st.text(max_size=2)))
    return command, seat


@settings(max_examples=60, deadline=None)
@given(
    players=st.integers(3, 8),
    mode=st.sampled_from(["base", "full"]),
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 60),
    garbage=st.lists(_garbage(), min_size=1, max_size=15),
    now=st.one_of(st.floats(allow_nan=True), st.integers(-10, 10**6)),
)
def test_0_enforced__garbage_commands_raise_only_rule_violations(
    players: int, mode: str, seed: int, moves: int, garbage: list[tuple[Any, Any]], now: float
) -> None:
    rng = random.Random(seed)
    options = DECIDER.parse_options({"players": players, "mode": mode, "decision_timeout": 5})
    state = DECIDER.initial_state(options)
    for command, seat in garbage[:2]:
        with contextlib.suppress(RuleViolation):
            HAND_BUILT.decide(state, command, Context(rng, now, seat))
    state = DECIDER.fold(state, DECIDER.start(state, Context(rng, 0.0, None)))
    for _ in range(moves):
        if DECIDER.outcome(state) is not None:
            break
        assert state.pending is not None
        seat = state.pending.seat
        command = rng.choice(DECIDER.legal_commands(state, seat))
        state = DECIDER.fold(state, DECIDER.decide(state, command, Context(rng, 0.0, seat)))
    for command, seat in garbage:
        try:
            events = HAND_BUILT.decide(state, command, Context(rng, now, seat))
        except RuleViolation as exc:
            assert exc.code and exc.message
        else:
            after = DECIDER.fold(state, events)
            _check_invariants(after)
