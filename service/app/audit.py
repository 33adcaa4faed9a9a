"""The audit's reads: who may see a game's whole log without a moderator token (anyone once a
public game is over and its spectator delay has passed, projections/spectator decides), and the
log (a page of it folded on from the one cache's table at its start; the whole of it decoded
for a transcript, not folded again), its chain, its replay and its export for the audit routes
(service/http/api/audit.py only calls these; its guard, service/http/api/guards.py, calls
``open_to_anyone``).

Anyone but a moderator reads the dispute events of an audit as spectators do
(domain/disputes/views.py): a finished public game opens its hidden cards, never a dispute's
reason or a moderator's note."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, TypeVar

import msgspec

from domain.disputes.views import redact as redact_dispute
from domain.viewers import SPECTATOR
from projections import spectator
from projections import table as tables
from projections.replay import Logged, RawEvent, Step, replay
from projections.table import DisputeEvent, Table
from service.app.auth import Principal
from service.app.errors import ServiceError, not_found
from service.app.games import GameService
from service.store import portable
from service.store.events import ChainReport, StoredEvent

__all__ = [
    "ChainReport",
    "Page",
    "audited",
    "decoded",
    "events",
    "export_lines",
    "metadata",
    "moderates",
    "open_to_anyone",
    "page",
    "replayed",
    "state_at",
    "verify",
]

Shown = TypeVar("Shown", Step, Logged)


def _raw(stored: StoredEvent) -> RawEvent:
    return RawEvent(
        seq=stored.seq,
        recorded_at=stored.recorded_at.timestamp(),
        type=stored.type,
        data=stored.data,
        actor=stored.metadata.get("actor"),
        schema_version=stored.schema_version,
    )


async def open_to_anyone(games: GameService, game_id: uuid.UUID) -> bool:
    """Whether anyone may audit the game now (404 if there is no such game)."""
    table = await games.load(game_id, cached_ok=True)
    if table.status != "finished":
        # The cached table may lag an append made through another instance (its notification
        # still on the way): refuse only on what the log says.
        table = await games.load(game_id)
        if table.status != "finished":
            return False
    ended = await games.ended_at(game_id, table)
    assert ended is not None
    return spectator.open_to_anyone(table, ended, time.time())


def moderates(principal: Principal | None) -> bool:
    """Whether ``principal`` reads an audit as a moderator (everything) or as anyone."""
    return principal is not None and principal.role == "moderator"


async def _whole(games: GameService, game_id: uuid.UUID) -> tuple[list[StoredEvent], list[Step]]:
    stored = await games.reads.whole_log(game_id)
    if not stored:
        raise not_found(f"Game {game_id}")
    return stored, replay(_raw(s) for s in stored)


@dataclass(frozen=True, slots=True)
class Page:
    """Events of a game's log with the table after each, and the tables around them."""

    latest: Table  # the game now
    before: Table | None  # the table just before the first step (None: the log's start)
    stored: list[StoredEvent]
    steps: list[Step]


async def page(
    games: GameService, game_id: uuid.UUID, principal: Principal | None, after: int, limit: int | None
) -> Page:
    """The events after seq ``after`` (``limit`` at most) and the table after each, as
    ``principal`` may read them (404 if there is no such game): folded on from the one cache's
    table at ``after``, never the whole game for a page of it. See ``metadata`` for what of a
    stored event's metadata."""
    latest = await games.load(game_id)
    stop = latest.version if limit is None else min(latest.version, after + limit)
    if after >= stop:
        return Page(latest, None, [], [])
    before = await games.tables.fold(game_id, after, keep=False) if after > 0 else None
    stored = await games.reads.events(game_id, after_seq=after, up_to_seq=stop, needs=stop)
    steps = replay((_raw(s) for s in stored), before)
    return Page(latest, before, stored, steps if moderates(principal) else [_public(step) for step in steps])


async def decoded(games: GameService, game_id: uuid.UUID) -> tuple[Table, list[Logged]]:
    """The game's whole log decoded, nothing cut, and the game after it: the one cache's table,
    the events not folded again (404 if there is no such game)."""
    stored = await games.reads.whole_log(game_id)
    if not stored:
        raise not_found(f"Game {game_id}")
    table = await games.tables.fold(game_id, stored[-1].seq, keep=False)
    assert table is not None
    return table, [
        Logged(
            s.seq,
            s.recorded_at.timestamp(),
            s.type,
            s.metadata.get("actor"),
            tables.decode(table.kind, s.type, s.data, s.schema_version),
        )
        for s in stored
    ]


async def events(
    games: GameService, game_id: uuid.UUID, principal: Principal | None
) -> tuple[Table, list[Logged]]:
    """``decoded``, as ``principal`` may read the events."""
    table, logged = await decoded(games, game_id)
    return table, logged if moderates(principal) else [_public(one) for one in logged]


def metadata(stored: StoredEvent, step: Step) -> dict[str, Any]:
    """A stored event's metadata as the reader of ``step`` may see it: a dispute event's whole
    metadata names who acted (its actor, and its command id begins with it), so a reader who may
    not know who raised or answered (``_public`` cut the step's actor) gets none of it."""
    if isinstance(step.event, DisputeEvent) and step.actor is None:
        return {}
    return stored.metadata


def _public(step: Shown) -> Shown:
    """``step`` as spectators read it: its dispute event's texts and actor cut."""
    if not isinstance(step.event, DisputeEvent):
        return step
    return msgspec.structs.replace(step, event=redact_dispute(step.event, SPECTATOR), actor=None)


async def replayed(games: GameService, game_id: uuid.UUID) -> list[Step]:
    """The game's whole log replayed step by step, nothing cut: for readers that apply their own
    viewer (a seat's transcript) or are moderators (404 if there is no such game)."""
    _, steps = await _whole(games, game_id)
    return steps


async def audited(games: GameService, game_id: uuid.UUID, principal: Principal | None) -> list[Step]:
    """The audit's whole replay, as ``principal`` may read it (404 if there is no such game)."""
    _, steps = await _whole(games, game_id)
    return steps if moderates(principal) else [_public(step) for step in steps]


async def state_at(games: GameService, game_id: uuid.UUID, at: int | None) -> tuple[Table, Table]:
    """The game's table now and after seq ``at`` (None: now): the one cache's fold, on from the
    newest cached table not past ``at``, never the whole log refolded (404 if there is no such
    game, or no such seq)."""
    latest = await games.load(game_id)
    seq = latest.version if at is None else at
    if seq > latest.version:
        raise ServiceError(
            404, "seq_out_of_range", f"The game has {latest.version} events; there is no seq {seq}."
        )
    table = latest if seq == latest.version else await games.tables.fold(game_id, seq, keep=False)
    assert table is not None
    return latest, table


async def verify(games: GameService, game_id: uuid.UUID) -> ChainReport:
    """The game's hash chain recomputed (404 if there is no such game)."""
    await games.load(game_id, cached_ok=True)
    return await games.store.verify(game_id)


async def export_lines(
    games: GameService, game_id: uuid.UUID, principal: Principal | None
) -> tuple[Table, AsyncIterator[str]]:
    """The game as a portable JSON Lines file (docs/export-format.md), line by line, up to the
    table returned (404 if there is no such game, before the first line). A moderator's carries
    the game's access records; anyone else's none (spectators never see who looked)."""
    table = await games.load(game_id)
    if table.disputes and not moderates(principal):
        # The file holds the whole log, dispute reasons and notes included (cut, it would no
        # longer verify): moderators only.
        raise ServiceError(403, "moderator_only", "A game with disputes is exported to moderators only.")
    lines = portable.export_lines(
        games.store.db, game_id, now=time.time(), until=table.version, access=moderates(principal)
    )
    return table, lines
