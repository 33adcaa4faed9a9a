"""The table's state around any game, and its ``evolve``: lobby facts here, game facts by the game.

``evolve(game, table, event)`` only applies facts; what the table derives from the game's state
(its outcome, who conceded, per-seat private counts) is read through the game's ``Decider``
fields. The table carries its game's decider from ``lobby.created`` on, so a reader of a table
never looks its kind up. Dispute facts are folded by domain/disputes (composed beside the table
in domain/table/decider.py); the table only keeps their fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from domain.decider import Decider, Outcome
from domain.table.events import (
    GameCreated,
    GameStarted,
    LobbyClosed,
    SeatBack,
    SeatJoined,
    SeatLeft,
    SeatsErased,
    SeatTimedOut,
    SeedDisclosed,
    SeedRevealed,
)

Status = Literal["open", "running", "finished"]


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
    out: tuple[int, ...] = ()  # seats in the order they went out of the running game (``Seats.out``)
    rated: bool = True  # counts towards ratings (``lobby.created``)
    started_at: float | None = None
    finished_version: int | None = None  # the seq of the event that ended the game
    # Per seat, how many events only that seat may see (games with ``private_to`` only; empty
    # while there are none): what each viewer's numbering leaves out (projections/numbering).
    private: tuple[int, ...] = ()
    # Disputes (domain/disputes, which folds them): each one's progress (its ``DisputeState``), the
    # outcome as ruled by an upheld verdict (None: the original ``outcome`` stands; that one never
    # changes) and the penalties per seat.
    disputes: tuple[Any, ...] = ()
    ruled_outcome: Outcome | None = None
    penalties: tuple[int, ...] = ()
    # The committed seeds (domain/randomness.py): the server's commitment, each seat's commitment
    # and revealed seed (hex; None: none), the server's seed once disclosed at the end.
    seed_commitment: str | None = None
    seat_commitments: tuple[str | None, ...] = ()
    seat_seeds: tuple[str | None, ...] = ()
    server_seed: str | None = None
    # The table's clock (domain/table/clock.py; None: never, as in games created before it), each
    # seat's timeouts in a row (empty until the first), and whether the lobby closed unstarted
    # (the game is then finished, with no outcome).
    timeouts_to_remove: int | None = None
    lobby_timeout: float | None = None
    timeouts: tuple[int, ...] = ()
    closed: bool = False
    # The game's decider (never encoded: a table is a fold, not a record).
    game: Any = None

    @property
    def decider(self) -> Decider:
        game: Decider = self.game
        return game

    def free_seats(self) -> list[int]:
        return [i for i, name in enumerate(self.seats) if name is None]

    @property
    def final_outcome(self) -> Outcome | None:
        """The outcome every reader counts: the ruled one once a verdict changed it."""
        return self.ruled_outcome if self.ruled_outcome is not None else self.outcome


def created(decider: Decider, event: GameCreated) -> Table:
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
        seed_commitment=event.seed_commitment,
        timeouts_to_remove=event.timeouts_to_remove,
        lobby_timeout=event.lobby_timeout,
        rated=event.rated,
        seat_commitments=(None,) * options.players,
        seat_seeds=(None,) * options.players,
        state=decider.initial_state(options),
        version=1,
        game=decider,
    )


def evolve(decider: Decider, table: Table | None, event: Any) -> Table:
    """Fold one event (lobby or ``decider``'s game) into the table; the version is bumped by one."""
    if table is None:
        assert isinstance(event, GameCreated), "a game log starts with lobby.created"
        return created(decider, event)
    version = table.version + 1
    match event:
        case SeatJoined(seat=seat, name=name, occupancy=occupancy, player=player):
            joined = _seated(table, seat, name, occupancy, player, version)
            return _seat_seed(joined, seat, event.seed_commitment, None)
        case SeatLeft(seat=seat):
            return _seat_seed(_seated(table, seat, None, None, None, version), seat, None, None)
        case SeedRevealed(seat=seat, seed=seed):
            revealed = _seat_seed(table, seat, table.seat_commitments[seat], seed)
            return msgspec.structs.replace(revealed, version=version)
        case SeedDisclosed(seed=seed):
            return msgspec.structs.replace(table, server_seed=seed, version=version)
        case SeatsErased(seats=erased, pseudonym=pseudonym):
            names = tuple(
                pseudonym if i in erased and name is not None else name for i, name in enumerate(table.seats)
            )
            return msgspec.structs.replace(table, seats=names, version=version)
        case SeatTimedOut(seat=seat, in_a_row=in_a_row):
            return msgspec.structs.replace(table, timeouts=_timeouts(table, seat, in_a_row), version=version)
        case SeatBack(seat=seat):
            return msgspec.structs.replace(table, timeouts=_timeouts(table, seat, 0), version=version)
        case LobbyClosed():
            return msgspec.structs.replace(
                table, status="finished", closed=True, finished_version=version, version=version
            )
        case GameStarted(started_at=started_at):
            return msgspec.structs.replace(table, status="running", version=version, started_at=started_at)
        case GameCreated():
            raise ValueError("lobby.created can only open a log")
    return moved(decider, table, (event,), decider.evolve(table.state, event))


def moved(decider: Decider, table: Table, events: Sequence[Any], state: Any) -> Table:
    """The table after the game's ``events``, which lead its game to ``state`` (the game folded
    them already: its ``decide`` did, domain/batch.py). What each event says (who conceded or went
    out, whom it is private to) is read from it; what the game's state says (the outcome), from
    ``state``: a game ends on the last event of the decision that ends it, as nothing is decided
    once it is over."""
    version = table.version + len(events)
    conceded, out, private = table.conceded, table.out, table.private
    left, gone, hook = decider.seats.conceded, decider.seats.out, decider.hidden.private_to
    for event in events:
        if left is not None and (seat := left(event)) is not None:
            conceded = conceded | {seat}
        if gone is not None and (seat := gone(event)) is not None and seat not in out:
            out = (*out, seat)
        if hook is not None and (owner := hook(event)) is not None:
            counts = list(private or (0,) * len(table.seats))
            counts[owner] += 1
            private = tuple(counts)
    outcome = decider.outcome(state)
    status: Status = "finished" if outcome is not None else table.status
    finished_version = table.finished_version
    if status == "finished" and finished_version is None:
        finished_version = version
    return msgspec.structs.replace(
        table,
        state=state,
        version=version,
        outcome=outcome,
        status=status,
        conceded=conceded,
        out=out,
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


def _timeouts(table: Table, seat: int, in_a_row: int) -> tuple[int, ...]:
    counts = list(table.timeouts or (0,) * len(table.seats))
    counts[seat] = in_a_row
    return tuple(counts)


def _seat_seed(table: Table, seat: int, commitment: str | None, seed: str | None) -> Table:
    """``table`` with ``seat``'s committed and revealed seed (logs older than seeds: none)."""
    seats = len(table.seats)
    commitments = list(table.seat_commitments or (None,) * seats)
    seeds = list(table.seat_seeds or (None,) * seats)
    commitments[seat], seeds[seat] = commitment, seed
    return msgspec.structs.replace(table, seat_commitments=tuple(commitments), seat_seeds=tuple(seeds))
