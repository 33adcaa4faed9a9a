"""Incidents for moderators: the games stopped because their log lacks acknowledged seqs
(service/app/incidents.py), and clearing one after inspection."""

from __future__ import annotations

import uuid
from typing import Annotated

import msgspec
from litestar import Controller
from litestar.datastructures import State
from litestar.di import Provide

from domain.text import TEXT_PATTERN
from service.app.auth import Principal
from service.app.disputes import moderator_name
from service.app.incidents import Incident, Incidents
from service.http.api import guards
from service.http.api.deps import provide_principal
from service.http.api.problems import AUDITOR, BEARER, JSON_BODY, PARAMS, UNAVAILABLE, problems
from service.http.fast.routes import get, post


def _incidents(state: State) -> Incidents:
    incidents: Incidents = state.incidents
    return incidents


class IncidentList(msgspec.Struct, frozen=True):
    items: list[Incident]


class ClearBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # What the moderator found and decided (kept with the incident): a text as every other, line
    # breaks and tabs but no control character (PostgreSQL stores no NUL), refused by its schema.
    note: Annotated[str, msgspec.Meta(min_length=1, max_length=1000, pattern=TEXT_PATTERN)]


class IncidentController(Controller):
    path = "/moderation/incidents"
    tags = ["moderation"]
    guards = [guards.moderator]
    dependencies = {"principal": Provide(provide_principal, sync_to_thread=False)}

    @get(
        "/",
        operation_id="openIncidents",
        summary="Games stopped because their log lacks acknowledged moves, oldest first",
        responses=problems(AUDITOR, BEARER, UNAVAILABLE),
    )
    async def open(self, state: State, principal: Principal) -> IncidentList:
        moderator_name(principal)
        return IncidentList(await _incidents(state).open())

    @post(
        "/{game_id:uuid}/clear",
        operation_id="clearIncident",
        summary="Clear a game's incident after inspection: the game goes on from its log as it stands",
        responses=problems(
            PARAMS, JSON_BODY, AUDITOR, BEARER, {404: ["not_found", "no_open_incident"]}, UNAVAILABLE
        ),
        status_code=200,
    )
    async def clear(
        self, game_id: uuid.UUID, data: ClearBody, state: State, principal: Principal
    ) -> Incident:
        return await _incidents(state).clear(game_id, moderator_name(principal), data.note)
