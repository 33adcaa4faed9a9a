"""The one error type the rules raise."""

from __future__ import annotations


class RuleViolation(Exception):
    """A refused command or bad game options.

    ``code`` is stable and machine-readable (``not_your_turn``, ``card_not_in_hand``, ...);
    ``message`` is for humans. Neither may reveal hidden information.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"
