"""Disputes, the moderators' side: the queue, a dispute's detail, and their work on it (claim,
release, note, ask a seat, rule, review), each a command in the game's log run by one helper.

Every POST is idempotent with the ``Idempotency-Key`` header (service/app/disputes.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated

import msgspec
from litestar import Controller, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import QueryParameter

from domain.disputes.commands import (
    AskSeat,
    ClaimDispute,
    ModeratorCommand,
    NoteDispute,
    OpenReview,
    ReleaseDispute,
    ResolveDispute,
)
from domain.viewers import MODERATOR
from projections.disputes import DisputeOut
from projections.replay import snapshot
from service.app import audit as audits
from service.app.access import Ask
from service.app.audit import replayed
from service.app.auth import Principal
from service.app.disputes import moderator_name, refuse_seated
from service.http import paging
from service.http.api import guards
from service.http.api.audit import access_of
from service.http.api.deps import AnyRequest, created_at, provide_principal
from service.http.api.dispute_shapes import (
    CHANGE,
    MODERATOR_WORK,
    UNKNOWN_DISPUTE,
    DisputeDetail,
    DisputedEvent,
    DisputeQueue,
    GameFacts,
    OutcomeOut,
    QuestionBody,
    QueueKey,
    ResolveBody,
    ReviewBody,
    SeatFacts,
    TextBody,
)
from service.http.api.disputes import disputes_of, fingerprinted
from service.http.api.params import IdempotencyKey, provide_reason
from service.http.api.problems import (
    AUDITOR,
    BEARER,
    FACE_UP,
    JSON_BODY,
    PARAMS,
    UNAVAILABLE,
    Codes,
    problems,
)
from service.http.fast.routes import get, post
from service.http.paging import CURSOR_CODES, DEFAULT_LIMIT, LINK, Cursor, Limit


def _moderation(*specific: Codes, body: bool = False) -> dict[int, ResponseSpec]:
    """What a moderator's action on one dispute may answer: every such route's codes, its own
    (``specific``) among them, and the body's when it takes one."""
    bodied = (JSON_BODY,) if body else ()
    return problems(
        PARAMS, *bodied, AUDITOR, BEARER, UNKNOWN_DISPUTE, *specific, MODERATOR_WORK, CHANGE, UNAVAILABLE
    )


async def _act(
    state: State,
    dispute_id: uuid.UUID,
    principal: Principal,
    key: str | None,
    operation: str,
    data: msgspec.Struct | None,
    command: Callable[[str, str], ModeratorCommand],
) -> DisputeOut:
    """A moderator's action on a dispute: ``command(dispute_id, moderator)`` run in the game's log
    under the operation's key; the dispute as it left it (for a review: the new one)."""
    return await disputes_of(state).moderate(
        dispute_id, principal, command, operation=operation, key=key, body=fingerprinted(data)
    )


def _added(dispute: DisputeOut) -> Response[DisputeOut]:
    """A moderator's 201: what it added is read in the dispute's detail."""
    return created_at(dispute, f"/moderation/disputes/{dispute.dispute_id}")


class ModerationController(Controller):
    path = "/moderation/disputes"
    tags = ["moderation"]
    guards = [guards.moderator]
    dependencies = {"principal": Provide(provide_principal, sync_to_thread=False)}

    @get(
        "/",
        operation_id="disputeQueue",
        summary="The moderators' queue, oldest first",
        responses=problems(
            PARAMS,
            {400: ["invalid_status", "invalid_kind", "invalid_category", *CURSOR_CODES]},
            AUDITOR,
            BEARER,
            UNAVAILABLE,
        ),
        response_headers=[LINK],
    )
    async def queue(
        self,
        state: State,
        principal: Principal,
        request: AnyRequest,
        status: Annotated[
            str | None, QueryParameter(required=False, pattern=r"^(open|claimed|resolved)$")
        ] = None,
        kind: Annotated[str | None, QueryParameter(required=False, max_length=64)] = None,
        category: Annotated[
            str | None,
            QueryParameter(required=False, pattern=r"^(rules|timeout|misconduct|technical|other)$"),
        ] = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
    ) -> Response[DisputeQueue]:
        moderator_name(principal)
        after = paging.decode(cursor, QueueKey)
        items, last = await disputes_of(state).queue(
            status=status,
            kind=kind,
            category=category,
            limit=limit,
            after=(after.raised_at, after.dispute_id) if after else None,
        )
        more = paging.next_page(request, QueueKey("disputes", *last) if last else None)
        return paging.page(DisputeQueue(items=items, next=more), more)

    @get(
        "/{dispute_id:uuid}",
        operation_id="getDispute",
        summary="A dispute with its history, its game's facts, the disputed states and the chain",
        description=(
            "With `states` (the default) the disputed events and the states around them are face"
            " up: the read goes on the game's access record for this dispute (service/app/access.py;"
            " a dispute resolved while its game runs needs a `reason`). `states=false` leaves"
            " them out (`disputed` is empty) and is not recorded: for a page that looks again."
        ),
        dependencies={"ask": Provide(provide_reason, sync_to_thread=False)},
        responses=problems(
            PARAMS,
            {400: ["invalid_states"]},
            AUDITOR,
            BEARER,
            UNKNOWN_DISPUTE,
            {403: ["moderator_was_seated"]},
            FACE_UP,
            UNAVAILABLE,
        ),
    )
    async def detail(
        self,
        dispute_id: uuid.UUID,
        state: State,
        principal: Principal,
        ask: Ask,
        states: Annotated[
            bool, QueryParameter(required=False, description="Show the disputed events face up")
        ] = True,
    ) -> DisputeDetail:
        name = moderator_name(principal)
        disputes = disputes_of(state)
        game_id = await disputes.game_of(dispute_id)
        steps = await replayed(disputes.games, game_id)
        table = steps[-1].table
        refuse_seated(table, name)
        shown = await disputes.one(game_id, str(dispute_id), MODERATOR)
        seqs = [seq for seq in (shown.seqs or []) if 1 <= seq <= len(steps)] if states else []
        if seqs:
            why = Ask(reason=ask.reason, dispute=dispute_id, note=ask.note)
            await access_of(state).face_up(game_id, principal, "getDispute", why, (1, max(seqs)), table)
        disputed = [
            DisputedEvent(
                seq=seq,
                type=steps[seq - 1].type,
                event=steps[seq - 1].event,
                state_before=snapshot(steps[seq - 2].table) if seq > 1 else None,
                state_after=snapshot(steps[seq - 1].table),
            )
            for seq in seqs
        ]
        penalties = table.penalties or (0,) * len(table.seats)
        facts = GameFacts(
            game_id=game_id,
            kind=table.kind,
            status=table.status,
            public=table.public,
            seats=[
                SeatFacts(seat=i, name=name, player_id=table.players[i], penalties=penalties[i])
                for i, name in enumerate(table.seats)
            ],
            outcome=OutcomeOut(list(table.outcome.winners)) if table.outcome else None,
            ruled_outcome=OutcomeOut(list(table.ruled_outcome.winners)) if table.ruled_outcome else None,
        )
        chain = await audits.verify(disputes.games, game_id)
        return DisputeDetail(dispute=shown, game=facts, disputed=disputed, chain=chain)

    @post(
        "/{dispute_id:uuid}/claim",
        operation_id="claimDispute",
        summary="Take a dispute (one moderator at a time)",
        responses=_moderation({409: ["dispute_claimed"]}),
        status_code=200,
    )
    async def claim(
        self,
        dispute_id: uuid.UUID,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> DisputeOut:
        return await _act(
            state,
            dispute_id,
            principal,
            idempotency_key,
            "claimDispute",
            None,
            lambda d, m: ClaimDispute(dispute_id=d, moderator=m),
        )

    @post(
        "/{dispute_id:uuid}/release",
        operation_id="releaseDispute",
        summary="Give a claimed dispute back to the queue",
        responses=_moderation({409: ["dispute_not_claimed"]}),
        status_code=200,
    )
    async def release(
        self,
        dispute_id: uuid.UUID,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> DisputeOut:
        return await _act(
            state,
            dispute_id,
            principal,
            idempotency_key,
            "releaseDispute",
            None,
            lambda d, m: ReleaseDispute(dispute_id=d, moderator=m),
        )

    @post(
        "/{dispute_id:uuid}/notes",
        operation_id="noteDispute",
        summary="A note only moderators read",
        responses=_moderation(body=True),
        status_code=201,
    )
    async def note(
        self,
        dispute_id: uuid.UUID,
        data: TextBody,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[DisputeOut]:
        def command(d: str, m: str) -> ModeratorCommand:
            return NoteDispute(dispute_id=d, moderator=m, text=data.text)

        return _added(await _act(state, dispute_id, principal, idempotency_key, "noteDispute", data, command))

    @post(
        "/{dispute_id:uuid}/questions",
        operation_id="askSeat",
        summary="Ask a seat of the game (it reads the question on its stream and replies)",
        responses=_moderation({409: ["dispute_not_claimed"], 422: ["invalid_seat"]}, body=True),
        status_code=201,
    )
    async def ask(
        self,
        dispute_id: uuid.UUID,
        data: QuestionBody,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[DisputeOut]:
        def command(d: str, m: str) -> ModeratorCommand:
            return AskSeat(dispute_id=d, moderator=m, seat=data.seat, text=data.text)

        return _added(await _act(state, dispute_id, principal, idempotency_key, "askSeat", data, command))

    @post(
        "/{dispute_id:uuid}/resolve",
        operation_id="resolveDispute",
        summary="Rule: dismissed, or upheld with an action (none, void, award, penalize)",
        responses=_moderation(
            {409: ["dispute_not_claimed", "game_not_finished"], 422: ["invalid_ruling"]}, body=True
        ),
        status_code=200,
    )
    async def resolve(
        self,
        dispute_id: uuid.UUID,
        data: ResolveBody,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> DisputeOut:
        def command(d: str, m: str) -> ModeratorCommand:
            seats = tuple(data.seats)
            return ResolveDispute(
                dispute_id=d,
                moderator=m,
                verdict=data.verdict,
                action=data.action,
                seats=seats,
                explanation=data.explanation,
            )

        return await _act(state, dispute_id, principal, idempotency_key, "resolveDispute", data, command)

    @post(
        "/{dispute_id:uuid}/reviews",
        operation_id="reviewDispute",
        summary="Open a review of a resolved dispute: a new dispute citing it",
        responses=_moderation({409: ["dispute_not_resolved"], 422: ["reason_too_long"]}, body=True),
        status_code=201,
    )
    async def review(
        self,
        dispute_id: uuid.UUID,
        data: ReviewBody,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[DisputeOut]:
        review_id = str(uuid.uuid4())

        def command(d: str, m: str) -> ModeratorCommand:
            return OpenReview(dispute_id=d, moderator=m, review_id=review_id, reason=data.reason)

        review = await _act(state, dispute_id, principal, idempotency_key, "reviewDispute", data, command)
        return _added(review)
