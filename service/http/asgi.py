"""The app as an import target (``service.http.asgi:app``, a factory), for uvicorn's worker processes.

``playlog serve`` resolves the database (starting the embedded one, applying migrations) and the
signing key once, in the parent, and passes them to the workers through the environment.
"""

from __future__ import annotations

from litestar import Litestar

from service.config import Settings
from service.http.app import create_app
from service.runtime import collector, log


def app() -> Litestar:
    served = create_app(Settings.from_env())
    # A served process only (tests build apps in their own process): start-up is over once the
    # lifespan's hooks run, and what it made is frozen out of later collections; its log lines
    # go out a turn of the loop at a time.
    served.on_startup.append(collector.settle)
    log.write_by_turn()
    return served
