"""The refusals each operation documents: problem+json bodies and their stable ``code`` values.

Handlers declare theirs with ``responses=problems(...)``; the OpenAPI document is generated from
these declarations (service/http/errors.py is where the refusals are produced).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import Annotated, Any

import msgspec
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example

from domain import registry

PROBLEM_JSON = "application/problem+json"

Codes = Mapping[int, Iterable[str]]


class Problem(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 9457 problem details, as every refusal is sent."""

    type: str
    title: str
    status: Annotated[int, msgspec.Meta(ge=400, le=599)]
    detail: str
    code: Annotated[str, msgspec.Meta(description="Stable, machine-readable reason")]
    current_version: int | msgspec.UnsetType = msgspec.UNSET  # 409 version_conflict
    errors: list[dict[str, Any]] | msgspec.UnsetType = msgspec.UNSET  # 400: each bad parameter


# Any operation that takes a game id or a seat: no such game (or a path that is not one).
UNKNOWN_GAME: Codes = {404: ["not_found"]}
# Refused before the application: the instance is at its connection cap; or the database is down.
UNAVAILABLE: Codes = {503: ["database_unavailable", "too_many_connections"]}
# A token that is missing, bad, expired or revoked (401); one that grants something else, or a seat
# its holder no longer holds or has conceded (403).
BEARER: Codes = {
    401: ["unauthorized", "token_expired", "token_revoked"],
    403: ["forbidden", "seat_token_revoked", "seat_conceded"],
}
JSON_BODY: Codes = {400: ["invalid_body"], 413: ["body_too_large"], 415: ["unsupported_media_type"]}
RATE_LIMITED: Codes = {429: ["too_many_requests"]}
# Any operation that takes an Idempotency-Key (service/app/idempotency.py): a key out of its schema,
# or a key already used for another request of the caller.
KEYED: Codes = {400: ["invalid_idempotency_key"], 422: ["idempotency_key_reused"]}
STREAM: Codes = {503: ["too_many_streams"]}
SEAT: Codes = {400: ["invalid_seat", "invalid_request"]}
PARAMS: Codes = {400: ["invalid_request"]}
RESUME: Codes = {400: ["invalid_after", "invalid_last_event_id"]}
PRIVATE: Codes = {403: ["private_game"]}
AUDITOR: Codes = {
    401: ["unauthorized", "token_expired", "token_revoked", "moderator_only"],
    403: ["moderator_only"],
}
# A moderator's face-up read (service/app/access.py): refused without a why while the game runs, and
# never shown unrecorded.
# Its why, in the query: a reason or note out of its schema names itself.
FACE_UP: Codes = {
    400: ["invalid_reason", "invalid_note"],
    403: ["access_reason_required"],
    503: ["access_not_recorded"],
}
# A command the game's rules refuse: the rule's own code (each game's ``About.refusal_codes``).
ANY_RULE = "*"
RULES: Codes = {422: ["not_your_turn", "game_over", ANY_RULE]}

# The response extensions that type the codes beyond their enum (docs/api.md, "Refusals").
RACES_EXTENSION = "x-playlog-races"
BY_KIND_EXTENSION = "x-playlog-codes-by-kind"
# Refusals that only mean the game moved on between what the client read and what it sent: a
# client reads again and decides again (service/tools/bot.py does).
RACES = frozenset({"version_conflict"}).union(
    *(d.about.race_codes for d in registry.games().values() if d.about is not None)
)


def rule_codes() -> dict[str, list[str]]:
    """Each game's refusal codes, by kind."""
    return {
        kind: sorted(d.about.refusal_codes if d.about is not None else ())
        for kind, d in sorted(registry.games().items())
    }


def _example(status: int, code: str) -> Example:
    body = {
        "type": f"https://playlog.dev/problems/{code}",
        "title": code.replace("_", " "),
        "status": status,
        "detail": "A human-readable explanation.",
        "code": code,
    }
    return Example(summary=code, value=body)


# How a response's description says which of its codes are races (also in RACES_EXTENSION).
_RACES_SAID = (
    " (races, which only mean the game moved on since the client read it: read again and decide again"
)


def _description(status: int, codes: list[str]) -> str:
    listed = ", ".join(code for code in codes if code != ANY_RULE)
    rules = f" (or any other rule code of the game: {BY_KIND_EXTENSION})" if ANY_RULE in codes else ""
    every = [*codes, *sorted({c for kind in rule_codes().values() for c in kind})] if rules else codes
    races = [code for code in dict.fromkeys(every) if code in RACES]
    raced = f"{_RACES_SAID}, nothing was applied: {', '.join(races)})" if races else ""
    return f"{HTTPStatus(status).phrase}; code: {listed}{rules}{raced}"


def problems(*declared: Codes) -> dict[int, ResponseSpec]:
    """One problem+json response per status, listing every ``code`` it may carry."""
    merged: dict[int, list[str]] = {}
    for codes in declared:
        for status, names in codes.items():
            merged.setdefault(status, [])
            merged[status] += [n for n in names if n not in merged[status]]
    return {
        status: ResponseSpec(
            data_container=Problem,
            media_type=PROBLEM_JSON,
            generate_examples=False,
            description=_description(status, merged[status]),
            examples=[_example(status, code) for code in merged[status] if code != ANY_RULE],
        )
        for status in sorted(merged)
    }


def documented_codes(description: str) -> list[str]:
    """The codes a response description written by ``problems`` lists, every game's rule codes
    included where it says so."""
    _, _, listed = description.partition("; code: ")
    listed = listed.partition(_RACES_SAID)[0]
    listed, any_rule, _ = listed.partition(" (or any other rule code")
    codes = [code.strip() for code in listed.split(",") if code.strip()]
    if any_rule:
        codes += sorted({c for kind in rule_codes().values() for c in kind} - set(codes))
    return codes
