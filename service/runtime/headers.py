"""One request header, read straight from the ASGI scope.

Litestar's ``connection.headers`` builds a case-insensitive multidict of every header (then a
look-up through the scope's state each time it is read): a dozen calls or more, where a loop over
the few raw headers takes one. ASGI servers send header names in lower case.
"""

from __future__ import annotations

from litestar.types import Scope


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case), as Litestar's ``headers.get`` gives it."""
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None
