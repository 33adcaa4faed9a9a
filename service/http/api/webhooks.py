"""A player's webhooks (issue 54; docs/api.md, "Webhooks"): register a URL, list them with their
state, delete one. What is sent and how: service/app/webhooks.py."""

from __future__ import annotations

import uuid
from typing import Annotated

import msgspec
from litestar import Controller, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi.datastructures import ResponseSpec

from service.app.auth import Principal
from service.app.webhook_targets import MAX_URL_LENGTH
from service.app.webhooks import WebhookCreatedOut, WebhookOut, Webhooks
from service.http.api import guards
from service.http.api.deps import created_at, provide_principal
from service.http.api.problems import BEARER, JSON_BODY, PARAMS, UNAVAILABLE, problems
from service.http.fast.routes import delete, get, post

TARGET_CODES = [
    "webhook_url_invalid",
    "webhook_scheme_refused",
    "webhook_host_unresolved",
    "webhook_target_private",
]


class RegisterWebhook(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # Where to POST: https:// or http://, a host that resolves to public addresses only.
    url: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_URL_LENGTH)]


class WebhookList(msgspec.Struct, frozen=True):
    webhooks: list[WebhookOut]  # oldest first


def _webhooks(state: State) -> Webhooks:
    webhooks: Webhooks = state.webhooks
    return webhooks


def _player_id(principal: Principal) -> uuid.UUID:
    assert principal.player_id is not None  # the player guard checked it
    return principal.player_id


class WebhooksController(Controller):
    path = "/players/me/webhooks"
    tags = ["players"]
    guards = [guards.player]
    dependencies = {"principal": Provide(provide_principal, sync_to_thread=False)}

    @post(
        "/",
        operation_id="registerWebhook",
        summary="Register a webhook URL; returns its id and its signing secret (shown once)",
        description="The service POSTs a signed message to the URL when one of the player's seats "
        "may act, when a game they sit in ends and when a dispute of theirs changes (docs/api.md, "
        '"Webhooks").',
        responses=problems(JSON_BODY, BEARER, {409: ["too_many_webhooks"], 422: TARGET_CODES}, UNAVAILABLE),
    )
    async def register(
        self, data: RegisterWebhook, state: State, principal: Principal
    ) -> Response[WebhookCreatedOut]:
        made = await _webhooks(state).register(_player_id(principal), data.url)
        return created_at(made, "/players/me/webhooks")  # where it is listed

    @get(
        "/",
        operation_id="listWebhooks",
        summary="The caller's webhooks with their state (paused ones say why)",
        description="Each webhook with its state: `active`, or `paused` with the reason (a receiver "
        "that failed for too long), when it began to fail and its last error. The secrets are never "
        "shown again.",
        responses=problems(PARAMS, BEARER, UNAVAILABLE),
    )
    async def list_webhooks(self, state: State, principal: Principal) -> WebhookList:
        return WebhookList(webhooks=await _webhooks(state).list(_player_id(principal)))

    @delete(
        "/{webhook_id:uuid}",
        operation_id="deleteWebhook",
        summary="Delete one of the caller's webhooks (its queued messages go with it)",
        description="Nothing more is sent to it, not even the messages already queued; another "
        "player's webhook, or one already deleted, is `404 not_found`.",
        responses={
            204: ResponseSpec(data_container=None, description="Deleted"),
            **problems(PARAMS, BEARER, {404: ["not_found"]}, UNAVAILABLE),
        },
        status_code=204,
    )
    async def delete_webhook(
        self, webhook_id: uuid.UUID, state: State, principal: Principal
    ) -> Response[None]:
        await _webhooks(state).delete(_player_id(principal), webhook_id)
        return Response(None, status_code=204)
