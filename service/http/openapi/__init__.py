"""The OpenAPI document: Litestar's, completed so that client generators get exact types.

Each concern in its module: each game's schemas (games.py), the answers (responses.py), the
tokens (security.py), walking the document (walk.py); what each operation does is in
service/http/descriptions.py, its examples in service/http/examples.py. The same function serves
``/schema/openapi.json`` and feeds ``playlog openapi``: nothing is patched by hand afterwards.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
from litestar import Litestar, Request
from litestar.openapi.plugins import JsonRenderPlugin

from service.http.api.computer import SeatComputerPlayer
from service.http.api.dispute_shapes import QuestionBody, RaiseBody, ResolveBody, ReviewBody, TextBody
from service.http.api.incidents import ClearBody
from service.http.api.lobby import CreateGame, JoinSeat
from service.http.api.players import CreatePlayer
from service.http.api.webhooks import RegisterWebhook
from service.http.descriptions import DESCRIPTIONS, FORMATS
from service.http.examples import add_examples
from service.http.export_schema import export_line_schemas, trace_line_schemas
from service.http.openapi.games import game_components, typed_per_game
from service.http.openapi.responses import EVENT_MESSAGE, complete_responses
from service.http.openapi.security import add_security, bearer_tokens
from service.http.openapi.walk import (
    REF,
    deprecated_parameters,
    operations,
    ref,
    typed_enums,
    without_defaults,
)

__all__ = ["CompletedJsonRenderPlugin", "bearer_tokens", "complete", "export"]

# Request bodies whose schema msgspec writes (Litestar's omits their constraints and that unknown
# fields are refused: additionalProperties false).
_BODIES: tuple[type[msgspec.Struct], ...] = (
    CreateGame,
    JoinSeat,
    CreatePlayer,
    RaiseBody,
    TextBody,
    QuestionBody,
    ResolveBody,
    ReviewBody,
    ClearBody,
    SeatComputerPlayer,
    RegisterWebhook,
)

# Any JSON value: a part of a game's state (the audit's diffs), whose shape depends on the path.
# The empty schema says exactly that (a union of the six JSON types gives generators a branch per
# type, and openapi-python-client casts the array branch redundantly: mypy --strict refuses it).
_JSON_VALUE: dict[str, Any] = {"description": "Any JSON value"}


def complete(base: dict[str, Any], tokens: dict[str, bool] | None = None) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    schemas: dict[str, Any] = doc.setdefault("components", {}).setdefault("schemas", {})
    schemas["JsonValue"] = _JSON_VALUE
    games = game_components(schemas)
    export_line = export_line_schemas(schemas)
    trace_line = trace_line_schemas(schemas)
    _, bodies = msgspec.json.schema_components(_BODIES, ref_template=REF)
    schemas.update(bodies)

    for operation in operations(doc):
        if not operation.get("description"):  # the decorator's, else service/http/descriptions.py's
            operation["description"] = DESCRIPTIONS.get(operation.get("operationId", ""), "")
        complete_responses(operation, export_line, trace_line)
        deprecated_parameters(operation)
        if operation.get("operationId") == "sendCommand":
            operation["requestBody"] = {
                "required": True,
                "description": "One command of the game's own tagged union (field `type`).",
                "content": {"application/json": {"schema": ref("Command")}},
            }
    add_security(doc, tokens or {})
    doc.setdefault("info", {})["description"] = FORMATS

    if (change := schemas.get("Change")) is not None:
        change["properties"]["before"] = ref("JsonValue")
        change["properties"]["after"] = ref("JsonValue")
    schemas["EventMessage"] = copy.deepcopy(EVENT_MESSAGE)
    typed_per_game(schemas, games)
    without_defaults(schemas, ["CreateGame", "JoinSeat", "CreatePlayer", "Command"])
    typed_enums(doc)
    add_examples(doc)
    return doc


class CompletedJsonRenderPlugin(JsonRenderPlugin):
    """Litestar's JSON render plugin, serving the completed document."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return self.render_json(request, complete(openapi_schema, bearer_tokens(request.app)))


def export(app: Litestar) -> bytes:
    """The document as committed in openapi/openapi.json: sorted keys, indented."""
    document = complete(app.openapi_schema.to_schema(), bearer_tokens(app))
    return msgspec.json.format(msgspec.json.encode(document, order="sorted"), indent=2) + b"\n"
