"""Tokens issued by releases before occupancy-bound seat tokens (commits up to 2355c24, before v0.1).

Those releases signed Litestar ``Token`` claims: ``exp``, ``iat`` (whole seconds), ``sub``
(``"seat:<game>"``, ``"host:<game>"`` or ``"moderator"``) and the grant inside ``extras``
(``role``, ``game_id``, ``seat``), with no ``kid``, ``jti`` or ``occ``. Today they read as:

- seat: a seat token of that game and seat, *unbound*: it acts only once ``bound`` finds that
  the seat's holder now is the one that held it when the token was issued (below);
- host: a host token of that game (today's checks apply: it starts the game, until a margin
  after the start);
- moderator: refused, as every moderator token without a name (a name is what revokes one).

Each keeps its own ``exp`` (those releases gave seat and host tokens 30 days), and today's
narrower rules still end it earlier (a seat token lapses a while after its game ends).

Binding an old seat token. Those releases recorded a join without an occupancy id (today's table
holds ``""`` for such a holder) and a token without one, so a seat's successive holders had
look-alike tokens. The token names its second of issue (``iat``); the log names when each join
and leave of the seat was recorded (``recorded_at``, the appending transaction's start, so before
the token was signed). The token is bound to the seat's current holder when that holder joined
before the end of the token's second and the seat's previous holder (if any) left before the
start of it: a token issued to an earlier holder was issued before that holder left (leaving
took the holder's own token), so at or before the second of the leave. A leave and a rejoin of
one seat within one second leave the new holder's token refused (it cannot be told apart from
the old holder's): never a widening, at worst an old token that no longer acts. This assumes
the service and PostgreSQL read one clock (the embedded PostgreSQL, or hosts kept in step).
Joins made after the upgrade have an occupancy id, so an old token never binds to them.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

# The occupancy of an old seat token before it is bound: equal to no seat's occupancy.
UNBOUND = "unbound:legacy"


def is_legacy(claims: dict[str, Any]) -> bool:
    return "role" not in claims and isinstance(claims.get("extras"), dict)


def legacy_grant(claims: dict[str, Any]) -> dict[str, Any]:
    """Today's claims for an old token's claims; ``ValueError`` for what no longer acts."""
    extras = claims["extras"]
    role = extras["role"]
    if role not in ("seat", "host"):
        raise ValueError(f"old {role} tokens are not accepted")
    game = str(uuid.UUID(str(extras["game_id"])))
    if claims.get("sub") != f"{role}:{game}":
        raise ValueError("an old token's subject names another grant")
    grant: dict[str, Any] = {"role": role, "game_id": game, "iat": int(claims["iat"]), "exp": claims["exp"]}
    if role == "seat":
        grant["seat"] = int(extras["seat"])
        grant["occ"] = UNBOUND
    return grant


def bound(moves: Sequence[tuple[str, str | None, datetime]], issued_at: float) -> bool:
    """Whether an old seat token issued in second ``issued_at`` acts for the seat's holder now.

    ``moves``: the seat's joins and leaves in log order, as ``(type, occupancy, recorded_at)``
    (``lobby.joined`` / ``lobby.left``; a join's occupancy, ``None`` for a leave).
    """
    if not moves or moves[-1][0] != "lobby.joined" or moves[-1][1]:
        return False  # the seat is free, or its holder joined with an occupancy id
    if moves[-1][2].timestamp() >= issued_at + 1:
        return False  # its holder joined after this token was issued
    leaves = [at for kind, _, at in moves if kind == "lobby.left"]
    return not leaves or leaves[-1].timestamp() < issued_at
