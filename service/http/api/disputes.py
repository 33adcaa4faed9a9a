"""Disputes: a seat raises one and answers questions; moderators work the queue and rule.

Every POST is a command in the game's own log (service/app/disputes.py), idempotent with the
``Idempotency-Key`` header. Who may read what of a dispute is cut in projections/disputes.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

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
from domain.disputes.events import Action, Category, Verdict
from domain.text import TEXT_PATTERN
from domain.viewers import MODERATOR
from projections.disputes import DisputeOut
from projections.replay import snapshot
from service.app import audit as audits
from service.app.access import Ask
from service.app.audit import ChainReport, replayed
from service.app.auth import Principal
from service.app.disputes import Disputes, DisputeSummary, moderator_name, refuse_seated
from service.http import paging
from service.http.api import guards
from service.http.api.audit import access_of
from service.http.api.deps import AnyRequest, created_at, provide_principal, provide_principal_if_sent
from service.http.api.params import INT32_MAX, IdempotencyKey, provide_reason
from service.http.api.problems import (
    AUDITOR,
    BEARER,
    FACE_UP,
    JSON_BODY,
    KEYED,
    PARAMS,
    PRIVATE,
    UNAVAILABLE,
    UNKNOWN_GAME,
    Codes,
    problems,
)
from service.http.fast.routes import get, post
from service.http.paging import CURSOR_CODES, DEFAULT_LIMIT, LINK, Cursor, Limit

Text = Annotated[
    str, msgspec.Meta(min_length=1, max_length=1000, extra_json_schema={"pattern": TEXT_PATTERN})
]
Seq = Annotated[int, msgspec.Meta(ge=1, le=INT32_MAX)]
SeatIndex = Annotated[int, msgspec.Meta(ge=0, le=INT32_MAX)]
# Refusals shared by the routes that change a dispute.
CHANGE: Codes = {
    **KEYED,
    422: ["idempotency_key_reused", "invalid_text", "text_too_long"],
    409: ["version_conflict", "game_under_incident"],
}
UNKNOWN_DISPUTE: Codes = {404: ["not_found"]}
MODERATOR_WORK: Codes = {409: ["moderator_was_seated", "dispute_resolved"], 422: ["unknown_dispute"]}


def _moderation(*specific: Codes, body: bool = False) -> dict[int, ResponseSpec]:
    """What a moderator's action on one dispute may answer: every such route's codes, its own
    (``specific``) among them, and the body's when it takes one."""
    bodied = (JSON_BODY,) if body else ()
    return problems(
        PARAMS, *bodied, AUDITOR, BEARER, UNKNOWN_DISPUTE, *specific, MODERATOR_WORK, CHANGE, UNAVAILABLE
    )


class RaiseBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # The disputed events, as numbered for this seat (its events' seqs).
    seqs: Annotated[list[Seq], msgspec.Meta(min_length=1, max_length=100)]
    category: Category
    reason: Text


class TextBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    text: Text


class QuestionBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: SeatIndex
    text: Text


class ResolveBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A ruling: the verdict, the explanation every seat and spectator reads, and what an upheld
    dispute changes."""

    # How verdict, action and seats go together is said in words (the descriptions) rather than
    # as one schema per verdict: clients generated from the document read one body type.
    verdict: Verdict
    explanation: Text  # public: every seat and spectator reads it
    action: Annotated[
        Action | None,
        msgspec.Meta(description="Required when upheld; absent or none when dismissed (422 invalid_ruling)"),
    ] = None
    seats: Annotated[
        list[SeatIndex],
        msgspec.Meta(
            max_length=100,
            description=(
                "Seats of this game: the winners (award) or the penalized (penalize), at least one;"
                " empty with any other action (422 invalid_ruling)"
            ),
        ),
    ] = []


class ReviewBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    reason: Text


class DisputeQueue(msgspec.Struct, frozen=True):
    items: list[DisputeSummary]  # oldest first
    next: str | None  # the next page's URL (docs/api.md, "Pages"); None: the last page


class QueueKey(paging.Key, frozen=True, array_like=True):
    list: Literal["disputes"]
    raised_at: datetime
    dispute_id: uuid.UUID


class DisputeList(msgspec.Struct, frozen=True):
    items: list[DisputeOut]


class SeatFacts(msgspec.Struct, frozen=True):
    seat: int
    name: str | None
    player_id: str | None
    penalties: int


class OutcomeOut(msgspec.Struct, frozen=True):
    winners: list[int]


class GameFacts(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    status: str
    public: bool
    seats: list[SeatFacts]
    outcome: OutcomeOut | None  # as the game ended (it stays in the log)
    ruled_outcome: OutcomeOut | None  # as an upheld verdict ruled it (None: the original stands)


class DisputedEvent(msgspec.Struct, frozen=True):
    """A disputed event with the complete face-up state before and after it (the audit's)."""

    seq: int
    type: str
    event: Any
    state_before: dict[str, Any] | None
    state_after: dict[str, Any]


class DisputeDetail(msgspec.Struct, frozen=True):
    dispute: DisputeOut
    game: GameFacts
    disputed: list[DisputedEvent]
    chain: ChainReport


def _disputes(state: State) -> Disputes:
    disputes: Disputes = state.disputes
    return disputes


def _moderated(dispute: DisputeOut) -> Response[DisputeOut]:
    """A moderator's 201: what it added is read in the dispute's detail."""
    return created_at(dispute, f"/moderation/disputes/{dispute.dispute_id}")


def _body(data: msgspec.Struct | None) -> bytes:
    """The body as decoded (spacing and field order aside), for the key's fingerprint."""
    return msgspec.json.encode(data) if data is not None else b""


class GameDisputesController(Controller):
    path = "/games/{game_id:uuid}/disputes"
    tags = ["disputes"]

    @post(
        "/",
        operation_id="raiseDispute",
        summary="A seat raises a dispute about events of its game",
        guards=[guards.bearer],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(
            PARAMS,
            JSON_BODY,
            BEARER,
            {403: ["not_seated"]},
            UNKNOWN_GAME,
            {409: ["dispute_window_closed", "too_many_open_disputes", "game_not_started"]},
            {422: ["seq_out_of_range", "reason_too_long", "invalid_text"]},
            CHANGE,
            UNAVAILABLE,
        ),
        status_code=201,
    )
    async def raise_dispute(
        self,
        game_id: uuid.UUID,
        data: RaiseBody,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[DisputeOut]:
        raised = await _disputes(state).raise_dispute(
            game_id,
            principal,
            data.seqs,
            data.category,
            data.reason,
            key=idempotency_key,
            body=_body(data),
        )
        return created_at(raised, f"/games/{game_id}/disputes")

    @get(
        "/",
        operation_id="listGameDisputes",
        summary="The game's disputes, as the caller may see them",
        guards=[guards.bearer_if_sent],
        dependencies={"principal": Provide(provide_principal_if_sent, sync_to_thread=False)},
        responses=problems(PARAMS, BEARER, PRIVATE, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def listed(self, game_id: uuid.UUID, state: State, principal: Principal | None) -> DisputeList:
        return DisputeList(items=await _disputes(state).listed(game_id, principal))

    @post(
        "/{dispute_id:uuid}/replies",
        operation_id="replyToDispute",
        summary="The seat a moderator asked answers",
        guards=[guards.bearer],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(
            PARAMS,
            JSON_BODY,
            BEARER,
            {403: ["not_seated"]},
            UNKNOWN_GAME,
            {409: ["not_asked", "dispute_resolved"], 422: ["unknown_dispute"]},
            CHANGE,
            UNAVAILABLE,
        ),
        status_code=201,
    )
    async def reply(
        self,
        game_id: uuid.UUID,
        dispute_id: uuid.UUID,
        data: TextBody,
        state: State,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[DisputeOut]:
        replied = await _disputes(state).reply(
            game_id, dispute_id, principal, data.text, key=idempotency_key, body=_body(data)
        )
        return created_at(replied, f"/games/{game_id}/disputes")


class ModerationController(Controller):
    path = "/moderation/disputes"
    tags = ["moderation"]
    guards = [guards.moderator]
    dependencies = {"principal": Provide(provide_principal, sync_to_thread=False)}

    @get(
        "/",
        operation_id="disputeQueue",
        summary="The moderators' queue, oldest first",
        responses=problems(PARAMS, {400: CURSOR_CODES}, AUDITOR, BEARER, UNAVAILABLE),
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
        items, last = await _disputes(state).queue(
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
            PARAMS, AUDITOR, BEARER, UNKNOWN_DISPUTE, {403: ["moderator_was_seated"]}, FACE_UP, UNAVAILABLE
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
        disputes = _disputes(state)
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

    @staticmethod
    async def _run(
        state: State,
        dispute_id: uuid.UUID,
        principal: Principal,
        command: Callable[[str, str], ModeratorCommand],
        operation: str,
        data: msgspec.Struct | None,
        key: str | None,
    ) -> DisputeOut:
        return await _disputes(state).moderate(
            dispute_id, principal, command, operation=operation, key=key, body=_body(data)
        )

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
        def command(d: str, m: str) -> ModeratorCommand:
            return ClaimDispute(dispute_id=d, moderator=m)

        return await self._run(state, dispute_id, principal, command, "claimDispute", None, idempotency_key)

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
        def command(d: str, m: str) -> ModeratorCommand:
            return ReleaseDispute(dispute_id=d, moderator=m)

        return await self._run(state, dispute_id, principal, command, "releaseDispute", None, idempotency_key)

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

        return _moderated(
            await self._run(state, dispute_id, principal, command, "noteDispute", data, idempotency_key)
        )

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

        return _moderated(
            await self._run(state, dispute_id, principal, command, "askSeat", data, idempotency_key)
        )

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
            return ResolveDispute(
                dispute_id=d,
                moderator=m,
                verdict=data.verdict,
                action=data.action,
                seats=tuple(data.seats),
                explanation=data.explanation,
            )

        return await self._run(state, dispute_id, principal, command, "resolveDispute", data, idempotency_key)

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

        return _moderated(
            await self._run(state, dispute_id, principal, command, "reviewDispute", data, idempotency_key)
        )
