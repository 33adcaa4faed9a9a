"""The ``playlog`` command line: the group (common.py) and its commands, one module per concern."""

from service.tools.cli import deployment, erasure, games, operations, serving, traces, transparency  # noqa: F401  (each registers its commands)
from service.tools.cli.common import main

__all__ = ["main"]
