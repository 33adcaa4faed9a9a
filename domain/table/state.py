"""The table's state around any game, and its ``evolve``: lobby facts here, game facts by the game.

``evolve`` only applies facts; what the table derives from the game's state (its outcome, who
conceded, per-seat private counts) is read through the game's ``Decider`` fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import msgspec

from domain import registry
from domain.decider import Decider, Outcome
from domain.disputes.events import DisputeEvent, DisputeResolved
from domain.disputes.state import DisputeState
from domain.disputes.state import apply as apply_dispute
from domain.table.events import GameCreated, GameStarted, SeatJoined, SeatLeft, SeedDisclosed, SeedRevealed

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
    started_at: float | None = None
    finished_version: int | None = None  # the seq of the event that ended the game
    # Per seat, how many events only that seat may see (games with ``private_to`` only; empty
    # while there are none): what each viewer's numbering leaves out (projections/numbering).
    private: tuple[int, ...] = ()
    # Disputes (domain/disputes): each one's progress, the outcome as ruled by an upheld verdict
    # (None: the original ``outcome`` stands; that one never changes) and the penalties per seat.
    disputes: tuple[DisputeState, ...] = ()
    ruled_outcome: Outcome | None = None
    penalties: tuple[int, ...] = ()
    # The committed seeds (domain/randomness.py): the server's commitment, each seat's commitment
    # and revealed seed (hex; None: none), the server's seed once disclosed at the end.
    seed_commitment: str | None = None
    seat_commitments: tuple[str | None, ...] = ()
    seat_seeds: tuple[str | None, ...] = ()
    server_seed: str | None = None

    @property
    def decider(self) -> Decider:
        return registry.get(self.kind)

    def free_seats(self) -> list[int]:
        return [i for i, name in enumerate(self.seats) if name is None]

    @property
    def final_outcome(self) -> Outcome | None:
        """The outcome every reader counts: the ruled one once a verdict changed it."""
        return self.ruled_outcome if self.ruled_outcome is not None else self.outcome


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
        seed_commitment=event.seed_commitment,
        seat_commitments=(None,) * options.players,
        seat_seeds=(None,) * options.players,
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
            joined = _seated(table, seat, name, occupancy, player, version)
            return _seat_seed(joined, seat, event.seed_commitment, None)
        case SeatLeft(seat=seat):
            return _seat_seed(_seated(table, seat, None, None, None, version), seat, None, None)
        case SeedRevealed(seat=seat, seed=seed):
            revealed = _seat_seed(table, seat, table.seat_commitments[seat], seed)
            return msgspec.structs.replace(revealed, version=version)
        case SeedDisclosed(seed=seed):
            return msgspec.structs.replace(table, server_seed=seed, version=version)
        case GameStarted(started_at=started_at):
            return msgspec.structs.replace(table, status="running", version=version, started_at=started_at)
        case GameCreated():
            raise ValueError("lobby.created can only open a log")
        case DisputeEvent():
            return _disputed(table, event, version)
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


Result = tuple[Outcome | None, tuple[int, ...]]  # the ruled outcome (None: none) and penalties


def after_ruling(table: Table, result: Result, verdict: str, action: str, seats: Iterable[int]) -> Result:
    """``result`` after one ruling of ``table``'s game: an upheld verdict may change it."""
    ruled, penalties = result
    if verdict == "upheld":
        scores = table.outcome.scores if table.outcome is not None else None
        if action == "void":
            ruled = Outcome(winners=(), scores=scores)
        elif action == "award":
            ruled = Outcome(winners=tuple(sorted(seats)), scores=scores)
        elif action == "penalize":
            counts = list(penalties or (0,) * len(table.seats))
            for seat in seats:
                counts[seat] += 1
            penalties = tuple(counts)
    return ruled, penalties


def _disputed(table: Table, event: DisputeEvent, version: int) -> Table:
    """``table`` after a dispute event; a ruling may change the outcome and the penalties."""
    ruled, penalties = table.ruled_outcome, table.penalties
    if isinstance(event, DisputeResolved):
        ruled, penalties = after_ruling(table, (ruled, penalties), event.verdict, event.action, event.seats)
    return msgspec.structs.replace(
        table,
        version=version,
        disputes=apply_dispute(table.disputes, event, version),
        ruled_outcome=ruled,
        penalties=penalties,
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


def _seat_seed(table: Table, seat: int, commitment: str | None, seed: str | None) -> Table:
    """``table`` with ``seat``'s committed and revealed seed (logs older than seeds: none)."""
    seats = len(table.seats)
    commitments = list(table.seat_commitments or (None,) * seats)
    seeds = list(table.seat_seeds or (None,) * seats)
    commitments[seat], seeds[seat] = commitment, seed
    return msgspec.structs.replace(table, seat_commitments=tuple(commitments), seat_seeds=tuple(seeds))


def fold(events: Iterable[Any], table: Table | None = None) -> Table | None:
    for event in events:
        table = evolve(table, event)
    return table
