"""A game table: the lobby events every game shares, and the fold of a whole game log.

A game's log starts with lobby events (created, seats joined or left, started), then holds the
game's own events. ``Table`` is the state of both, for any game kind, through the registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import msgspec

from domain import registry
from domain.decider import Decider, Outcome, Upcaster
from projections import upcast

Status = Literal["open", "running", "finished"]


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


class SeatJoined(LobbyEvent, frozen=True, tag="lobby.joined"):
    seat: int
    name: str
    # Who holds the seat from now on: a fresh id per join, carried in the seat token (""
    # in logs written before it existed), and the player's id (None for a guest).
    occupancy: str = ""
    player: str | None = None


class SeatLeft(LobbyEvent, frozen=True, tag="lobby.left"):
    seat: int


class GameStarted(LobbyEvent, frozen=True, tag="lobby.started"):
    started_at: float


LobbyEvents = GameCreated | SeatJoined | SeatLeft | GameStarted
lobby_decoder = msgspec.json.Decoder(LobbyEvents)

# The lobby events' own schema versions and upcasters (as a game's, in domain/decider.py).
LOBBY_SCHEMA_VERSIONS: dict[str, int] = {}
LOBBY_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def is_lobby_type(event_type: str) -> bool:
    return event_type.startswith("lobby.")


def event_tag(event: msgspec.Struct) -> str:
    return event_tag_of(type(event))


def event_tag_of(struct: type[msgspec.Struct]) -> str:
    tag = struct.__struct_config__.tag
    assert isinstance(tag, str)
    return tag


class Table(msgspec.Struct, frozen=True, kw_only=True):
    kind: str
    options: Any  # the game's options Struct
    raw_options: dict[str, Any]
    public: bool
    spectator_delay: float
    created_at: float
    rules_version: int = 1
    seats: tuple[str | None, ...]  # display names; None for a free seat
    status: Status = "open"
    state: Any  # the game's state
    version: int = 0  # seq of the last event folded
    outcome: Outcome | None = None
    # Per seat: the occupancy id of its holder (None: free) and the holder's player id.
    occupancies: tuple[str | None, ...] = ()
    players: tuple[str | None, ...] = ()
    conceded: frozenset[int] = frozenset()  # seats whose holder left the running game
    started_at: float | None = None
    finished_version: int | None = None  # the seq of the event that ended the game
    # Per seat, how many events only that seat may see (games with ``private_to`` only; empty
    # while there are none): what each viewer's numbering leaves out (projections/numbering).
    private: tuple[int, ...] = ()

    @property
    def decider(self) -> Decider:
        return registry.get(self.kind)

    def free_seats(self) -> list[int]:
        return [i for i, name in enumerate(self.seats) if name is None]


_decoders: dict[str, tuple[msgspec.json.Decoder[Any], Mapping[str, int]]] = {}


def game_decoder(kind: str) -> tuple[msgspec.json.Decoder[Any], Mapping[str, int]]:
    """The game's event decoder and its current schema versions (looked up once per kind)."""
    entry = _decoders.get(kind)
    if entry is None:
        decider = registry.get(kind)
        entry = _decoders[kind] = (msgspec.json.Decoder(decider.event_type), decider.schema_versions)
    return entry


def schema_version(kind: str, event_type: str) -> int:
    """The schema version an event of ``event_type`` is written with today."""
    if is_lobby_type(event_type):
        return LOBBY_SCHEMA_VERSIONS.get(event_type, 1)
    return registry.get(kind).schema_versions.get(event_type, 1)


def decode(kind: str | None, event_type: str, data: str | bytes, version: int) -> Any:
    """A stored event as today's Struct: the one place where rows become events.

    Lobby events for any game, game events by the game's kind; an event of an older schema
    ``version`` goes through the upcasters first (projections/upcast.py). At the current version
    this is a bare decode and one dict look-up.
    """
    if is_lobby_type(event_type) or kind is None:
        current = LOBBY_SCHEMA_VERSIONS.get(event_type, 1)
        if version == current:
            return lobby_decoder.decode(data)
        body = upcast.upcast(event_type, version, current, LOBBY_UPCASTERS, data)
        return lobby_decoder.decode(msgspec.json.encode(body))
    decoder, versions = _decoders.get(kind) or game_decoder(kind)
    current = versions.get(event_type, 1)
    if version == current:
        return decoder.decode(data)
    body = upcast.upcast(event_type, version, current, registry.get(kind).upcasters, data)
    # Back through the cached decoder: msgspec.convert into a union rebuilds its plan each call.
    return decoder.decode(msgspec.json.encode(body))


def created(event: GameCreated) -> Table:
    decider = registry.get(event.kind)
    options = decider.parse_options(event.options)
    return Table(
        kind=event.kind,
        options=options,
        raw_options=event.options,
        public=event.public,
        spectator_delay=event.spectator_delay,
        created_at=event.created_at,
        rules_version=event.rules_version,
        seats=(None,) * options.players,
        occupancies=(None,) * options.players,
        players=(None,) * options.players,
        state=decider.initial_state(options),
        version=1,
    )


def evolve(table: Table | None, event: Any) -> Table:
    """Fold one event (lobby or game) into the table; the version is bumped by one."""
    if table is None:
        assert isinstance(event, GameCreated), "a game log starts with lobby.created"
        return created(event)
    version = table.version + 1
    match event:
        case SeatJoined(seat=seat, name=name, occupancy=occupancy, player=player):
            return _seated(table, seat, name, occupancy, player, version)
        case SeatLeft(seat=seat):
            return _seated(table, seat, None, None, None, version)
        case GameStarted(started_at=started_at):
            return msgspec.structs.replace(table, status="running", version=version, started_at=started_at)
        case GameCreated():
            raise ValueError("lobby.created can only open a log")
    decider = table.decider
    state = decider.evolve(table.state, event)
    outcome = decider.outcome(state)
    status: Status = "finished" if outcome is not None else table.status
    conceded = table.conceded
    if decider.conceded_seat is not None and (gone := decider.conceded_seat(event)) is not None:
        conceded = conceded | {gone}
    finished_version = table.finished_version
    if status == "finished" and finished_version is None:
        finished_version = version
    private = table.private
    hook = decider.private_to
    if hook is not None and (owner := hook(event)) is not None:
        counts = list(private or (0,) * len(table.seats))
        counts[owner] += 1
        private = tuple(counts)
    return msgspec.structs.replace(
        table,
        state=state,
        version=version,
        outcome=outcome,
        status=status,
        conceded=conceded,
        finished_version=finished_version,
        private=private,
    )


def _seated(
    table: Table, seat: int, name: str | None, occupancy: str | None, player: str | None, version: int
) -> Table:
    """``table`` with ``seat`` now held by ``name`` (``None``: free)."""
    seats, occupancies, players = list(table.seats), list(table.occupancies), list(table.players)
    seats[seat], occupancies[seat], players[seat] = name, occupancy, player
    return msgspec.structs.replace(
        table,
        seats=tuple(seats),
        occupancies=tuple(occupancies),
        players=tuple(players),
        version=version,
    )


def fold(events: Iterable[Any], table: Table | None = None) -> Table | None:
    for event in events:
        table = evolve(table, event)
    return table
