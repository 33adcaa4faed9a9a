"""The tokens in the document: each operation's bearer requirement, read off its guards."""

from __future__ import annotations

from typing import Any

from litestar import Litestar

from service.http.api.guards import TOKEN
from service.http.openapi.walk import operations, ref

BEARER_SCHEME = "bearer"
OPTIONAL_TOKEN = "x-playlog-optional-token"  # an operation a token is optional for (below)


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


def add_security(doc: dict[str, Any], tokens: dict[str, bool]) -> None:
    """The token, which the guards read, as a bearer security scheme of each operation."""
    doc["components"]["securitySchemes"] = {
        BEARER_SCHEME: {
            "type": "http",
            "scheme": "bearer",
            "description": "A host, seat, player or moderator token (POST /games, /seats, /players)",
        }
    }
    for operation in operations(doc):
        needed = tokens.get(operation.get("operationId", ""))
        if needed:
            operation["security"] = [{BEARER_SCHEME: []}]
        elif needed is not None:
            # A token is optional (a guest's join, a finished public game's audit): OpenAPI's way,
            # ``[{bearer: []}, {}]``, is typed by generated clients as a token required
            # (openapi-python-client asks for an authenticated client whenever ``security`` is not
            # empty), so the operation needs none and says in words, and in an extension, that a
            # token may come.
            operation["security"] = []
            operation[OPTIONAL_TOKEN] = True
            note = (
                "A bearer token is optional here: without one the caller is anyone (a guest, a"
                " spectator); with one (a player's, a seat's, a moderator's) it acts as its holder."
            )
            operation["description"] = f"{operation.get('description', '').rstrip()}\n\n{note}".lstrip()
    for operation in operations(doc):
        for parameter in operation.get("parameters", []):
            if parameter.get("name") == "kind" and parameter.get("schema", {}).get("type") == "string":
                parameter["schema"] = ref("GameKind")
