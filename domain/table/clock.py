"""The table's clock: no game waits for a seat that is not there (RULES 3, issue 52).

- A public game gets its game's per-move limit unless its host names one (``Clock.public_defaults``,
  written into ``lobby.created``'s options); a private game has none unless its host sets one.
  ``with_defaults`` turns a host's create into the command decided and recorded.
- When a deadline that waits for one seat passes (``Clock.waiting_for``), the table records
  ``lobby.timed_out`` and the game makes its own forced move; the ``timeouts_to_remove``-th time
  in a row the seat concedes instead (the game's ``Concede``), so the others play on. A seat that
  acts itself again is ``lobby.back``: its count starts over. A seat that never acted after the
  start is timed out and removed the same way.
- A lobby not started ``lobby_timeout`` seconds after its creation closes (``lobby.closed``, then
  the server's seed disclosed, as at the end of every game).

Games created before the clock recorded none of this (both settings None): their deadlines are
the game's alone, and their logs re-execute to the same events.
"""

from __future__ import annotations

import msgspec

from domain.decider import Concede, Context, Decider
from domain.table.commands import (
    DEFAULT_TIMEOUTS_TO_REMOVE,
    MAX_LOBBY_TIMEOUT,
    MAX_TIMEOUTS_TO_REMOVE,
    PUBLIC_LOBBY_TIMEOUT,
    CreateGame,
)
from domain.table.decision import Decision, by_game, folded, then
from domain.table.events import LobbyClosed, SeatBack, SeatTimedOut, SeedDisclosed
from domain.table.refusals import TableRefusal
from domain.table.state import Table


def with_defaults(game: Decider, command: CreateGame) -> CreateGame:
    """The create a host's request means: a public game's per-move limit unless its host named
    one, and the table's defaults for what it left out (0: never). The service decides this
    command, so the log records the clock as chosen, and a create recorded before the clock
    (no settings: none) re-executes as it was."""
    options = {**game.clock.public_defaults, **command.options} if command.public else command.options
    removal = DEFAULT_TIMEOUTS_TO_REMOVE if command.timeouts_to_remove is None else command.timeouts_to_remove
    default_wait = PUBLIC_LOBBY_TIMEOUT if command.public else 0.0
    wait = default_wait if command.lobby_timeout is None else command.lobby_timeout
    return msgspec.structs.replace(command, options=options, timeouts_to_remove=removal, lobby_timeout=wait)


def recorded(command: CreateGame) -> tuple[int | None, float | None]:
    """``lobby.created``'s ``timeouts_to_remove`` and ``lobby_timeout`` (None or 0: never)."""
    removal, wait = command.timeouts_to_remove or 0, command.lobby_timeout or 0.0
    if not 0 <= removal <= MAX_TIMEOUTS_TO_REMOVE:
        raise TableRefusal(
            "invalid", "invalid_clock", f"timeouts_to_remove must be 0..{MAX_TIMEOUTS_TO_REMOVE} (0: never)."
        )
    if not 0 <= wait <= MAX_LOBBY_TIMEOUT:
        raise TableRefusal(
            "invalid", "invalid_clock", f"lobby_timeout must be 0..{MAX_LOBBY_TIMEOUT:g} s (0: never)."
        )
    return removal or None, wait or None


class ClockSettings(msgspec.Struct, frozen=True):
    """A table's clock, as its pages put it in words."""

    decision_timeout: float | None  # seconds a move (RULES 3's game option); None: no clock
    timeouts_to_remove: int | None  # timeouts in a row that remove a seat; None: never
    lobby_closes_at: float | None  # while the lobby is open: when it closes unless started


def settings_of(table: Table) -> ClockSettings | None:
    """The table's clock, None when it has none at all (no per-move limit, no removal, no lobby
    deadline: as every game created before the clock without a ``decision_timeout``)."""
    timeout = table.raw_options.get("decision_timeout")
    decision_timeout = float(timeout) if isinstance(timeout, int | float) else None
    closes_at = lobby_deadline(table)
    if decision_timeout is None and table.timeouts_to_remove is None and closes_at is None:
        return None
    return ClockSettings(decision_timeout, table.timeouts_to_remove, closes_at)


def lobby_deadline(table: Table) -> float | None:
    """When an open lobby closes unless started (None: it waits for its host)."""
    if table.status != "open" or table.lobby_timeout is None:
        return None
    return table.created_at + table.lobby_timeout


def deadline(table: Table) -> float | None:
    """When the server must act on its own at ``table`` (None: nothing is due)."""
    if table.status == "open":
        return lobby_deadline(table)
    return table.decider.clock.deadline(table.state) if table.status == "running" else None


def on_deadline(game: Decider, table: Table, ctx: Context) -> Decision:
    """The server's move once a deadline has passed; no events before it."""
    due = deadline(table)
    if due is None or due > ctx.now:
        return Decision([], table)
    if table.status == "open":  # the server's seed disclosed as at every end: nothing was dealt
        closed = (
            [LobbyClosed()]
            if ctx.server_seed is None
            else [LobbyClosed(), SeedDisclosed(seed=ctx.server_seed)]
        )
        return folded(game, table, closed)
    forced = game.clock.on_deadline(table.state)
    limit = table.timeouts_to_remove
    seat = game.clock.waiting_for(table.state) if limit is not None else None
    if limit is None or seat is None:  # a game without the table's clock, or nobody's in particular
        return by_game(game, table, forced, ctx.acting(None))
    in_a_row = (table.timeouts[seat] if table.timeouts else 0) + 1
    removed = in_a_row >= limit
    # Recorded before the game's move (a lobby fact: the game's state unchanged, decided on).
    timed_out = folded(game, table, [SeatTimedOut(seat=seat, in_a_row=in_a_row, removed=removed)])
    if removed:
        moves = by_game(game, timed_out.table, Concede(), ctx.acting(seat))
    else:
        moves = by_game(game, timed_out.table, forced, ctx.acting(None))
    return Decision([*timed_out.events, *moves.events], moves.table)


def back(table: Table, seat: int, moves: Decision) -> Decision:
    """A seat's own accepted ``moves``, followed by ``lobby.back`` if the clock had answered for it."""
    if not table.timeouts or not table.timeouts[seat] or not moves.events:
        return moves
    return then(moves, SeatBack(seat=seat))
