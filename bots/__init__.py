"""Computer players: a seat's next move decided from that seat's view alone.

A level is a pure function of what the seat is shown (the ``view`` and ``moves`` of
``GET /games/{id}/seats/{seat}/view``, as JSON) and a random stream the caller seeds: nothing
else reaches it. This package imports nothing of playlog (an import-linter contract in
pyproject.toml keeps it so): no rules, no table state, no store, no other seat's view. Whoever
holds a seat's view, a receipt of it, can decide the same move again (``choose`` with the same
seed) and check that a computer player acted only on what its seat knew.
"""

from bots.levels import LEVELS, Level, choose, seeded

__all__ = ["LEVELS", "Level", "choose", "seeded"]
