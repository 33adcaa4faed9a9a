"""Tokens of releases before occupancy-bound seat tokens (service/app/legacy_tokens.py): what each old
shape reads as today, and which holder of a seat an old seat token is bound to.

The old tokens here are made as those releases made them (Litestar's ``Token``, the grant in
``extras``); tests/upgrade replays tokens the old release itself issued."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import jwt
import pytest
from litestar.exceptions import NotAuthorizedException
from litestar.security.jwt import Token

from service.app.auth import Keyring, read_bearer
from service.app.errors import ServiceError
from service.app.legacy_tokens import UNBOUND, bound

SECRET = "a-secret-for-tests-only-32-bytes-long"
GAME = uuid.UUID("8d3c7e2a-4f61-4a8e-9b0d-2c5e6f7a8b9c")


def old_token(role: str, *, seat: int | None = None, lifetime: timedelta = timedelta(days=30)) -> str:
    """As service/app/auth.py's ``issue`` of 2355c24 signed it."""
    extras: dict[str, object] = {"role": role}
    if role != "moderator":
        extras["game_id"] = str(GAME)
    if seat is not None:
        extras["seat"] = seat
    subject = role if role == "moderator" else f"{role}:{GAME}"
    return Token(exp=datetime.now(UTC) + lifetime, sub=subject, extras=extras).encode(SECRET, "HS256")


def bearer(token: str) -> str:
    return f"Bearer {token}"


def test_an_old_seat_token_reads_as_an_unbound_seat_token_of_its_game_and_seat() -> None:
    principal = read_bearer(bearer(old_token("seat", seat=1)), Keyring.parse(SECRET))
    assert (principal.role, principal.game_id, principal.seat) == ("seat", GAME, 1)
    assert principal.occupancy == UNBOUND
    assert abs(principal.issued_at - datetime.now(UTC).timestamp()) < 5


def test_an_old_host_token_reads_as_the_host_token_of_its_game() -> None:
    principal = read_bearer(bearer(old_token("host")), Keyring.parse(f"k2:new-{SECRET},{SECRET}"))
    assert (principal.role, principal.game_id, principal.seat) == ("host", GAME, None)


def test_an_old_moderator_token_is_refused() -> None:
    with pytest.raises(NotAuthorizedException):
        read_bearer(bearer(old_token("moderator")), Keyring.parse(SECRET))


def test_an_old_token_past_its_own_expiry_is_refused_as_expired() -> None:
    token = old_token("seat", seat=0, lifetime=timedelta(seconds=1))
    claims = jwt.decode(token, SECRET, algorithms=["HS256"], options={"verify_exp": False})
    expired = jwt.encode({**claims, "exp": claims["iat"] - 1}, SECRET, algorithm="HS256")
    with pytest.raises(ServiceError) as refused:
        read_bearer(bearer(expired), Keyring.parse(SECRET))
    assert refused.value.code == "token_expired"


@pytest.mark.parametrize(
    "claims",
    [
        {"sub": f"host:{GAME}", "extras": {"role": "seat", "game_id": str(GAME), "seat": 0}},
        {"sub": f"seat:{uuid.uuid4()}", "extras": {"role": "seat", "game_id": str(GAME), "seat": 0}},
        {"sub": f"seat:{GAME}", "extras": {"role": "player", "game_id": str(GAME)}},
    ],
)
def test_an_old_shape_naming_no_grant_of_those_releases_is_refused(claims: dict[str, object]) -> None:
    now = int(datetime.now(UTC).timestamp())
    token = jwt.encode({**claims, "iat": now, "exp": now + 60}, SECRET, algorithm="HS256")
    with pytest.raises(NotAuthorizedException):
        read_bearer(bearer(token), Keyring.parse(SECRET))


def test_the_old_shape_with_a_kid_is_refused() -> None:
    """Only releases without key ids signed the old shape."""
    now = int(datetime.now(UTC).timestamp())
    claims = {
        "sub": f"host:{GAME}",
        "extras": {"role": "host", "game_id": str(GAME)},
        "iat": now,
        "exp": now + 60,
    }
    token = jwt.encode(claims, SECRET, algorithm="HS256", headers={"kid": "k1"})
    with pytest.raises(NotAuthorizedException):
        read_bearer(bearer(token), Keyring.parse(f"k1:{SECRET}"))


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(1_800_000_000 + seconds, UTC)


ISSUED = 1_800_000_010  # the token's iat, a whole second


def joined(seconds: float, occupancy: str | None = None) -> tuple[str, str | None, datetime]:
    return ("lobby.joined", occupancy, at(seconds))


def left(seconds: float) -> tuple[str, str | None, datetime]:
    return ("lobby.left", None, at(seconds))


def test_an_old_seat_token_binds_to_the_holder_that_joined_before_it_was_issued() -> None:
    assert bound([joined(9.2)], ISSUED)
    assert bound([joined(10.7)], ISSUED)  # joined and signed within the token's second
    assert bound([joined(1), left(2), joined(9.5)], ISSUED)


def test_an_old_seat_token_never_binds_to_a_later_holder() -> None:
    assert not bound([joined(1), left(10.9), joined(12)], ISSUED)  # the token of the first holder
    assert not bound([joined(1), left(10.2), joined(10.6)], ISSUED)  # same second: refused
    assert not bound([joined(11.0)], ISSUED)


def test_an_old_seat_token_binds_to_no_free_seat_and_no_holder_with_an_occupancy_id() -> None:
    assert not bound([], ISSUED)
    assert not bound([joined(5), left(20)], ISSUED)
    assert not bound([joined(5), left(20), joined(30, "a1b2c3")], ISSUED)
