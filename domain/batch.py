"""The events one command has led to so far, and the state they lead to: how ``decide`` chains
its steps (each step reads the state the earlier ones left) without ever writing a state itself.
Both games decide through it; ``evolve`` stays the only way a state changes.

A game's ``decide_and_fold`` gives back both, ``events`` and ``state``: the table builds the
table after a command from that state (domain/table/rules.py), so no event is evolved twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

S = TypeVar("S")
E = TypeVar("E")


class Batch(Generic[S, E]):
    """Events appended with ``emit`` are folded at once, so ``state`` is always the state after them."""

    __slots__ = ("_before_last", "_evolve", "events", "state")

    def __init__(self, state: S, evolve: Callable[[S, E], S]) -> None:
        self.state = state
        self.events: list[E] = []
        self._evolve = evolve
        self._before_last = state

    def emit(self, event: E) -> None:
        self._before_last = self.state
        self.events.append(event)
        self.state = self._evolve(self.state, event)

    def replace_last(self, event: E) -> None:
        """Swap the last event for ``event`` (the same fact, completed) and refold it."""
        self.events[-1] = event
        self.state = self._evolve(self._before_last, event)
