"""Each game's schemas in the document. Commands, events and views are each game's own tagged
unions, which the HTTP handlers treat as opaque (the game is known only once the game id is
resolved). Their schemas come from msgspec, under ``components/schemas/<kind>.<Name>``; each
game's unions are named components (``<Game>Command``, ``<Game>Event``, ``<Game>View``,
discriminated by their tag field) and the generic operations point at them. The kernel's commands
(domain/decider.py), every game's, are one component each (``kernel.<Name>``), so that ``Command``,
every game's commands, is one union discriminated by ``type``. Schemas that carry a
game's data (create-game, the seat view, the spectator snapshot) become unions discriminated by
``kind``, one variant per registered game."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, get_args

import msgspec

from domain import registry
from domain.decider import ActOnTimeout, Concede
from projections.envelopes import HIDDEN_SEED
from projections.table import DisputeEvents, LobbyEvents, Status
from service.http.openapi.walk import REF, ref, walk

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


def _camel(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))  # snake_case -> CamelCase


def _components(prefix: str, type_: Any, schemas: dict[str, Any]) -> dict[str, Any]:
    """Add ``type_``'s schema components under ``prefix.``; return the schema of ``type_``."""
    template = f"#/components/schemas/{prefix}.{{name}}"
    (root,), components = msgspec.json.schema_components([type_], ref_template=template)
    for name, schema in components.items():
        schemas[f"{prefix}.{name}"] = schema
    return dict(root)


KERNEL_COMMANDS = tuple(registry.tag_of(command) for command in (ActOnTimeout, Concede))


def _kernel_commands(schemas: dict[str, Any], kinds: list[str]) -> None:
    """Each game's copy of a kernel command made one ``kernel.<Name>`` component, every
    reference to a copy (unions, their discriminators, views) pointing at it."""
    moved = {}
    for kind in kinds:
        for name in KERNEL_COMMANDS:
            if (schema := schemas.pop(f"{kind}.{name}", None)) is not None:
                schemas[f"kernel.{name}"] = schema
                moved[REF.format(name=f"{kind}.{name}")] = REF.format(name=f"kernel.{name}")
    for node in walk(schemas):
        if node.get("$ref") in moved:
            node["$ref"] = moved[node["$ref"]]
        mapping = node.get("mapping")
        if node.get("propertyName") and isinstance(mapping, dict):
            node["mapping"] = {tag: moved.get(target, target) for tag, target in mapping.items()}


def _every_command(schemas: dict[str, Any], unions: list[str]) -> None:
    """``Command``: every game's commands, one union discriminated by ``type`` (a tag is one
    game's, or the kernel's, which every game's union points at alike)."""
    mapping: dict[str, str] = {}
    for union in unions:
        for tag, target in schemas[union]["discriminator"]["mapping"].items():
            assert mapping.setdefault(tag, target) == target, f"two games' commands tagged {tag}"
    schemas["Command"] = {
        "description": "A command of a game (`ActOnTimeout` and `Concede` are every game's)",
        "oneOf": [{"$ref": target} for target in dict.fromkeys(mapping.values())],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }


def _renamed(renamed: dict[str, str]) -> str:
    """What a game's command union says of the tags its commands were once sent under."""
    old = ", ".join(f"`{tag}` (read as `{today}`)" for tag, today in sorted(renamed.items()))
    return f"A command of the game. Tags it once had are still accepted: {old}."


def _union(name: str, root: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    """Name a msgspec tagged union (``anyOf`` + discriminator) as a ``oneOf`` component."""
    schemas[name] = {"oneOf": root["anyOf"], "discriminator": root["discriminator"]}
    return ref(name)


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
        mapping[kind] = REF.format(name=variant["title"])
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
    return ref(name)


def _options_required(schemas: dict[str, Any], options: dict[str, dict[str, Any]]) -> None:
    """A game whose options have a required field (its ``players``) is not created without them
    (the server's 422 ``invalid_options``): each kind's create-game body requires ``options``."""
    for kind, typed in options.items():
        if schemas[typed["$ref"].removeprefix("#/components/schemas/")].get("required"):
            required = schemas[f"{_camel(kind)}CreateGame"]["required"]
            if "options" not in required:
                required.append("options")


def _typed_status_fields(schemas: dict[str, Any]) -> None:
    """A game's free-text ``kind`` and ``status`` become the GameKind and GameStatus enums."""
    for name, schema in schemas.items():
        if "." in name:
            continue  # a game's own schemas: their fields mean something else
        properties = schema.get("properties", {})
        if properties.get("kind") != {"type": "string"}:
            continue  # not about a game (Health's status is the service's)
        properties["kind"] = ref("GameKind")
        status = properties.get("status", {})
        if status.get("type") == "string" and set(status.get("enum", get_args(Status))) == set(
            get_args(Status)
        ):
            properties["status"] = ref("GameStatus")


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
        event_out["properties"]["data"] = ref("GameEvent")
        event_out["properties"]["type"] = {"type": "string", "enum": sorted(mapping)}


@dataclass(frozen=True)
class GameSchemas:
    """What the per-kind unions are made of, once every game's components are in."""

    events: list[str]  # the event unions' component names: the lobby's, the disputes', each game's
    seat_views: dict[str, dict[str, dict[str, Any]]]
    spectator_views: dict[str, dict[str, dict[str, Any]]]
    options: dict[str, dict[str, Any]]


def game_components(schemas: dict[str, Any]) -> GameSchemas:
    """Every registered game's commands, events, views and options as components."""
    kinds = sorted(registry.games())
    schemas["GameKind"] = {"type": "string", "enum": kinds, "description": "A registered game"}
    schemas["GameStatus"] = {"type": "string", "enum": list(get_args(Status))}
    lobby = _union("LobbyEvent", _components("lobby", LobbyEvents, schemas), schemas)
    dispute = _union("DisputeEvent", _components("dispute", DisputeEvents, schemas), schemas)
    commands, events, options, shown = {}, [lobby, dispute], {}, []
    seat_views: dict[str, dict[str, dict[str, Any]]] = {}
    spectator_views: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, decider in registry.games().items():
        game = _camel(kind)
        commands[kind] = _union(f"{game}Command", _components(kind, decider.types.command, schemas), schemas)
        if decider.versions.renamed_commands:
            schemas[f"{game}Command"]["description"] = _renamed(dict(decider.versions.renamed_commands))
        events.append(_union(f"{game}Event", _components(kind, decider.types.event, schemas), schemas))
        views = _components(kind, decider.types.view, schemas)
        _union(f"{game}View", views, schemas)
        by_tag = views["discriminator"]["mapping"]
        seat_views[kind] = {
            "view": {"oneOf": [{"$ref": by_tag["seat"]}, {"type": "null"}]},
            "moves": {"type": "array", "items": commands[kind], "description": _MOVES},
        }
        spectator_views[kind] = {"view": {"oneOf": [{"$ref": by_tag["spectator"]}, {"type": "null"}]}}
        options[kind] = _components(kind, decider.types.options, schemas)
        shown.append(_shown_options(schemas, game, options[kind]))
    schemas["GameOptions"] = {"description": "A game's options, as lobby.created shows them", "oneOf": shown}
    _kernel_commands(schemas, kinds)
    _every_command(schemas, [c["$ref"].removeprefix("#/components/schemas/") for c in commands.values()])
    names = [e["$ref"].removeprefix("#/components/schemas/") for e in events]
    return GameSchemas(names, seat_views, spectator_views, options)


def typed_per_game(schemas: dict[str, Any], games: GameSchemas) -> None:
    """The service's own schemas that carry a game's data, typed by the game's."""
    _game_event(schemas, games.events)
    if (audit_event := schemas.get("AuditEvent")) is not None:
        audit_event["properties"]["data"] = ref("GameEvent")
    if (created := schemas.get("lobby.GameCreated")) is not None:
        created["properties"]["options"] = ref("GameOptions")
    _typed_status_fields(schemas)
    _by_kind(schemas, "SeatViewOut", games.seat_views)
    _by_kind(schemas, "SpectatorSnapshot", games.spectator_views)
    if (create := schemas.get("CreateGame")) is not None:
        create["description"] = "A new game of one `kind`, with that game's options"
    _by_kind(schemas, "CreateGame", {kind: {"options": typed} for kind, typed in games.options.items()})
    _options_required(schemas, games.options)
