"""The OpenAPI document: Litestar's, completed with every game's commands, events and views.

Commands, events and views are each game's own tagged unions, which the HTTP handlers treat as
opaque (the game is known only once the game id is resolved). Their schemas come from msgspec,
under ``components/schemas/<kind>.<Name>``, and the generic operations point at them with
``oneOf``. The same function serves ``/schema/openapi.json`` and feeds ``playlog openapi``.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
from litestar import Request
from litestar.openapi.plugins import JsonRenderPlugin

from domain import registry
from projections.table import LobbyEvents
from service.api.lobby import CreateGame, JoinSeat
from service.api.players import CreatePlayer

# Request bodies whose schema msgspec writes (Litestar's omits their constraints and that unknown
# fields are refused: additionalProperties false).
_BODIES: tuple[type[msgspec.Struct], ...] = (CreateGame, JoinSeat, CreatePlayer)


_RETRY_AFTER = {
    "429": {
        "description": "Seconds until the rate window resets",
        "required": True,
        "schema": {"type": "integer", "minimum": 1},
    },
    "503": {
        "description": "Seconds to wait before retrying (with every code but service_unavailable)",
        "required": False,
        "schema": {"type": "integer", "minimum": 1},
    },
}


def _components(prefix: str, type_: Any, schemas: dict[str, Any]) -> dict[str, Any]:
    """Add ``type_``'s schema components under ``prefix.``; return the reference to ``type_``."""
    template = f"#/components/schemas/{prefix}.{{name}}"
    (root,), components = msgspec.json.schema_components([type_], ref_template=template)
    for name, schema in components.items():
        schemas[f"{prefix}.{name}"] = schema
    return dict(root)


def _find(schemas: dict[str, Any], suffix: str) -> dict[str, Any] | None:
    for name, schema in schemas.items():
        if name == suffix or name.endswith(f".{suffix}") or name.endswith(f"_{suffix}"):
            found: dict[str, Any] = schema
            return found
    return None


def complete(base: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    schemas: dict[str, Any] = doc.setdefault("components", {}).setdefault("schemas", {})
    commands, events, views, options = [], [_components("lobby", LobbyEvents, schemas)], [], []
    for kind, decider in sorted(registry.games().items()):
        commands.append(_components(kind, decider.command_type, schemas))
        events.append(_components(kind, decider.event_type, schemas))
        views.append(_components(kind, decider.view_type, schemas))
        options.append(_components(kind, decider.options_type, schemas))

    _, bodies = msgspec.json.schema_components(_BODIES, ref_template="#/components/schemas/{name}")
    schemas.update(bodies)

    for path in doc.get("paths", {}).values():
        for method in path.values():
            for status, response in method.get("responses", {}).items():
                if status in _RETRY_AFTER:  # problem details cannot declare headers (ResponseSpec)
                    response["headers"] = {"Retry-After": _RETRY_AFTER[status]}
        operation = path.get("post", {})
        if operation.get("operationId") == "sendCommand":
            operation["requestBody"] = {
                "required": True,
                "description": "One command of the game's own tagged union (field `type`).",
                "content": {"application/json": {"schema": {"oneOf": commands}}},
            }
    if (event_out := _find(schemas, "EventOut")) is not None:
        event_out["properties"]["data"] = {"oneOf": events}
    if (seat_view := _find(schemas, "SeatViewOut")) is not None:
        seat_view["properties"]["view"] = {"anyOf": [*views, {"type": "null"}]}
    if (create := _find(schemas, "CreateGame")) is not None:
        create["properties"]["options"] = {
            "description": "The options of the game `kind`.",
            "anyOf": options,  # {"players": 3} fits more than one game: `kind` decides
        }
    return doc


class CompletedJsonRenderPlugin(JsonRenderPlugin):
    """Litestar's JSON render plugin, serving the completed document."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return self.render_json(request, complete(openapi_schema))


def export(app: Any) -> bytes:
    """The document as committed in openapi/openapi.json: sorted keys, indented."""
    document = complete(app.openapi_schema.to_schema())
    return msgspec.json.format(msgspec.json.encode(document, order="sorted"), indent=2) + b"\n"
