"""Litestar's route decorators, with two per-request costs of their handlers taken out:

- a route's guards are handed the handler itself: Litestar hands each guard a copy of the route
  handler (``copy(handler)``, in case a guard changes it), some 80 Python calls on every guarded
  request; our guards (service/http/api/guards.py) read the connection and never the handler;
- a handler's exception handlers are merged from its layers once: Litestar's
  ``resolve_exception_handlers`` (documented as memoized, it is not) merges them on every request.
  It is only asked at request time, once the app has given the handler all its layers.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection
from litestar.enums import HttpMethod
from litestar.handlers.http_handlers import HTTPRouteHandler
from litestar.types import ExceptionHandlersMap


class _Lean(HTTPRouteHandler):
    _exception_handlers: ExceptionHandlersMap | None = None

    async def authorize_connection(self, connection: ASGIConnection[Any, Any, Any, Any]) -> None:
        for guard in self.resolve_guards():
            await guard(connection, self)  # type: ignore[misc]  # as Litestar's: resolved guards are async

    def resolve_exception_handlers(self) -> ExceptionHandlersMap:
        if self._exception_handlers is None:
            self._exception_handlers = super().resolve_exception_handlers()
        return self._exception_handlers


# Named as the decorators they stand for, and made as Litestar makes them (its route decorator
# classes are deprecated as base classes).
def get(path: str | None = None, **kwargs: Any) -> _Lean:
    return _Lean(path, http_method=HttpMethod.GET, **kwargs)


def post(path: str | None = None, **kwargs: Any) -> _Lean:
    return _Lean(path, http_method=HttpMethod.POST, **kwargs)


def delete(path: str | None = None, **kwargs: Any) -> _Lean:
    return _Lean(path, http_method=HttpMethod.DELETE, **kwargs)
