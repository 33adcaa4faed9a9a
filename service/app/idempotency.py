"""Idempotency keys: what a key names, and the one fingerprint of the request it was sent with.

A key is remembered in the ``commands`` table of the game the request acted on, under its caller
(a seat's commands, a seat's or a moderator's disputes, a game's host, a player, a guest): two
callers never share a key. With it goes the request's fingerprint: the operation, the path's
resource ids (game, seat, dispute) and the body. The same key again with the same fingerprint
gets the first request's answer, whatever else the request carries and whatever happened since;
with another fingerprint (another operation, another dispute, another body) it gets 422
``idempotency_key_reused``.

A moderator's and a player's tokens reach every game: their keys are also bound to the first
game they were sent for (``caller_keys``, migration 0013), so that one key never names requests
in two logs.

A new game has no log to remember a key in before it exists, so a keyed create derives the game's
id from the key: the second create with the key lands on the game the first one made.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence

import msgspec

from service.app.errors import ServiceError

__all__ = [
    "Keyed",
    "command_id",
    "created_game_id",
    "disputes_caller",
    "fingerprint",
    "key_reused",
    "keyed",
    "seat_caller",
    "token_id",
]

# Names the ids derived here; fixed for good, as those ids are stored.
_NAMESPACE = uuid.UUID("5f0c2a8e-4b7d-5c1e-9a3f-6d2b8e4c1a70")


class Keyed(msgspec.Struct, frozen=True):
    """A request sent with a key: its command id in the game's log and its fingerprint."""

    command_id: str
    fingerprint: str


def keyed(
    key: str | None, caller: str, operation: str, resources: Sequence[object], body: bytes
) -> Keyed | None:
    """The key of ``caller`` for ``operation`` on ``resources`` with ``body`` (None: no key)."""
    if key is None:
        return None
    return Keyed(command_id=command_id(caller, key), fingerprint=fingerprint(operation, resources, body))


def fingerprint(operation: str, resources: Sequence[object], body: bytes) -> str:
    """The request's fingerprint: ``operation`` on ``resources`` with ``body`` (also a receipt's)."""
    # Neither the operation nor an id holds a NUL: the parts cannot run into each other.
    parts = "".join([f"{part}\0" for part in (operation, *resources)])
    return hashlib.sha256(parts.encode() + body).hexdigest()


def command_id(caller: str, key: str) -> str:
    """Where ``caller``'s ``key`` is remembered in a game's log."""
    return f"{caller}:{key}"


def seat_caller(seat: int) -> str:
    """The caller a seat's command keys belong to."""
    return f"seat:{seat}"


def disputes_caller(actor: str) -> str:
    """The caller the dispute keys of ``actor`` (a seat, a moderator) belong to: named as before
    fingerprints covered the dispute, so that a retry sent across that upgrade is refused
    (another fingerprint), never applied again."""
    return f"{actor}:dispute"


def created_game_id(key: str) -> uuid.UUID:
    """The id of the game a create with ``key`` makes (random ids are version 4: never this)."""
    return uuid.uuid5(_NAMESPACE, f"createGame:{key}")


def token_id(game_id: uuid.UUID, seq: int) -> str:
    """The ``jti`` of the token an answer recorded at ``seq`` carries: the same on every replay."""
    return uuid.uuid5(_NAMESPACE, f"{game_id}:{seq}").hex


def key_reused() -> ServiceError:
    return ServiceError(
        422, "idempotency_key_reused", "This Idempotency-Key was already used for a different request."
    )
