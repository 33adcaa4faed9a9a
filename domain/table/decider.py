"""One decider per game kind: the table composed with the game (Chassaing's ``compose``).

``seated(game, *alongside)`` takes a game's ``Decider`` and gives the decider of the whole log:
its commands are the table's (the game's travel inside ``Play``), its events the lobby's and the
game's, its state a ``Table`` holding the game's state. ``evolve`` calls the game's own
``evolve`` for the game's facts. Deciders over the table that are not the table's own rules
(the disputes: domain/disputes/decider.py) are composed beside it as ``Alongside`` values, so
the table never imports them. Its ``decide`` gives back the events and the table after them (a
``Decision``). The service knows only the composed value (domain/registry.py builds one per kind).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.decider import Context, Decider
from domain.table import clock, rules
from domain.table.commands import TableCommand
from domain.table.decision import Decision
from domain.table.state import Table, evolve


@dataclass(frozen=True)
class Alongside:
    """A decider over a running table, composed beside the table's rules: the commands it takes
    (``command_types``), the events it folds (``event_type``), its ``decide`` and ``evolve``."""

    command_types: tuple[type, ...]
    event_type: type
    decide: Callable[[Table, Any, Context], Sequence[Any]]
    evolve: Callable[[Table, Any], Table]


@dataclass(frozen=True)
class SeatedDecider:
    """A game at its table: ``decide`` and ``evolve`` over the whole log of one game."""

    game: Decider
    alongside: tuple[Alongside, ...] = ()

    @property
    def kind(self) -> str:
        return self.game.kind

    def decide(self, table: Table | None, command: TableCommand, ctx: Context) -> Decision:
        """The events ``command`` makes happen at ``table`` and the table after them (domain/table/
        decision.py); raises a refusal."""
        if table is not None:
            for part in self.alongside:
                if isinstance(command, part.command_types):
                    events = part.decide(table, command, ctx)
                    after = self.fold(table, events)
                    assert after is not None
                    return Decision(events, after)
        return rules.decide(self.game, table, command, ctx)

    def evolve(self, table: Table | None, event: Any) -> Table:
        if table is not None:
            for part in self.alongside:
                if isinstance(event, part.event_type):
                    return part.evolve(table, event)
        return evolve(self.game, table, event)

    def fold(self, table: Table | None, events: Sequence[Any]) -> Table | None:
        """``events`` folded onto ``table`` (None: the log's start)."""
        for event in events:
            table = self.evolve(table, event)
        return table

    def deadline(self, table: Table) -> float | None:
        """When the server must act on its own (None: nothing is due): the game's deadline while it
        runs, the lobby's while it is open (domain/table/clock.py)."""
        return clock.deadline(table)


def seated(game: Decider, *alongside: Alongside) -> SeatedDecider:
    return SeatedDecider(game, alongside)
