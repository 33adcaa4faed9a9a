"""The disputes as a decider over the table, composed beside the table's own rules.

``DISPUTES`` decides the dispute commands (rules.py) and folds the ``dispute.*`` events into the
table's dispute fields (``evolve``): each dispute's progress, the outcome as an upheld verdict
ruled it and the penalties. The table never imports this package; domain/registry.py composes
the two (domain/table/decider.py's ``seated``).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from domain.decider import Outcome
from domain.disputes import rules
from domain.disputes.commands import ModeratorCommand, RaiseDispute, ReplyToQuestion
from domain.disputes.events import DisputeEvent, DisputeResolved
from domain.disputes.state import apply
from domain.table.decider import Alongside
from domain.table.state import Table

Result = tuple[Outcome | None, tuple[int, ...]]  # the ruled outcome (None: none) and penalties


def after_ruling(table: Table, result: Result, verdict: str, action: str, seats: Iterable[int]) -> Result:
    """``result`` after one ruling of ``table``'s game: an upheld verdict may change it."""
    ruled, penalties = result
    if verdict == "upheld":
        scores = table.outcome.scores if table.outcome is not None else None
        if action == "void":
            ruled = Outcome(winners=(), scores=scores)
        elif action == "award":
            ruled = Outcome(winners=tuple(sorted(seats)), scores=scores)
        elif action == "penalize":
            counts = list(penalties or (0,) * len(table.seats))
            for seat in seats:
                counts[seat] += 1
            penalties = tuple(counts)
    return ruled, penalties


def evolve(table: Table, event: DisputeEvent) -> Table:
    """``table`` after a dispute event; a ruling may change the outcome and the penalties."""
    version = table.version + 1
    ruled, penalties = table.ruled_outcome, table.penalties
    if isinstance(event, DisputeResolved):
        ruled, penalties = after_ruling(table, (ruled, penalties), event.verdict, event.action, event.seats)
    return msgspec.structs.replace(
        table,
        version=version,
        disputes=apply(table.disputes, event, version),
        ruled_outcome=ruled,
        penalties=penalties,
    )


DISPUTES = Alongside(
    command_types=(RaiseDispute, ReplyToQuestion, ModeratorCommand),
    event_type=DisputeEvent,
    decide=rules.decide,
    evolve=evolve,
)
