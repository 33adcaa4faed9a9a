"""The audit's reads: who may see a game's whole log (moderators always; anyone once a public
game is over and its spectator delay has passed, projections/spectator decides), and the log
replayed step by step for the audit routes (service/api/audit.py only calls these).

Anyone but a moderator reads the dispute events of an audit as spectators do
(domain/disputes/views.py): a finished public game opens its hidden cards, never a dispute's
reason or a moderator's note."""

from __future__ import annotations

import time
import uuid

import msgspec

from domain.disputes.views import redact as redact_dispute
from domain.viewers import SPECTATOR
from projections.replay import RawEvent, Step, replay
from projections.spectator import open_to_anyone
from projections.table import DisputeEvent
from service.auth import Principal
from service.errors import ServiceError
from service.games import GameService
from service.store import StoredEvent


def _raw(stored: StoredEvent) -> RawEvent:
    return RawEvent(
        seq=stored.seq,
        recorded_at=stored.recorded_at.timestamp(),
        type=stored.type,
        data=stored.data,
        actor=stored.metadata.get("actor"),
        schema_version=stored.schema_version,
    )


async def audited(
    games: GameService, game_id: uuid.UUID, principal: Principal | None
) -> tuple[list[StoredEvent], list[Step]]:
    stored = await logged(games, game_id)
    if not stored:
        raise ServiceError(404, "not_found", f"Game {game_id} does not exist.")
    steps = replay(_raw(s) for s in stored)
    if principal is not None and principal.role == "moderator":
        return stored, steps
    if open_to_anyone(steps[-1].table, stored[-1].recorded_at.timestamp(), time.time()):
        return stored, [_public(step) for step in steps]
    status = 401 if principal is None else 403
    raise ServiceError(
        status, "moderator_only", "A moderator token is required until this public game is over."
    )


def _public(step: Step) -> Step:
    """``step`` with its dispute event's texts cut, as spectators read them."""
    if not isinstance(step.event, DisputeEvent):
        return step
    return msgspec.structs.replace(step, event=redact_dispute(step.event, SPECTATOR))


def has_disputes(steps: list[Step]) -> bool:
    return bool(steps) and bool(steps[-1].table.disputes)


async def logged(games: GameService, game_id: uuid.UUID) -> list[StoredEvent]:
    """The game's whole log, from a replica when it has caught up with the primary's last seq."""
    return await games.reads.events(game_id, needs=await games.store.current_seq(game_id))


async def replayed(games: GameService, game_id: uuid.UUID) -> list[Step]:
    """The game's log replayed step by step (an unknown game has no steps)."""
    return replay(_raw(s) for s in await logged(games, game_id))
