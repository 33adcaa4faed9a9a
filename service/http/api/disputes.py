"""Disputes, a seat's side: it raises one, reads its game's, and answers a moderator's question
(the moderators' side: service/http/api/moderation.py).

Every POST is a command in the game's own log (service/app/disputes.py), idempotent with the
``Idempotency-Key`` header. Who may read what of a dispute is cut in projections/disputes.py.
"""

from __future__ import annotations

import uuid

import msgspec
from litestar import Controller, Response
from litestar.datastructures import State
from litestar.di import Provide

from projections.disputes import DisputeOut
from service.app.auth import Principal
from service.app.disputes import Disputes
from service.http.api import guards
from service.http.api.deps import created_at, provide_principal, provide_principal_if_sent
from service.http.api.dispute_shapes import CHANGE, DisputeList, RaiseBody, TextBody
from service.http.api.params import IdempotencyKey
from service.http.api.problems import BEARER, JSON_BODY, PARAMS, PRIVATE, UNAVAILABLE, UNKNOWN_GAME, problems
from service.http.fast.routes import get, post


def disputes_of(state: State) -> Disputes:
    disputes: Disputes = state.disputes
    return disputes


def fingerprinted(data: msgspec.Struct | None) -> bytes:
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
        raised = await disputes_of(state).raise_dispute(
            game_id,
            principal,
            data.seqs,
            data.category,
            data.reason,
            key=idempotency_key,
            body=fingerprinted(data),
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
        return DisputeList(items=await disputes_of(state).listed(game_id, principal))

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
        replied = await disputes_of(state).reply(
            game_id, dispute_id, principal, data.text, key=idempotency_key, body=fingerprinted(data)
        )
        return created_at(replied, f"/games/{game_id}/disputes")
