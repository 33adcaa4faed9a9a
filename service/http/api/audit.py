"""Moderator audit: the full log, the state at any seq, diffs, transcripts, proofs.

Open to a moderator token for any game, and to anyone once a public game is finished and its
spectator delay has passed. Players of a finished game get their own redacted transcript.

A moderator's read is face up: each goes on the record before its answer (service/app/access.py),
and while the game runs it needs a why (``reason``, ``dispute``, ``note`` in the query).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, MediaType, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.params import QueryParameter
from litestar.response import Stream

from domain.viewers import Seat
from projections.numbering import seat_numbers
from projections.replay import Change, ShuffleProof, snapshot, transcript
from projections.replay import diffs as replay_diffs
from projections.replay import shuffle_proofs as replay_proofs
from service.app import audit as audits
from service.app.access import Access, AccessRecord, Ask, Place
from service.app.audit import ChainReport
from service.app.auth import Principal
from service.app.errors import ServiceError
from service.app.games import GameService
from service.app.reexecution import Verified, verified
from service.http import paging
from service.http.api import guards
from service.http.api.deps import (
    AnyRequest,
    SeatHolder,
    provide_principal,
    provide_principal_if_sent,
    provide_seat_holder,
)
from service.http.api.params import INT32_MAX, AfterSeq, PageLimit, SeatNumber, provide_ask
from service.http.api.problems import (
    AUDITOR,
    BEARER,
    FACE_UP,
    PARAMS,
    SEAT,
    UNAVAILABLE,
    UNKNOWN_GAME,
    Codes,
    problems,
)
from service.http.api.transparency import log_of
from service.http.fast.routes import get
from service.http.paging import CURSOR_CODES, DEFAULT_LIMIT, LINK, Cursor, Limit
from service.transparency.proofs import proof_lines


class AuditEvent(msgspec.Struct, frozen=True):
    seq: int
    type: str
    recorded_at: float
    metadata: dict[str, Any]
    prev_hash: str
    hash: str
    data: Any  # the whole event, hidden information included
    # Each seat's own number for this event (RULES 3; None: that seat may not see it), to match
    # what a seat's page says with the log.
    seat_numbers: list[int | None] = []


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


class AccessList(msgspec.Struct, frozen=True):
    items: list[AccessRecord]  # oldest first
    next: str | None  # the next page's URL (docs/api.md, "Pages"); None: the last page


class AccessKey(paging.Key, frozen=True, array_like=True):
    """A page of access records starts after a time and the records of it the reader has read:
    values on the reader's own page, never the chain's ``n`` (service/app/access.py says why)."""

    list: Literal["access"]
    at_us: Annotated[int, msgspec.Meta(ge=0, le=2**62)]
    seen: Annotated[int, msgspec.Meta(ge=0, le=INT32_MAX)]


def access_of(state: State) -> Access:
    access: Access = state.access
    return access


# What every face-up read may answer besides its own codes.
READ: tuple[Codes, ...] = (PARAMS, {400: ["invalid_dispute"]}, AUDITOR, FACE_UP, UNKNOWN_GAME, UNAVAILABLE)
# The log and its diffs in pages, so that a replay viewer grows with what it shows, not the game.
PAGED: Codes = {400: ["invalid_after", "invalid_limit"]}


def _page(count: int, after: int, limit: int | None) -> slice:
    """Events ``after`` + 1 .. (log seqs run from 1 without a gap), ``limit`` at most."""
    return slice(after, count if limit is None else min(count, after + limit))


def _last(page: slice, count: int) -> int | None:
    """The seq the next page starts after, when the page stops before the log's end."""
    return page.stop if page.stop < count else None


FACE_UP_DEPENDENCIES = {
    "principal": Provide(provide_principal_if_sent, sync_to_thread=False),
    "ask": Provide(provide_ask, sync_to_thread=False),
}


class AuditController(Controller):
    path = "/games/{game_id:uuid}/audit"
    tags = ["audit"]
    guards = [guards.auditor]
    dependencies = FACE_UP_DEPENDENCIES

    @get(
        "/verify",
        operation_id="verifyChain",
        summary="Recompute the game's hash chain and re-execute every recorded command",
        responses=problems(*READ),
    )
    async def verify(
        self, game_id: uuid.UUID, games: GameService, principal: Principal | None, ask: Ask, state: State
    ) -> Verified:
        chain = await audits.verify(games, game_id)
        await access_of(state).face_up(game_id, principal, "verifyChain", ask, (1, chain.events))
        return await verified(games, game_id, chain, moderator=audits.moderates(principal))

    @get(
        "/",
        operation_id="auditGame",
        summary="Chain verification and every shuffle proof",
        responses=problems(*READ),
    )
    async def audit(
        self, game_id: uuid.UUID, games: GameService, principal: Principal | None, ask: Ask, state: State
    ) -> Audit:
        steps = await audits.audited(games, game_id, principal)
        proofs = replay_proofs(steps)
        shown = (1, len(steps))
        await access_of(state).face_up(game_id, principal, "auditGame", ask, shown, steps[-1].table)
        return Audit(
            chain=await audits.verify(games, game_id),
            shuffles=proofs,
            shuffles_valid=all(p.valid for p in proofs),
        )

    @get(
        "/log",
        operation_id="auditLog",
        summary="Every event with every hidden card (in pages: `after`, `limit`)",
        responses=problems(*READ, PAGED),
        response_headers=[LINK],
    )
    async def log(
        self,
        game_id: uuid.UUID,
        games: GameService,
        principal: Principal | None,
        ask: Ask,
        state: State,
        request: AnyRequest,
        after: AfterSeq = 0,
        limit: PageLimit = None,
    ) -> Response[list[AuditEvent]]:
        stored, steps = await audits.log(games, game_id, principal)
        page = _page(len(steps), after, limit)
        stored, steps_shown = stored[page], steps[page]
        if not steps_shown:
            return paging.events(request, [], None)  # nothing shown face up: nothing to record
        shown = (steps_shown[0].seq, steps_shown[-1].seq)
        await access_of(state).face_up(game_id, principal, "auditLog", ask, shown, steps[-1].table)
        before = [steps[page.start - 1].table if page.start else None, *(step.table for step in steps_shown)]
        events = [
            AuditEvent(
                seq=s.seq,
                type=s.type,
                recorded_at=s.recorded_at.timestamp(),
                metadata=audits.metadata(s, step),
                prev_hash=s.prev_hash.hex(),
                hash=s.hash.hex(),
                data=step.event,
                seat_numbers=seat_numbers(previous, step.table),
            )
            for s, step, previous in zip(stored, steps_shown, before[:-1], strict=True)
        ]
        return paging.events(request, events, _last(page, len(steps)))

    @get(
        "/state",
        operation_id="auditState",
        summary="The complete state after event `at`",
        responses=problems({400: ["invalid_at"]}, *READ, {404: ["seq_out_of_range"]}),
    )
    async def state(
        self,
        game_id: uuid.UUID,
        games: GameService,
        principal: Principal | None,
        ask: Ask,
        state: State,
        at: Annotated[int | None, QueryParameter(name="at", required=False, ge=1, le=INT32_MAX)] = None,
    ) -> StateAt:
        latest, table = await audits.state_at(games, game_id, at)
        await access_of(state).face_up(game_id, principal, "auditState", ask, (1, table.version), latest)
        return StateAt(seq=table.version, state=snapshot(table, raisers=audits.moderates(principal)))

    @get(
        "/diffs",
        operation_id="auditDiffs",
        summary="The change each event made to the state (in pages: `after`, `limit`)",
        responses=problems(*READ, PAGED),
        response_headers=[LINK],
    )
    async def diffs(
        self,
        game_id: uuid.UUID,
        games: GameService,
        principal: Principal | None,
        ask: Ask,
        state: State,
        request: AnyRequest,
        after: AfterSeq = 0,
        limit: PageLimit = None,
    ) -> Response[list[EventDiff]]:
        steps = await audits.audited(games, game_id, principal)
        page = _page(len(steps), after, limit)
        if not steps[page]:
            return paging.events(request, [], None)  # nothing shown face up: nothing to record
        # A change shows parts of the states around it: like a state, everything before it.
        shown = (1, steps[page][-1].seq)
        await access_of(state).face_up(game_id, principal, "auditDiffs", ask, shown, steps[-1].table)
        # A change is a difference from the step before: the page's first needs its predecessor.
        window = steps[max(page.start - 1, 0) : page.stop]
        changes = replay_diffs(window, raisers=audits.moderates(principal))[len(window) - len(steps[page]) :]
        diffs = [
            EventDiff(seq=step.seq, type=step.type, changes=change)
            for step, change in zip(steps[page], changes, strict=True)
        ]
        return paging.events(request, diffs, _last(page, len(steps)))

    @get(
        "/transcript",
        operation_id="auditTranscript",
        responses=problems(*READ),
        summary="A hand history: one line per event, hidden cards face up",
        media_type=MediaType.TEXT,
    )
    async def transcript(
        self, game_id: uuid.UUID, games: GameService, principal: Principal | None, ask: Ask, state: State
    ) -> str:
        steps = await audits.audited(games, game_id, principal)
        shown = (1, len(steps))
        await access_of(state).face_up(game_id, principal, "auditTranscript", ask, shown, steps[-1].table)
        return transcript(steps)


class ExportController(Controller):
    path = "/games/{game_id:uuid}"
    tags = ["audit"]
    guards = [guards.auditor]  # the audit's rule: who may see everything
    dependencies = FACE_UP_DEPENDENCIES

    @get(
        "/export",
        operation_id="exportGame",
        summary="The game as a portable JSON Lines file (docs/export-format.md)",
        media_type="application/x-ndjson",
        description="A moderator's export carries the game's access records (`access` lines).",
        responses=problems(*READ),
    )
    async def export(
        self, game_id: uuid.UUID, games: GameService, principal: Principal | None, ask: Ask, state: State
    ) -> Stream:
        table, lines = await audits.export_lines(games, game_id, principal)
        await access_of(state).face_up(game_id, principal, "exportGame", ask, (1, table.version), table)
        proofs = await proof_lines(log_of(state), games.receipts, game_id, table.version)
        return Stream(
            _followed(lines, proofs),
            media_type="application/x-ndjson",
            headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'},
        )


async def _followed(lines: AsyncIterator[str], then: list[str]) -> AsyncIterator[str]:
    async for line in lines:
        yield line
    for line in then:
        yield line


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


class AccessController(Controller):
    path = "/games/{game_id:uuid}/access"
    tags = ["audit"]

    @get(
        "/",
        operation_id="listAccessRecords",
        summary="Who looked at this game face up: the moderators' reads, when, why, what range",
        guards=[guards.bearer],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(
            PARAMS, {400: CURSOR_CODES}, BEARER, {403: ["not_seated"]}, UNKNOWN_GAME, UNAVAILABLE
        ),
        response_headers=[LINK],
    )
    async def listed(
        self,
        game_id: uuid.UUID,
        principal: Principal,
        state: State,
        request: AnyRequest,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
    ) -> Response[AccessList]:
        after = paging.decode(cursor, AccessKey)
        items, last = await access_of(state).listed(
            game_id, principal, limit, Place(after.at_us, after.seen) if after else None
        )
        more = paging.next_page(request, AccessKey("access", last.at_us, last.seen) if last else None)
        return paging.page(AccessList(items=items, next=more), more)
