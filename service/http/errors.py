"""Every refused request becomes problem+json with a stable ``code``: mapped here, only here."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException
from litestar.plugins.problem_details import (
    ProblemDetailsConfig,
    ProblemDetailsException,
    ProblemDetailsPlugin,
)
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import ExceptionHandlersMap

from domain.errors import RuleViolation
from domain.table.refusals import TableRefusal
from service.app.errors import ServiceError
from service.runtime.log import get_logger
from service.store.database import UNAVAILABLE_ERRORS
from service.store.events import ConcurrencyConflict, InvalidExpectedSeq

log = get_logger("playlog.errors")


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "too_many_requests",
    503: "service_unavailable",
}


def _problem(
    status: int, code: str, detail: str, *, headers: dict[str, str] | None = None, **extra: Any
) -> ProblemDetailsException:
    log.info("request_refused", status=status, code=code, detail=detail)
    return ProblemDetailsException(
        status_code=status,
        title=code.replace("_", " "),
        detail=detail,
        type_=f"https://playlog.dev/problems/{code}",
        extra={"code": code, **extra},
        headers=headers,
    )


def _from_service(exc: ServiceError) -> ProblemDetailsException:
    return _problem(exc.status, exc.code, exc.message, headers=exc.headers, **exc.extra)


# The table's refusals say what kind they are (domain/table/refusals.py).
_TABLE_STATUS = {"conflict": 409, "forbidden": 403, "invalid": 422}


def _from_rule(exc: RuleViolation) -> ProblemDetailsException:
    if isinstance(exc, TableRefusal):
        status = _TABLE_STATUS[exc.kind]
    else:
        status = 404 if exc.code == "unknown_game_kind" else 422
    return _problem(status, exc.code, exc.message)


def _from_conflict(exc: ConcurrencyConflict) -> ProblemDetailsException:
    return _problem(
        409, "version_conflict", "The game has moved on; reload and retry.", current_version=exc.current
    )


def _from_expected(exc: InvalidExpectedSeq) -> ProblemDetailsException:
    return _problem(409, "version_conflict", str(exc))


def _from_msgspec(exc: msgspec.DecodeError) -> ProblemDetailsException:
    return _problem(400, "invalid_body", str(exc))


def _from_validation(exc: ValidationException) -> ProblemDetailsException:
    errors = exc.extra if isinstance(exc.extra, list) else []
    body = [e for e in errors if isinstance(e, dict) and e.get("source") == "body"]
    if body:  # the body's shape (a missing body included): the same code as a malformed one
        detail = "; ".join(f"{e.get('key', 'body')}: {e.get('message', 'invalid')}" for e in body)
        return _problem(400, "invalid_body", detail, errors=body)
    keys = {e.get("key") for e in errors if isinstance(e, dict)}
    if len(keys) == 1 and isinstance(key := keys.pop(), str) and key.replace("_", "").isalnum():
        # one parameter out of its type or bounds: a code that names it (invalid_limit, ...)
        return _problem(400, f"invalid_{key.lower()}", str(exc.detail), errors=errors)
    return _problem(400, "invalid_request", str(exc.detail), errors=errors)


def _from_data(exc: asyncpg.DataError) -> ProblemDetailsException:
    # A value PostgreSQL cannot take (out of a column's range, a NUL in text): the parameters
    # are bounded so that none gets here; should one, it is still the client's value, not a 500.
    log.warning("database_refused_value", error=str(exc))
    return _problem(400, "invalid_request", "A value is outside what the service stores.")


def _from_http(exc: HTTPException) -> ProblemDetailsException:
    code = _HTTP_CODES.get(exc.status_code, "error")
    headers = dict(exc.headers or {})  # 405's Allow, 429's rate-limit headers
    if exc.status_code == 429 and not any(k.lower() == "retry-after" for k in headers):
        reset = next((v for k, v in headers.items() if k.lower() == "ratelimit-reset"), "1")
        headers["Retry-After"] = str(max(1, int(reset)))
    detail = str(exc.detail)
    if exc.status_code == 405:
        allowed = next((v for k, v in headers.items() if k.lower() == "allow"), "")
        detail = f"Allowed methods: {allowed}." if allowed else detail
    return _problem(exc.status_code, code, detail, headers=headers or None)


def _internal(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    log.exception("unhandled_error", path=request.url.path)
    return Response(
        {
            "type": "https://playlog.dev/problems/internal_error",
            "status": 500,
            "code": "internal_error",
            "title": "internal error",
            "detail": "Something went wrong on our side.",
        },
        status_code=HTTP_500_INTERNAL_SERVER_ERROR,
        media_type="application/problem+json",
    )


RETRY_AFTER_SECONDS = 2


def _unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """The database is away (restarting, unreachable): 503 with Retry-After, never 500."""
    log.warning("database_unavailable", path=request.url.path, error=f"{type(exc).__name__}: {exc}")
    return Response(
        {
            "type": "https://playlog.dev/problems/database_unavailable",
            "title": "database unavailable",
            "status": 503,
            "detail": "The database cannot be reached right now; retry shortly.",
            "code": "database_unavailable",
        },
        status_code=503,
        media_type="application/problem+json",
        headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
    )


def problem_details_plugin() -> ProblemDetailsPlugin:
    mapping: dict[type[Exception], Any] = {
        ServiceError: _from_service,
        RuleViolation: _from_rule,
        ConcurrencyConflict: _from_conflict,
        InvalidExpectedSeq: _from_expected,
        msgspec.DecodeError: _from_msgspec,
        ValidationException: _from_validation,
        HTTPException: _from_http,
        asyncpg.DataError: _from_data,
    }
    return ProblemDetailsPlugin(ProblemDetailsConfig(exception_to_problem_detail_map=mapping))


EXCEPTION_HANDLERS: ExceptionHandlersMap = {
    Exception: _internal,
    **dict.fromkeys(UNAVAILABLE_ERRORS, _unavailable),
}
