"""The table's events: what happened around a game (created, seats joined or left, started).

Their tags start with ``lobby.`` and their shapes are those of every stored log: a field may be
added (with a default), never renamed or retyped, so old logs replay unchanged.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.decider import Upcaster
from domain.personal import Fields


class LobbyEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of the lobby events; their tags start with ``lobby.``."""


class GameCreated(LobbyEvent, frozen=True, tag="lobby.created"):
    kind: str
    options: dict[str, Any]
    public: bool
    spectator_delay: float
    created_at: float
    # The game's rules version when it was created (domain/*/upcasters.py); games created before
    # it was recorded were all created under version 1.
    rules_version: int = 1
    # hex(sha256("playlog/server-seed/v1" 0x00 S)) of the server's seed (domain/randomness.py);
    # None in a seeded game and in games created before seeds were committed.
    seed_commitment: str | None = None
    # The table's clock (domain/table/clock.py), None in games created before it: a seat whose
    # time runs out this many times in a row is removed; the lobby closes this many seconds after
    # its creation unless started.
    timeouts_to_remove: int | None = None
    lobby_timeout: float | None = None


class SeatJoined(LobbyEvent, frozen=True, tag="lobby.joined"):
    seat: int
    name: str
    # Who holds the seat from now on: a fresh id per join, carried in the seat token (""
    # in logs written before it existed), and the player's id (None for a guest).
    occupancy: str = ""
    player: str | None = None
    seed_commitment: str | None = None  # the seat's own seed, committed (None: it sends none)
    # Read back from the log: each personal field's seal (domain/personal.py); never stored.
    sealed: dict[str, str] | msgspec.UnsetType = msgspec.UNSET


class SeatLeft(LobbyEvent, frozen=True, tag="lobby.left"):
    seat: int


class GameStarted(LobbyEvent, frozen=True, tag="lobby.started"):
    started_at: float


class SeedRevealed(LobbyEvent, frozen=True, tag="lobby.seed_revealed"):
    """A seat's seed, revealed once every seat was taken (it matched its commitment)."""

    seat: int
    seed: str  # 64 lower-case hex digits


class SeedDisclosed(LobbyEvent, frozen=True, tag="lobby.seed_disclosed"):
    """The server's seed, disclosed right after the event that ended the game."""

    seed: str


class SeatTimedOut(LobbyEvent, frozen=True, tag="lobby.timed_out"):
    """The clock ran out on ``seat``'s answer for the ``in_a_row``-th time in a row. The game's
    own events follow: its forced move, or, once ``removed``, the seat's concession."""

    seat: int
    in_a_row: int
    removed: bool = False


class SeatBack(LobbyEvent, frozen=True, tag="lobby.back"):
    """A seat the clock had answered for acted itself again: its timeouts in a row start over."""

    seat: int


class LobbyClosed(LobbyEvent, frozen=True, tag="lobby.closed"):
    """The lobby was not started within its ``lobby_timeout``: the game ends unplayed."""


class SeatsErased(LobbyEvent, frozen=True, tag="lobby.erased"):
    """A person's texts in this game were erased (docs/erasure.md): the seats they hold are
    shown by ``pseudonym`` from here on, as every seal of theirs now opens to it."""

    seats: list[int]
    pseudonym: str


# The lobby's personal fields (domain/personal.py): sealed in the log, opened when read.
PERSONAL_FIELDS: Fields = {"lobby.joined": {"name": "name"}}

# The lobby events' own schema versions and upcasters (as a game's, in domain/decider.py).
SCHEMA_VERSIONS: dict[str, int] = {}
UPCASTERS: dict[tuple[str, int], Upcaster] = {}

LobbyEvents = (
    GameCreated
    | SeatJoined
    | SeatLeft
    | GameStarted
    | SeedRevealed
    | SeedDisclosed
    | SeatsErased
    | SeatTimedOut
    | SeatBack
    | LobbyClosed
)


def is_lobby_type(event_type: str) -> bool:
    return event_type.startswith("lobby.")
