"""Moderator audit: the full log, the state at any seq, diffs, transcripts, proofs.

Open to a moderator token for any game, and to anyone once a public game is finished and its
spectator delay has passed. Players of a finished game get their own redacted transcript.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

import msgspec
from litestar import Controller, MediaType
from litestar.di import Provide
from litestar.params import QueryParameter
from litestar.response import Stream

from domain.viewers import Seat
from projections.replay import Change, ShuffleProof, snapshot, transcript
from projections.replay import diffs as replay_diffs
from projections.replay import shuffle_proofs as replay_proofs
from service import audit as audits
from service.api import guards
from service.api.deps import SeatHolder, provide_principal_if_sent, provide_seat_holder
from service.api.params import INT32_MAX, SeatNumber
from service.api.problems import AUDITOR, BEARER, PARAMS, SEAT, UNAVAILABLE, UNKNOWN_GAME, problems
from service.api.routes import get
from service.audit import ChainReport
from service.auth import Principal
from service.errors import ServiceError
from service.games import GameService


class AuditEvent(msgspec.Struct, frozen=True):
    seq: int
    type: str
    recorded_at: float
    metadata: dict[str, Any]
    prev_hash: str
    hash: str
    data: Any  # the whole event, hidden information included


class StateAt(msgspec.Struct, frozen=True):
    seq: int
    state: dict[str, Any]


class EventDiff(msgspec.Struct, frozen=True):
    seq: int
    type: str
    changes: list[Change]


class Audit(msgspec.Struct, frozen=True):
    chain: ChainReport
    shuffles: list[ShuffleProof]
    shuffles_valid: bool


class AuditController(Controller):
    path = "/games/{game_id:uuid}/audit"
    tags = ["audit"]
    guards = [guards.auditor]
    dependencies = {"principal": Provide(provide_principal_if_sent, sync_to_thread=False)}

    @get(
        "/verify",
        operation_id="verifyChain",
        summary="Recompute the game's hash chain",
        responses=problems(PARAMS, AUDITOR, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def verify(self, game_id: uuid.UUID, games: GameService) -> ChainReport:
        return await audits.verify(games, game_id)

    @get(
        "/",
        operation_id="auditGame",
        summary="Chain verification and every shuffle proof",
        responses=problems(PARAMS, AUDITOR, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def audit(self, game_id: uuid.UUID, games: GameService, principal: Principal | None) -> Audit:
        proofs = replay_proofs(await audits.audited(games, game_id, principal))
        return Audit(
            chain=await audits.verify(games, game_id),
            shuffles=proofs,
            shuffles_valid=all(p.valid for p in proofs),
        )

    @get(
        "/log",
        operation_id="auditLog",
        summary="Every event with every hidden card",
        responses=problems(PARAMS, AUDITOR, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def log(
        self, game_id: uuid.UUID, games: GameService, principal: Principal | None
    ) -> list[AuditEvent]:
        stored, steps = await audits.log(games, game_id, principal)
        return [
            AuditEvent(
                seq=s.seq,
                type=s.type,
                recorded_at=s.recorded_at.timestamp(),
                metadata=audits.metadata(s, step),
                prev_hash=s.prev_hash.hex(),
                hash=s.hash.hex(),
                data=step.event,
            )
            for s, step in zip(stored, steps, strict=True)
        ]

    @get(
        "/state",
        operation_id="auditState",
        summary="The complete state after event `at`",
        responses=problems(
            {400: ["invalid_at"]}, AUDITOR, UNKNOWN_GAME, {404: ["seq_out_of_range"]}, UNAVAILABLE
        ),
    )
    async def state(
        self,
        game_id: uuid.UUID,
        games: GameService,
        principal: Principal | None,
        at: Annotated[int | None, QueryParameter(name="at", required=False, ge=1, le=INT32_MAX)] = None,
    ) -> StateAt:
        steps = await audits.audited(games, game_id, principal)
        seq = len(steps) if at is None else at
        if seq > len(steps):
            raise ServiceError(
                404, "seq_out_of_range", f"The game has {len(steps)} events; there is no seq {seq}."
            )
        return StateAt(seq=seq, state=snapshot(steps[seq - 1].table, raisers=audits.moderates(principal)))

    @get(
        "/diffs",
        operation_id="auditDiffs",
        summary="The change each event made to the state",
        responses=problems(PARAMS, AUDITOR, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def diffs(
        self, game_id: uuid.UUID, games: GameService, principal: Principal | None
    ) -> list[EventDiff]:
        steps = await audits.audited(games, game_id, principal)
        return [
            EventDiff(seq=step.seq, type=step.type, changes=changes)
            for step, changes in zip(
                steps, replay_diffs(steps, raisers=audits.moderates(principal)), strict=True
            )
        ]

    @get(
        "/transcript",
        operation_id="auditTranscript",
        responses=problems(PARAMS, AUDITOR, UNKNOWN_GAME, UNAVAILABLE),
        summary="A hand history: one line per event, hidden cards face up",
        media_type=MediaType.TEXT,
    )
    async def transcript(self, game_id: uuid.UUID, games: GameService, principal: Principal | None) -> str:
        return transcript(await audits.audited(games, game_id, principal))


class ExportController(Controller):
    path = "/games/{game_id:uuid}"
    tags = ["audit"]
    guards = [guards.auditor]  # the audit's rule: who may see everything
    dependencies = {"principal": Provide(provide_principal_if_sent, sync_to_thread=False)}

    @get(
        "/export",
        operation_id="exportGame",
        summary="The game as a portable JSON Lines file (docs/export-format.md)",
        media_type="application/x-ndjson",
        responses=problems(PARAMS, AUDITOR, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def export(self, game_id: uuid.UUID, games: GameService, principal: Principal | None) -> Stream:
        return Stream(
            await audits.export_lines(games, game_id, principal),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
        )


class SeatTranscriptController(Controller):
    path = "/games/{game_id:uuid}/seats/{seat:int}"
    tags = ["play"]
    guards = [guards.seat_holder]
    dependencies = {"holder": Provide(provide_seat_holder, sync_to_thread=False)}

    @get(
        "/transcript",
        operation_id="seatTranscript",
        responses=problems(SEAT, BEARER, UNKNOWN_GAME, {409: ["game_not_finished"]}, UNAVAILABLE),
        summary="This seat's own transcript of a finished game",
        media_type=MediaType.TEXT,
    )
    async def transcript(
        self, game_id: uuid.UUID, seat: SeatNumber, games: GameService, holder: SeatHolder
    ) -> str:
        steps = await audits.replayed(games, game_id)
        if steps[-1].table.status != "finished":
            raise ServiceError(409, "game_not_finished", "Transcripts are given once the game is over.")
        return transcript(steps, Seat(seat))
