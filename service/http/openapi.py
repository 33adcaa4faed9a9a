"""The OpenAPI document: Litestar's, completed so that client generators get exact types.

Commands, events and views are each game's own tagged unions, which the HTTP handlers treat as
opaque (the game is known only once the game id is resolved). Their schemas come from msgspec,
under ``components/schemas/<kind>.<Name>``; each game's unions are named components
(``<Game>Command``, ``<Game>Event``, ``<Game>View``, discriminated by their tag field) and the
generic operations point at them. Schemas that carry a game's data (create-game, the seat view,
the spectator snapshot) become unions discriminated by ``kind``, one variant per registered game.
The same function serves ``/schema/openapi.json`` and feeds ``playlog openapi``: nothing is
patched by hand afterwards.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any, get_args

import msgspec
from litestar import Litestar, Request
from litestar.openapi.plugins import JsonRenderPlugin

from domain import registry
from projections.envelopes import HIDDEN_SEED
from projections.table import DisputeEvents, LobbyEvents, Status
from service.http.api.dispute_shapes import QuestionBody, RaiseBody, ResolveBody, ReviewBody, TextBody
from service.http.api.guards import TOKEN
from service.http.api.incidents import ClearBody
from service.http.api.lobby import CreateGame, JoinSeat
from service.http.api.players import CreatePlayer
from service.http.api.problems import (
    BY_KIND_EXTENSION,
    PARAMS,
    PROBLEM_JSON,
    RACES,
    RACES_EXTENSION,
    documented_codes,
    rule_codes,
)
from service.http.descriptions import DESCRIPTIONS
from service.http.examples import add_examples
from service.http.export_schema import export_line_schemas

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
)

_REF = "#/components/schemas/{name}"
# The schema of one item of a stream (an SSE message, a line of JSON Lines): OpenAPI 3.1 has no
# keyword for it (3.2's itemSchema), so generators read the named component, this points at it.
_ITEM_EXTENSION = "x-playlog-item-schema"
BEARER_SCHEME = "bearer"

_LOCATION = {
    "description": "Where what was created is read (a path of this API); a retry gets the same",
    "required": True,
    "schema": {"type": "string", "format": "uri-reference"},
}

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

# Any JSON value: a part of a game's state (the audit's diffs), whose shape depends on the path.
# The empty schema says exactly that (a union of the six JSON types gives generators a branch per
# type, and openapi-python-client casts the array branch redundantly: mypy --strict refuses it).
_JSON_VALUE: dict[str, Any] = {"description": "Any JSON value"}

_SSE_DESCRIPTION = (
    "Server-sent events (text/event-stream), one per event this viewer may see, each an "
    "`EventMessage` (#/components/schemas/EventMessage, also named by the media type's "
    f"`{_ITEM_EXTENSION}`): `event` is the event's type, `id` its number for this viewer (send it "
    "back as Last-Event-ID to resume) and `data` one `EventOut` as JSON. Comments (`: keep-alive`) "
    "keep the connection open. Read it as a stream: it stays open while the game runs."
)


_SEQ = (
    "The event's number for this viewer: 1, 2, 3 ... over the events this viewer may see (a seat,"
    " the spectators), never the log's own numbers, which would count events hidden from it. A"
    " seat's `version`, `after`, `expected_version` and `Last-Event-ID` count the same way."
)

_MOVES = (
    "The seat's own moves now: `view.legal_commands` but leaving (the game's concede command),"
    " which is always legal and never a move (it ends the seat's game). Empty while the game"
    " waits for another seat. A bot picks from these."
)


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": _REF.format(name=name)}


def _camel(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))  # snake_case -> CamelCase


def _components(prefix: str, type_: Any, schemas: dict[str, Any]) -> dict[str, Any]:
    """Add ``type_``'s schema components under ``prefix.``; return the schema of ``type_``."""
    template = f"#/components/schemas/{prefix}.{{name}}"
    (root,), components = msgspec.json.schema_components([type_], ref_template=template)
    for name, schema in components.items():
        schemas[f"{prefix}.{name}"] = schema
    return dict(root)


def _union(name: str, root: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """Name a msgspec tagged union (``anyOf`` + discriminator) as a ``oneOf`` component."""
    schemas[name] = {"oneOf": root["anyOf"], "discriminator": root["discriminator"]}
    return _ref(name)


def _by_kind(schemas: dict[str, Any], name: str, per_kind: dict[str, dict[str, dict[str, Any]]]) -> None:
    """Turn ``name`` into a union discriminated by ``kind``: one variant per game, the fields
    ``per_kind[kind]`` names typed as that game's."""
    base = schemas.get(name)
    if base is None:
        return
    mapping = {}
    for kind, fields in per_kind.items():
        variant = copy.deepcopy(base)
        variant["title"] = f"{_camel(kind)}{name}"
        variant["properties"]["kind"] = {"type": "string", "enum": [kind]}
        for field, typed in fields.items():
            variant["properties"][field] = typed
        required = variant.setdefault("required", [])
        if "kind" not in required:
            required.insert(0, "kind")
        schemas[variant["title"]] = variant
        mapping[kind] = _REF.format(name=variant["title"])
    schemas[name] = {
        "description": base.get("description", f"{name}, by game kind"),
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "kind", "mapping": mapping},
    }


def _shown_options(schemas: dict[str, Any], game: str, options: dict[str, Any]) -> dict[str, Any]:
    """A game's options as ``lobby.created`` shows them (projections/envelopes.py): a seeded
    game's ``seed`` reads ``HIDDEN_SEED`` to anyone but a moderator."""
    name = f"{game}OptionsShown"
    shown = copy.deepcopy(schemas[options["$ref"].removeprefix("#/components/schemas/")])
    shown["title"] = name
    shown["description"] = "The options the game was created with"
    seed = shown.get("properties", {}).get("seed")
    if seed is not None:
        shown["properties"]["seed"] = {
            "anyOf": [*seed["anyOf"], {"type": "string", "enum": [HIDDEN_SEED]}],
            "description": f'The game\'s seed (null: none), "{HIDDEN_SEED}" to all but moderators',
        }
    schemas[name] = shown
    return _ref(name)


def _options_required(schemas: dict[str, Any], options: dict[str, dict[str, Any]]) -> None:
    """A game whose options have a required field (its ``players``) is not created without them
    (the server's 422 ``invalid_options``): each kind's create-game body requires ``options``."""
    for kind, ref in options.items():
        if schemas[ref["$ref"].removeprefix("#/components/schemas/")].get("required"):
            required = schemas[f"{_camel(kind)}CreateGame"]["required"]
            if "options" not in required:
                required.append("options")


def _typed_enums(doc: dict[str, Any]) -> None:
    """An enum of strings says it is a string (msgspec leaves ``type`` out of a Literal's schema;
    generators then type it loosely, or refuse it: datamodel-code-generator's strict models)."""
    for node in _walk(doc):
        values = node.get("enum")
        if isinstance(values, list) and "type" not in node and all(isinstance(v, str) for v in values):
            node["type"] = "string"


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _refs(node: Any) -> Iterator[str]:
    for item in _walk(node):
        ref = item.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.removeprefix("#/components/schemas/")


def _without_defaults(schemas: dict[str, Any], roots: list[str]) -> None:
    """Request schemas: a default is the server's business, not a field the client must send.

    (Generators such as openapi-typescript make a property with a ``default`` required.) The
    default is kept in the property's description."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        for prop in schemas[name].get("properties", {}).values():
            if isinstance(prop, dict) and "default" in prop:
                default = msgspec.json.encode(prop.pop("default")).decode()
                text = prop.get("description", "")
                prop["description"] = f"{text} (default: {default})".strip()
        todo.extend(_refs(schemas[name]))


def _typed_status_fields(schemas: dict[str, Any]) -> None:
    """A game's free-text ``kind`` and ``status`` become the GameKind and GameStatus enums."""
    for name, schema in schemas.items():
        if "." in name:
            continue  # a game's own schemas: their fields mean something else
        properties = schema.get("properties", {})
        if properties.get("kind") != {"type": "string"}:
            continue  # not about a game (Health's status is the service's)
        properties["kind"] = _ref("GameKind")
        status = properties.get("status", {})
        if status.get("type") == "string" and set(status.get("enum", get_args(Status))) == set(
            get_args(Status)
        ):
            properties["status"] = _ref("GameStatus")


def bearer_tokens(app: Litestar) -> dict[str, bool]:
    """The operations that read a token, read off their guards (service/http/api/guards.py): True
    when it is required, False when optional (a guest joining, a finished public game's audit)."""
    tokens: dict[str, bool] = {}
    for route in app.routes:
        for handler in getattr(route, "route_handlers", ()):
            needs = [TOKEN[guard] for guard in handler.resolve_guards() if guard in TOKEN]
            if needs:
                tokens[str(handler.operation_id)] = any(needs)
    return tokens


def _security(doc: dict[str, Any], tokens: dict[str, bool]) -> None:
    """The token, which the guards read, as a bearer security scheme of each operation."""
    doc["components"]["securitySchemes"] = {
        BEARER_SCHEME: {
            "type": "http",
            "scheme": "bearer",
            "description": "A host, seat, player or moderator token (POST /games, /seats, /players)",
        }
    }
    for operation in _operations(doc):
        needed = tokens.get(operation.get("operationId", ""))
        if needed is not None:
            operation["security"] = [{BEARER_SCHEME: []}] if needed else [{BEARER_SCHEME: []}, {}]
    for operation in _operations(doc):
        for parameter in operation.get("parameters", []):
            if parameter.get("name") == "kind" and parameter.get("schema", {}).get("type") == "string":
                parameter["schema"] = _ref("GameKind")


def _operations(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for path in doc.get("paths", {}).values():
        yield from path.values()


def _problems_only(operation: dict[str, Any]) -> None:
    """Litestar's own 400 ("Validation Exception") is sent as a problem like every refusal."""
    responses = operation.get("responses", {})
    for status, response in list(responses.items()):
        if status == "400" and PROBLEM_JSON not in response.get("content", {}):
            codes = ", ".join(PARAMS[400])
            responses[status] = {
                "description": f"Bad Request; code: {codes}",
                "content": {PROBLEM_JSON: {"schema": _ref("Problem")}},
            }


def _typed_codes(response: dict[str, Any]) -> None:
    """A refusal's ``code`` as the enum of the codes its description lists; those that only mean
    the game moved on marked (``x-playlog-races``); every game's own ones by kind."""
    description = response.get("description", "")
    codes = documented_codes(description)
    response["content"][PROBLEM_JSON]["schema"] = {
        "allOf": [
            _ref("Problem"),
            {"type": "object", "properties": {"code": {"type": "string", "enum": codes}}},
        ]
    }
    if races := [code for code in codes if code in RACES]:
        response[RACES_EXTENSION] = races
    if BY_KIND_EXTENSION in description:
        response[BY_KIND_EXTENSION] = rule_codes()


def _game_event(schemas: dict[str, Any], unions: list[str]) -> None:
    """Every event, lobby's, disputes' and each game's, as one union discriminated by ``type``
    (the tags are unique across them); ``EventOut.type`` is its enum."""
    mapping: dict[str, str] = {}
    for union in unions:
        mapping.update(schemas[union]["discriminator"]["mapping"])
    schemas["GameEvent"] = {
        "description": "An event of the lobby, of a dispute or of a game",
        "oneOf": [{"$ref": ref} for ref in dict.fromkeys(mapping.values())],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    if (event_out := schemas.get("EventOut")) is not None:
        event_out["properties"]["seq"] = {"type": "integer", "minimum": 1, "description": _SEQ}
        event_out["properties"]["data"] = _ref("GameEvent")
        event_out["properties"]["type"] = {"type": "string", "enum": sorted(mapping)}


def complete(base: dict[str, Any], tokens: dict[str, bool] | None = None) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    schemas: dict[str, Any] = doc.setdefault("components", {}).setdefault("schemas", {})
    kinds = sorted(registry.games())
    schemas["GameKind"] = {"type": "string", "enum": kinds, "description": "A registered game"}
    schemas["GameStatus"] = {"type": "string", "enum": list(get_args(Status))}
    schemas["JsonValue"] = _JSON_VALUE

    lobby = _union("LobbyEvent", _components("lobby", LobbyEvents, schemas), schemas)
    dispute = _union("DisputeEvent", _components("dispute", DisputeEvents, schemas), schemas)
    commands, events, options, shown = {}, [lobby, dispute], {}, []
    seat_views: dict[str, dict[str, dict[str, Any]]] = {}
    spectator_views: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, decider in registry.games().items():
        game = _camel(kind)
        commands[kind] = _union(f"{game}Command", _components(kind, decider.command_type, schemas), schemas)
        events.append(_union(f"{game}Event", _components(kind, decider.event_type, schemas), schemas))
        views = _components(kind, decider.view_type, schemas)
        _union(f"{game}View", views, schemas)
        by_tag = views["discriminator"]["mapping"]
        seat_views[kind] = {
            "view": {"oneOf": [{"$ref": by_tag["seat"]}, {"type": "null"}]},
            "moves": {"type": "array", "items": commands[kind], "description": _MOVES},
        }
        spectator_views[kind] = {"view": {"oneOf": [{"$ref": by_tag["spectator"]}, {"type": "null"}]}}
        options[kind] = _components(kind, decider.options_type, schemas)
        shown.append(_shown_options(schemas, game, options[kind]))
    schemas["GameOptions"] = {"description": "A game's options, as lobby.created shows them", "oneOf": shown}
    schemas["Command"] = {"description": "A command of a game", "oneOf": list(commands.values())}

    export_line = export_line_schemas(schemas)
    _, bodies = msgspec.json.schema_components(_BODIES, ref_template=_REF)
    schemas.update(bodies)

    for operation in _operations(doc):
        if not operation.get("description"):  # the decorator's, else service/http/descriptions.py's
            operation["description"] = DESCRIPTIONS.get(operation.get("operationId", ""), "")
        _problems_only(operation)
        for status, response in operation.get("responses", {}).items():
            if status in _RETRY_AFTER:  # problem details cannot declare headers (ResponseSpec)
                response["headers"] = {"Retry-After": _RETRY_AFTER[status]}
            if status == "201":
                response["headers"] = {"Location": _LOCATION}
            content = response.get("content", {})
            if "application/x-ndjson" in content:  # the export
                content["application/x-ndjson"] = {
                    "schema": {"type": "string", "description": "JSON Lines, each an ExportLine"},
                    _ITEM_EXTENSION: export_line,
                }
            if "text/event-stream" in content:
                # No type: a test tool (schemathesis) reads `schema` as one message's, a
                # generator as the whole stream's; the message is the named EventMessage.
                content["text/event-stream"] = {
                    "schema": {"description": "EventMessages, read as they come"},
                    _ITEM_EXTENSION: _ref("EventMessage"),
                }
                response["description"] = _SSE_DESCRIPTION
            if PROBLEM_JSON in content:
                _typed_codes(response)
        if operation.get("operationId") == "sendCommand":
            operation["requestBody"] = {
                "required": True,
                "description": "One command of the game's own tagged union (field `type`).",
                "content": {"application/json": {"schema": _ref("Command")}},
            }
    _security(doc, tokens or {})

    _game_event(schemas, [ref["$ref"].removeprefix("#/components/schemas/") for ref in events])
    if (audit_event := schemas.get("AuditEvent")) is not None:
        audit_event["properties"]["data"] = _ref("GameEvent")
    if (change := schemas.get("Change")) is not None:
        change["properties"]["before"] = _ref("JsonValue")
        change["properties"]["after"] = _ref("JsonValue")
    if (created := schemas.get("lobby.GameCreated")) is not None:
        created["properties"]["options"] = _ref("GameOptions")
    schemas["EventMessage"] = {
        "description": "One server-sent event of a stream; `data` holds one EventOut as JSON",
        "type": "object",
        "properties": {
            "event": {"type": "string", "description": "The event's type"},
            "id": {"type": "string", "description": "Its number for this viewer"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": _ref("EventOut"),
            },
        },
        "required": ["event", "id", "data"],
    }
    _typed_status_fields(schemas)
    _by_kind(schemas, "SeatViewOut", seat_views)
    _by_kind(schemas, "SpectatorSnapshot", spectator_views)
    if (create := schemas.get("CreateGame")) is not None:
        create["description"] = "A new game of one `kind`, with that game's options"
    _by_kind(schemas, "CreateGame", {kind: {"options": typed} for kind, typed in options.items()})
    _options_required(schemas, options)
    _without_defaults(schemas, ["CreateGame", "JoinSeat", "CreatePlayer", "Command"])
    _typed_enums(doc)
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
