"""What the table decides: a command's events and the table after them, made in one pass.

The table's facts (a seat joined, the server's seed disclosed, ...) are folded as the table makes
them; the game's are folded by the game as it decides them (its ``decide_and_fold``, the kernel's
batch: domain/batch.py), and the table takes the game's state after them as it is. Whoever
appends a decision (service/app/loop.py) keeps its table: no event is evolved twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from domain.decider import Context, Decider
from domain.table.state import Table, evolve, moved


class Decision(msgspec.Struct, frozen=True):
    """``events``, and ``table`` after them (the table decided on, when there are none)."""

    events: Sequence[Any]
    table: Table


def folded(game: Decider, table: Table | None, events: Sequence[Any]) -> Decision:
    """``events`` (the table's own facts, or any the table has not folded), each folded here."""
    after = table
    for event in events:
        after = evolve(game, after, event)
    assert after is not None, "a decision without events is made at a table"
    return Decision(events, after)


def by_game(game: Decider, table: Table, command: Any, ctx: Context) -> Decision:
    """The game's own ``command`` at ``table``: its events and the table after them, from the
    state the game folded them into (a game without ``decide_and_fold``: decided, then folded)."""
    if game.decide_and_fold is not None:
        events, state = game.decide_and_fold(table.state, command, ctx)
    else:
        events = game.decide(table.state, command, ctx)
        state = game.fold(table.state, events)
    return Decision(events, moved(game, table, events, state) if events else table)


def then(decision: Decision, event: Any) -> Decision:
    """``decision`` followed by one of the table's facts."""
    after = decision.table
    return Decision([*decision.events, event], evolve(after.decider, after, event))
