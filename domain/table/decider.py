"""One decider per game kind: the table composed with the game (Chassaing's ``compose``).

``seated(game)`` takes a game's ``Decider`` and gives the decider of the whole log: its commands
are the table's (the game's travel inside ``Play``), its events the lobby's and the game's, its
state a ``Table`` holding the game's state. The service knows only this value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from domain import registry
from domain.decider import Context, Decider
from domain.table import rules
from domain.table.commands import TableCommand
from domain.table.state import Table, evolve


@dataclass(frozen=True)
class SeatedDecider:
    """A game at its table: ``decide`` and ``evolve`` over the whole log of one game."""

    game: Decider

    @property
    def kind(self) -> str:
        return self.game.kind

    def decide(self, table: Table | None, command: TableCommand, ctx: Context) -> Sequence[Any]:
        return rules.decide(self.game, table, command, ctx)

    def evolve(self, table: Table | None, event: Any) -> Table:
        return evolve(table, event)

    def fold(self, table: Table | None, events: Sequence[Any]) -> Table | None:
        for event in events:
            table = evolve(table, event)
        return table

    def deadline(self, table: Table) -> float | None:
        """When the server must act on its own (None: not while the game does not run)."""
        return self.game.deadline(table.state) if table.status == "running" else None


def seated(game: Decider) -> SeatedDecider:
    return SeatedDecider(game)


@cache
def for_kind(kind: str) -> SeatedDecider:
    """The composed decider of a registered kind (raises ``unknown_game_kind``)."""
    return seated(registry.get(kind))
