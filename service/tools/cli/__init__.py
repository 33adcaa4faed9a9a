"""The ``playlog`` command line: the group (common.py) and its commands, one module per concern."""

from service.tools.cli import (  # noqa: F401  (each registers its commands)
    deployment,
    erasure,
    games,
    operations,
    ratings,
    serving,
    traces,
    transparency,
)
from service.tools.cli.common import main

__all__ = ["main"]
