"""The app as an import target (``service.asgi:app``, a factory), for uvicorn's worker processes.

``playlog serve`` resolves the database (starting the embedded one, applying migrations) and the
signing key once, in the parent, and passes them to the workers through the environment.
"""

from __future__ import annotations

from litestar import Litestar

from service.app import create_app
from service.config import Settings


def app() -> Litestar:
    return create_app(Settings.from_env())
