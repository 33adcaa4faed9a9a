"""One idiom for every decider's rule tests: given this past, when this command from this seat,
then these events or this refusal.

    given(state_or_none, *events).when(command, seat).then([event, ...])   # the events, exactly
    given(...).when(command, seat).then("not_your_turn")                  # a refusal's code
    state, events = given(...).when(command, seat)                          # to look further
    given(...).when(command, seat).when(next_command, seat)                 # one after another
    given(initial_state).when_started(seed=3).then([GameSetUp(...)])        # the setup, a decision too

``given_for(decider)`` makes a game's ``given``: the past is a state built by hand (a rigged
deck), or the decider's own (``None``: the table's empty log), followed by events folded in.
``when`` decides with a seeded ``random.Random`` and a fixed clock, as the rule tests always
have; a refusal is kept, and ``then(code)`` checks it changed nothing and says why. The table's
and the disputes' tests use the same helper over the composed decider (domain/table).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.decider import Context
from domain.errors import RuleViolation
from domain.table.refusals import Kind, TableRefusal

# ``when``'s seat when none is named: the seat the game waits for (a game's ``given`` says which).
ACTING: Any = object()


@dataclass(frozen=True)
class Rules:
    """What ``given`` needs of a decider: its decide and fold, and who acts by default."""

    decide: Callable[[Any, Any, Context], Sequence[Any]]
    fold: Callable[[Any, Sequence[Any]], Any]
    acting: Callable[[Any], int | None] = lambda state: None
    deadline: Callable[[Any], float | None] | None = None
    on_deadline: Callable[[Any], Any] | None = None
    start: Callable[[Any, Context], Sequence[Any]] | None = None


@dataclass(frozen=True)
class Given:
    rules: Rules
    state: Any

    def when(self, command: Any, seat: int | None = ACTING, *, now: float = 0.0, seed: int = 0) -> When:
        if seat is ACTING:
            seat = self.rules.acting(self.state)
        context = Context(random.Random(seed), now, seat)
        return self._decided(lambda ctx: self.rules.decide(self.state, command, ctx), command, context)

    def _decided(self, decide: Callable[[Context], Sequence[Any]], command: Any, context: Context) -> When:
        before = _encoded(self.state)
        try:
            events = list(decide(context))
        except RuleViolation as refusal:
            assert _encoded(self.state) == before, "a refused command changes nothing"
            return When(self, command, None, refusal)
        return When(self, command, events, None)

    def when_started(self, *, seed: int = 0, now: float = 0.0) -> When:
        """The server starts the game (its setup: the shuffle, the deal) with a seeded draw."""
        assert self.rules.start is not None, "this decider's given has no start"
        start = self.rules.start
        return self._decided(
            lambda ctx: start(self.state, ctx), None, Context(random.Random(seed), now, None)
        )

    def when_the_deadline_passes(self) -> When:
        """The server sends the game's ``clock.on_deadline`` command at the deadline (``ctx.seat`` None)."""
        assert self.rules.deadline is not None and self.rules.on_deadline is not None
        due = self.rules.deadline(self.state)
        assert due is not None, "no deadline to pass"
        return self.when(self.rules.on_deadline(self.state), None, now=due)


def _encoded(state: Any) -> bytes | None:
    try:
        return msgspec.json.encode(state)
    except TypeError:  # a state msgspec cannot encode: frozen all the same
        return None


@dataclass(frozen=True)
class When:
    given: Given
    command: Any
    decided: list[Any] | None
    refusal: RuleViolation | None

    @property
    def events(self) -> list[Any]:
        assert self.refusal is None, f"refused: {self.refusal!r}"
        assert self.decided is not None
        return self.decided

    @property
    def state(self) -> Any:
        """The state the events lead to."""
        return self.given.rules.fold(self.given.state, self.events)

    def __iter__(self) -> Iterator[Any]:
        """``state, events = given(...).when(...)``"""
        return iter((self.state, self.events))

    def then(self, expected: Sequence[Any] | str) -> When:
        """Exactly these events, or (a string) a refusal with this code and a message."""
        if isinstance(expected, str):
            assert self.refusal is not None, f"{self.command!r} was accepted: {self.decided!r}"
            assert self.refusal.message, "every refusal says why"
            assert self.refusal.code == expected, self.refusal
        else:
            assert self.events == list(expected)
        return self

    @property
    def code(self) -> str:
        """The refusal's code (the command must have been refused)."""
        assert self.refusal is not None, f"{self.command!r} was accepted: {self.decided!r}"
        assert self.refusal.message, "every refusal says why"
        return self.refusal.code

    @property
    def kind(self) -> Kind:
        """The kind of a table's refusal: conflict, forbidden or invalid (domain/table/refusals.py)."""
        assert isinstance(self.refusal, TableRefusal), f"not a table's refusal: {self.refusal!r}"
        return self.refusal.kind

    def when(self, command: Any, seat: int | None = ACTING, *, now: float = 0.0, seed: int = 0) -> When:
        """The next command, from the state this one left."""
        return Given(self.given.rules, self.state).when(command, seat, now=now, seed=seed)


def given_for(rules: Rules, start: Callable[[], Any] = lambda: None) -> Callable[..., Given]:
    """A game's ``given(past, *events)``: ``past`` a state (None: ``start()``), then events."""

    def given(past: Any = None, *events: Any) -> Given:
        state = start() if past is None else past
        return Given(rules, rules.fold(state, list(events)))

    return given
