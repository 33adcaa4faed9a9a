"""Fair-shuffle commitments: publish a hash of a hidden order now, reveal order and salt later.

``commitment = sha256(salt || canonical JSON of the order)``, hex. The salt comes from the
game's RNG in ``decide`` and is hidden until the game ends, so nobody can brute-force a
small deck from the published hash, and the server cannot change the order afterwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import msgspec

from domain.randomness import Randomness

_encoder = msgspec.json.Encoder(order="sorted")


def new_salt(rng: Randomness) -> str:
    return f"{rng.getrandbits(128):032x}"


def commit(order: Sequence[object], salt: str) -> str:
    return hashlib.sha256(salt.encode() + _encoder.encode(list(order))).hexdigest()


def verify(order: Sequence[object], salt: str, commitment: str) -> bool:
    return commit(order, salt) == commitment
