"""The table's rules (RULES.md's lobby): create, join, leave or concede, start, the deadline.

``decide(game, table, command, ctx)`` is the composed decide: lobby commands are decided here,
a seat's ``Play`` and the server's ``ActOnDeadline`` are routed to ``game`` once it has started.
Dispute commands (a seat's raise and reply, a moderator's work) go to domain/disputes/rules.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import msgspec

from domain.decider import Context, Decider
from domain.disputes import rules as disputes
from domain.disputes.commands import ModeratorCommand, RaiseDispute, ReplyToQuestion
from domain.table.commands import (
    DEFAULT_SPECTATOR_DELAY,
    MAX_SPECTATOR_DELAY,
    NAME_LENGTH,
    ActOnDeadline,
    CreateGame,
    JoinSeat,
    LeaveSeat,
    Play,
    StartGame,
    TableCommand,
)
from domain.table.events import GameCreated, GameStarted, SeatJoined, SeatLeft
from domain.table.refusals import TableRefusal, already_started
from domain.table.state import Table
from domain.text import is_name


def check_holder(table: Table, seat: int, holder: str | None) -> None:
    """Refuse (``seat_token_revoked``) unless occupancy ``holder`` holds ``seat`` (None: no check)."""
    if holder is None:
        return
    if not 0 <= seat < len(table.seats) or table.occupancies[seat] != holder:
        raise TableRefusal(
            "forbidden", "seat_token_revoked", "This seat token's holder no longer holds this seat."
        )


def create(game: Decider, command: CreateGame, ctx: Context) -> list[Any]:
    delay = DEFAULT_SPECTATOR_DELAY if command.spectator_delay is None else command.spectator_delay
    if not 0 <= delay <= MAX_SPECTATOR_DELAY:
        raise TableRefusal(
            "invalid", "invalid_spectator_delay", f"spectator_delay must be 0..{MAX_SPECTATOR_DELAY:g} s."
        )
    options = game.parse_options(command.options)
    return [
        GameCreated(
            kind=game.kind,
            options=msgspec.to_builtins(options),
            public=command.public,
            spectator_delay=delay,
            created_at=ctx.now,
            rules_version=game.rules_version,
        )
    ]


def join(table: Table, command: JoinSeat) -> list[Any]:
    name = command.name.strip()
    low, high = NAME_LENGTH
    if not low <= len(name) <= high or not is_name(name):
        raise TableRefusal(
            "invalid", "invalid_name", f"A display name has {low} to {high} characters, no control character."
        )
    if table.status != "open":
        raise already_started()
    free = table.free_seats()
    if not free:
        raise TableRefusal("conflict", "game_full", "Every seat of this game is taken.")
    return [SeatJoined(seat=free[0], name=name, occupancy=command.occupancy, player=command.player)]


def start(game: Decider, table: Table, ctx: Context) -> list[Any]:
    if table.status != "open":
        raise already_started()
    if free := table.free_seats():
        raise TableRefusal("conflict", "seats_not_filled", f"{len(free)} seat(s) are still free.")
    return [GameStarted(started_at=ctx.now), *game.start(table.state, ctx)]


def leave(game: Decider, table: Table, command: LeaveSeat, ctx: Context) -> Sequence[Any]:
    check_holder(table, command.seat, command.holder)
    if table.status == "open":
        return [SeatLeft(seat=command.seat)]
    if table.status == "finished" or game.concede is None:
        raise TableRefusal("conflict", "cannot_leave", "This game cannot be left now.")
    return game.decide(table.state, game.concede(), dataclasses.replace(ctx, seat=command.seat))


def play(game: Decider, table: Table, command: Play, ctx: Context) -> Sequence[Any]:
    check_holder(table, command.seat, command.holder)
    if table.status == "open":
        raise TableRefusal("conflict", "game_not_started", "The game has not started yet.")
    return game.decide(table.state, command.command, dataclasses.replace(ctx, seat=command.seat))


def on_deadline(game: Decider, table: Table, ctx: Context) -> Sequence[Any]:
    """The game's deadline command when its deadline has passed; no events otherwise."""
    if table.status != "running":
        return []
    due = game.deadline(table.state)
    if due is None or due > ctx.now:
        return []
    return game.decide(table.state, game.on_deadline(table.state), dataclasses.replace(ctx, seat=None))


def decide(game: Decider, table: Table | None, command: TableCommand, ctx: Context) -> Sequence[Any]:
    """The events ``command`` makes happen at ``table`` (None: no game yet); raises a refusal."""
    if table is None:
        if not isinstance(command, CreateGame):
            raise TableRefusal("conflict", "no_game", "There is no game here yet.")
        return create(game, command, ctx)
    match command:
        case Play():
            return play(game, table, command, ctx)
        case JoinSeat():
            return join(table, command)
        case StartGame():
            return start(game, table, ctx)
        case LeaveSeat():
            return leave(game, table, command, ctx)
        case ActOnDeadline():
            return on_deadline(game, table, ctx)
        case RaiseDispute() | ReplyToQuestion() | ModeratorCommand():
            return disputes.decide(table, command, ctx)
        case CreateGame():
            raise TableRefusal("conflict", "game_exists", "This game already exists.")
    raise TableRefusal("invalid", "unknown_command", f"Unknown table command {type(command).__name__}.")
