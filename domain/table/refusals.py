"""The table's refusals: a ``RuleViolation`` that also says what kind of refusal it is.

The kind lets the service answer 409 for a table that is in the wrong state, 403 for a caller
who no longer holds the seat, 422 for a bad value, without a table of codes in the service.
"""

from __future__ import annotations

from typing import Literal

from domain.errors import RuleViolation

Kind = Literal["conflict", "forbidden", "invalid"]


class TableRefusal(RuleViolation):
    def __init__(self, kind: Kind, code: str, message: str) -> None:
        super().__init__(code, message)
        self.kind: Kind = kind


def already_started(message: str = "This game has already started.") -> TableRefusal:
    return TableRefusal("conflict", "game_already_started", message)


def lobby_closed() -> TableRefusal:
    return TableRefusal("conflict", "lobby_closed", "This lobby closed: it was not started in time.")
