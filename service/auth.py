"""Bearer tokens: signed JWTs (Litestar's ``Token``) scoped to a role, and for seats one game and seat.

- ``seat``: issued on join; acts for one seat of one game.
- ``host``: issued on create; starts that game.
- ``moderator``: issued by ``playlog moderator-token``; reads everything of every game.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal

from litestar.exceptions import NotAuthorizedException
from litestar.security.jwt import Token

from service.errors import ServiceError

ALGORITHM = "HS256"
Role = Literal["seat", "host", "moderator"]
SEAT_TOKEN_LIFETIME = timedelta(days=30)
MODERATOR_TOKEN_LIFETIME = timedelta(hours=12)


@dataclass(frozen=True)
class Principal:
    role: Role
    game_id: uuid.UUID | None = None
    seat: int | None = None


def issue(secret: str, principal: Principal, lifetime: timedelta = SEAT_TOKEN_LIFETIME) -> str:
    extras: dict[str, object] = {"role": principal.role}
    if principal.game_id is not None:
        extras["game_id"] = str(principal.game_id)
    if principal.seat is not None:
        extras["seat"] = principal.seat
    subject = principal.role if principal.game_id is None else f"{principal.role}:{principal.game_id}"
    token = Token(exp=datetime.now(UTC) + lifetime, sub=subject, extras=extras)
    return token.encode(secret, ALGORITHM)


@lru_cache(maxsize=16384)
def _decode(encoded: str, secret: str) -> tuple[Principal, float]:
    """A verified token's principal and expiry; cached, as every request of a seat repeats it."""
    token = Token.decode(encoded, secret, ALGORITHM)
    role = token.extras["role"]
    game = token.extras.get("game_id")
    seat = token.extras.get("seat")
    if role not in ("seat", "host", "moderator"):
        raise ValueError(role)
    principal = Principal(
        role=role,
        game_id=uuid.UUID(game) if game else None,
        seat=int(seat) if seat is not None else None,
    )
    return principal, token.exp.timestamp()


def read_bearer(authorization: str | None, secret: str) -> Principal:
    """The principal of an ``Authorization: Bearer`` header; 401 when missing or invalid."""
    if not authorization or not authorization.lower().startswith("bearer "):
        raise NotAuthorizedException("A bearer token is required (Authorization: Bearer <token>).")
    try:
        principal, expires = _decode(authorization[7:].strip(), secret)
    except (NotAuthorizedException, KeyError, ValueError, TypeError):
        raise NotAuthorizedException("The bearer token is invalid or expired.") from None
    if expires <= time.time():
        raise NotAuthorizedException("The bearer token is invalid or expired.")
    return principal


def require_seat(principal: Principal, game_id: uuid.UUID, seat: int) -> None:
    """403 unless this principal plays ``seat`` of ``game_id`` (any other game, seat or role)."""
    if principal.role != "seat" or principal.game_id != game_id or principal.seat is None:
        raise ServiceError(403, "forbidden", "This token does not act for a seat of this game.")
    if principal.seat != seat:
        raise ServiceError(403, "forbidden", "This token acts for another seat.")


def require_host(principal: Principal, game_id: uuid.UUID) -> None:
    if principal.role != "host" or principal.game_id != game_id:
        raise ServiceError(403, "forbidden", "Only the game's creator (host token) can do this.")


def require_moderator(principal: Principal) -> None:
    if principal.role != "moderator":
        raise ServiceError(403, "forbidden", "A moderator token is required.")
