"""Who is looking at a game: a seat, a spectator or a moderator."""

from __future__ import annotations

import msgspec


class Seat(msgspec.Struct, frozen=True):
    """A player's position, 0..n-1 in clockwise order."""

    index: int


class Spectator(msgspec.Struct, frozen=True):
    """Anyone: public information only."""


class Moderator(msgspec.Struct, frozen=True):
    """An auditor: everything, hidden information included."""


Viewer = Seat | Spectator | Moderator

SPECTATOR = Spectator()
MODERATOR = Moderator()
