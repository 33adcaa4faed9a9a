"""The table's commands: every way a game changes, as one tagged union.

Lobby actions are the table's own; a seat's game command travels wrapped in ``Play`` (Chassaing's
``adapt``: the game's command type mapped into the table's), so the service hands every change to
one ``decide`` and never asks which part a command belongs to. Ids the table must not derive
from a seeded RNG (a game id, a seat's occupancy, which its token carries) come in the command.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.personal import Fields

# The spectator delay's bounds (seconds) and default.
MAX_SPECTATOR_DELAY = 3600.0
DEFAULT_SPECTATOR_DELAY = 30.0
NAME_LENGTH = (1, 40)
# The table's clock (domain/table/clock.py): timeouts in a row that remove a seat, and how long a
# lobby waits for its start; their bounds. 0 in a create turns either off.
DEFAULT_TIMEOUTS_TO_REMOVE = 3
MAX_TIMEOUTS_TO_REMOVE = 20
PUBLIC_LOBBY_TIMEOUT = 3600.0  # private lobbies wait until their host starts or leaves them
MAX_LOBBY_TIMEOUT = 7 * 86400.0


class TableCommand(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of the table's commands."""


class CreateGame(TableCommand, frozen=True, tag="table.create"):
    kind: str
    options: dict[str, Any]
    public: bool = True
    spectator_delay: float | None = None  # None: DEFAULT_SPECTATOR_DELAY
    # The table's clock (domain/table/clock.py), None or 0: never. A host's create takes the
    # defaults through ``clock.with_defaults`` before it is decided.
    timeouts_to_remove: int | None = None
    lobby_timeout: float | None = None
    rated: bool = True  # counts towards ratings (a public game only)


class JoinSeat(TableCommand, frozen=True, tag="table.join"):
    name: str
    occupancy: str  # a fresh secret id for this holding of the seat
    player: str | None = None  # the player's id; None for a guest
    seed_commitment: str | None = None  # the seat's seed committed (domain/randomness.py)


class RevealSeed(TableCommand, frozen=True, tag="table.reveal_seed"):
    """A seat reveals the seed it committed to when joining (once every seat is taken)."""

    seat: int
    seed: str
    holder: str | None = None


class StartGame(TableCommand, frozen=True, tag="table.start"):
    pass


class LeaveSeat(TableCommand, frozen=True, tag="table.leave"):
    """Leave the lobby before the start; once the game runs, concede through its rules."""

    seat: int
    holder: str | None = None  # the occupancy the caller's token names (None: not checked)


class Play(TableCommand, frozen=True, tag="table.play"):
    """A seat's command for the game itself."""

    seat: int
    command: Any
    holder: str | None = None


class ActOnDeadline(TableCommand, frozen=True, tag="table.deadline"):
    """The server's own move once the game's deadline has passed (nothing when it has not)."""


class EraseSeats(TableCommand, frozen=True, tag="table.erase"):
    """The service's tombstone of a person's erasure in this game (docs/erasure.md): ``seats``
    are those they hold now, shown by ``pseudonym`` from here on. Accepted in every status."""

    seats: list[int]
    pseudonym: str


# The commands' personal fields (domain/personal.py): sealed where the log records them.
PERSONAL_FIELDS: Fields = {"table.join": {"name": "name"}}


# A seat's own commands: each carries the holder its token named (None: not checked).
HELD = (RevealSeed, LeaveSeat, Play)

TableCommands = CreateGame | JoinSeat | RevealSeed | StartGame | LeaveSeat | Play | ActOnDeadline | EraseSeats
