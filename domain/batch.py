"""The events one command has led to so far, and the state they lead to: how ``decide`` chains
its steps (each step reads the state the earlier ones left) without ever writing a state itself.
Both games decide through it; ``evolve`` stays the only way a state changes.

What ``decide`` returns is a ``Folded`` list: the events, and the state after each of them as the
batch folded it. Whoever folds those events next (the table, right after the append) takes those
states (``states_after``) instead of evolving each event a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

S = TypeVar("S")
E = TypeVar("E")


class Folded(list[E]):
    """Events, with ``states[i]`` the state after ``self[i]`` folded from ``start``."""

    __slots__ = ("start", "states")

    def __init__(self, start: Any) -> None:
        super().__init__()
        self.start = start
        self.states: list[Any] = []


def states_after(start: Any, events: Sequence[Any]) -> list[Any] | None:
    """The state after each of ``events`` if ``decide`` folded them already from ``start`` (the
    very state, unchanged since), else None: then they must be folded."""
    if isinstance(events, Folded) and events.start is start and len(events.states) == len(events):
        return events.states
    return None


class Batch(Generic[S, E]):
    """Events appended with ``emit`` are folded at once, so ``state`` is always the state after them."""

    __slots__ = ("_before_last", "_evolve", "events", "state")

    def __init__(self, state: S, evolve: Callable[[S, E], S]) -> None:
        self.state = state
        self.events: Folded[E] = Folded(state)
        self._evolve = evolve
        self._before_last = state

    def emit(self, event: E) -> None:
        self._before_last = self.state
        self.events.append(event)
        self.state = self._evolve(self.state, event)
        self.events.states.append(self.state)

    def replace_last(self, event: E) -> None:
        """Swap the last event for ``event`` (the same fact, completed) and refold it."""
        self.events[-1] = event
        self.state = self._evolve(self._before_last, event)
        self.events.states[-1] = self.state
