"""Bearer tokens: signed JWTs scoped to a role, each with ``exp``, ``iat`` and a token id (``jti``).

- ``seat``: issued on join; acts for one seat of one game while its ``occupancy`` (the join's id)
  still holds that seat (checked against the table on every request, service/http/api/deps.py).
- ``host``: issued on create; starts that game, until a margin after the start.
- ``moderator``: issued by ``playlog moderator-token --name NAME``; reads everything of every game
  for a few hours, unless its name is revoked (service/app/moderators.py).
- ``player``: issued by ``POST /players``; ties the seats it joins to one player, until its holder
  revokes it (service/app/players.py).

Signing keys: a ``Keyring`` holds several keys at once; the newest signs (its ``kid`` goes in the
token's header), every key listed verifies. A token naming an unknown ``kid`` is refused.

Tokens of older releases (another claim shape, no ``kid``) read as today's grants where they still
grant anything (service/app/legacy_tokens.py).
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

import jwt
from litestar.exceptions import NotAuthorizedException

from service.app.errors import ServiceError
from service.app.legacy_tokens import is_legacy, legacy_grant

ALGORITHM = "HS256"
Role = Literal["seat", "host", "moderator", "player"]
ROLES = ("seat", "host", "moderator", "player")
_KID = re.compile(r"[A-Za-z0-9._-]{1,40}")


@dataclass(frozen=True)
class Principal:
    role: Role
    game_id: uuid.UUID | None = None
    seat: int | None = None
    occupancy: str = ""  # seat tokens: the occupancy id of the join that issued it
    name: str | None = None  # moderator tokens: who moderates
    player_id: uuid.UUID | None = None  # player tokens
    issued_at: float = 0.0
    token_id: str = ""


VERIFIED_CACHE_SIZE = 16384


@dataclass(frozen=True)
class Keyring:
    """Signing keys as ``(kid, secret)``, newest first: the first signs, all of them verify.

    ``verified`` remembers the tokens these keys verified (or signed) with their principal and
    expiry: every request of a seat repeats its token, and PyJWT's checks cost hundreds of calls.
    """

    keys: tuple[tuple[str, str], ...]
    verified: dict[str, tuple[Principal, float]] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    def remember(self, token: str, principal: Principal, expires: float) -> None:
        if len(self.verified) >= VERIFIED_CACHE_SIZE:
            del self.verified[next(iter(self.verified))]  # the oldest (dicts keep their order)
        self.verified[token] = (principal, expires)

    @classmethod
    def parse(cls, value: str) -> Keyring:
        """``kid:secret`` pairs separated by commas, newest first; a bare secret is allowed too
        (its kid is derived from it, so it keeps verifying its tokens once listed after a new key).
        """
        keys: list[tuple[str, str]] = []
        for part in (p.strip() for p in value.split(",")):
            if not part:
                continue
            kid, sep, secret = part.partition(":")
            if not sep or not _KID.fullmatch(kid) or not secret:
                kid, secret = derived_kid(part), part
            keys.append((kid, secret))
        if not keys:
            raise ValueError("PLAYLOG_JWT_SECRET holds no key")
        if len({kid for kid, _ in keys}) != len(keys):
            raise ValueError("PLAYLOG_JWT_SECRET names a kid twice")
        return cls(tuple(keys))

    @property
    def signing(self) -> tuple[str, str]:
        return self.keys[0]

    def secret(self, kid: str) -> str | None:
        for known, secret in self.keys:
            if known == kid:
                return secret
        return None


def derived_kid(secret: str) -> str:
    """The kid of a bare secret: stable, and says nothing usable about the secret."""
    return "k" + hashlib.sha256(secret.encode()).hexdigest()[:12]


def issue(keys: Keyring, principal: Principal, lifetime: float, *, now: float | None = None) -> str:
    """A token for ``principal`` valid ``lifetime`` seconds from ``now``."""
    issued = int(time.time() if now is None else now)
    claims: dict[str, Any] = {
        "role": principal.role,
        "iat": issued,
        "exp": issued + int(lifetime),
        "jti": principal.token_id or uuid.uuid4().hex,
    }
    if principal.game_id is not None:
        claims["game_id"] = str(principal.game_id)
    if principal.seat is not None:
        claims["seat"] = principal.seat
        claims["occ"] = principal.occupancy
    if principal.name is not None:
        claims["name"] = principal.name
    if principal.player_id is not None:
        claims["sub"] = str(principal.player_id)
    kid, secret = keys.signing
    token = jwt.encode(claims, secret, algorithm=ALGORITHM, headers={"kid": kid})
    # What verifying it would find, so that its first request need not (a lobby's tokens are
    # dated by their event); a token dated ahead is left to PyJWT, which refuses it until then.
    if issued <= time.time() and principal.role in ROLES:
        keys.remember(token, _principal(claims), float(claims["exp"]))
    return token


def _decode(encoded: str, keys: Keyring) -> tuple[Principal, float]:
    """A verified token's principal and expiry; remembered, as every request of a seat repeats it."""
    known = keys.verified.get(encoded)
    if known is not None:
        return known
    kid = jwt.get_unverified_header(encoded).get("kid")
    # Tokens from before key rotation carry no kid: any key still listed may verify them.
    candidates = [s for k, s in keys.keys] if kid is None else [keys.secret(str(kid))]
    claims: dict[str, Any] | None = None
    for secret in candidates:
        if secret is None:
            raise ValueError(f"unknown kid {kid!r}")
        try:
            claims = jwt.decode(
                encoded, secret, algorithms=[ALGORITHM], options={"verify_exp": False, "require": ["exp"]}
            )
            break
        except jwt.InvalidSignatureError:
            continue
    if claims is None:
        raise ValueError("no key verifies this token")
    if kid is None and is_legacy(claims):
        claims = legacy_grant(claims)
    if claims["role"] not in ROLES:
        raise ValueError(claims["role"])
    principal, expires = _principal(claims), float(claims["exp"])
    keys.remember(encoded, principal, expires)
    return principal, expires


def _principal(claims: dict[str, Any]) -> Principal:
    role = claims["role"]
    game = claims.get("game_id")
    seat = claims.get("seat")
    sub = claims.get("sub")
    return Principal(
        role=role,
        game_id=uuid.UUID(game) if game else None,
        seat=int(seat) if seat is not None else None,
        occupancy=str(claims.get("occ", "")),
        name=str(claims["name"]) if claims.get("name") else None,
        player_id=uuid.UUID(sub) if role == "player" and sub else None,
        issued_at=float(claims.get("iat", 0)),
        token_id=str(claims.get("jti", "")),
    )


def read_bearer(authorization: str | None, keys: Keyring) -> Principal:
    """The principal of an ``Authorization: Bearer`` header; 401 when missing, invalid or expired
    (``token_expired``: the holder knows to get a new one rather than to fix its request)."""
    if not authorization or not authorization.lower().startswith("bearer "):
        raise NotAuthorizedException("A bearer token is required (Authorization: Bearer <token>).")
    try:
        principal, expires = _decode(authorization[7:].strip(), keys)
    except (jwt.PyJWTError, KeyError, ValueError, TypeError):
        raise NotAuthorizedException("The bearer token is invalid or expired.") from None
    if expires <= time.time():
        raise ServiceError(401, "token_expired", f"This {principal.role} token has expired.")
    return principal
