"""The service's own refusals (not a game's rules): a status, a stable ``code`` and words.

``service/http/errors.py`` turns them, and every other refusal, into problem+json.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refusal by the service itself (not by a game's rules)."""

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.extra = extra


def not_found(what: str) -> ServiceError:
    return ServiceError(404, "not_found", f"{what} does not exist.")
