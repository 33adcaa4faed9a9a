"""Randomness nobody can choose: draws from a stream keyed by committed seeds.

docs/export-format.md ("Randomness") is the construction, byte for byte, so that another language
can reproduce every draw: the server's seed ``S`` is committed in ``lobby.created`` and disclosed
at the end; each seat may commit a seed when it joins and reveal it before the start; the key
mixes them all, and the command decided at version ``v`` reads the stream
``HMAC(K, "playlog/draws/v1" 0x00 v j)`` for j = 0, 1, ... Pure: the service draws ``S`` and
passes the generator in ``Context``; a verifier builds the same one from the revealed seeds.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import uuid
from collections.abc import Callable, MutableSequence, Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

SEED_BYTES = 32
_SERVER = b"playlog/server-seed/v1\x00"
_SEAT = b"playlog/seat-seed/v1\x00"
_KEY = b"playlog/key/v1\x00"
_DRAWS = b"playlog/draws/v1\x00"


class Randomness(Protocol):
    """What ``decide`` may draw: the methods of ``random.Random`` the rules use."""

    def getrandbits(self, k: int, /) -> int: ...
    def randrange(self, n: int, /) -> int: ...
    def randint(self, a: int, b: int, /) -> int: ...
    def choice(self, xs: Sequence[T], /) -> T: ...
    def shuffle(self, xs: MutableSequence[Any], /) -> None: ...


class SeedUnavailable(Exception):
    """A draw was asked of a generator whose server seed is not known (not disclosed yet)."""


def server_commitment(seed: bytes) -> str:
    return hashlib.sha256(_SERVER + seed).hexdigest()


def seat_commitment(seed: bytes) -> str:
    return hashlib.sha256(_SEAT + seed).hexdigest()


def parse_seed(text: str) -> bytes | None:
    """A seed written as 64 lower-case hex digits, or None if ``text`` is not one."""
    if len(text) != 2 * SEED_BYTES or text != text.lower():
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def key(server_seed: bytes, game_id: uuid.UUID, seat_seeds: Sequence[bytes | None]) -> bytes:
    """``K``: the server seed keys an HMAC of the game id and every seat's revealed seed."""
    message = bytearray(_KEY + game_id.bytes)
    for seed in seat_seeds:
        message += b"\x00" if seed is None else b"\x01" + seed
    return hmac.digest(server_seed, bytes(message), "sha256")


class Draws:
    """The stream of the command decided at ``version``, read front to back by each draw.

    ``key`` None: the server seed is not known (a running game verified offline); any draw
    raises ``SeedUnavailable``. A callable key is derived at the first draw only: most commands
    draw nothing, and the command path need not pay for the HMAC.
    """

    def __init__(self, key: bytes | Callable[[], bytes] | None, version: int) -> None:
        self._key = key
        self._prefix = _DRAWS + version.to_bytes(8, "big")
        self._block = 0
        self._buffer = b""

    def _take(self, count: int) -> bytes:
        buffer = self._buffer
        if len(buffer) < count:
            buffer = self._refilled(count)
        self._buffer = buffer[count:]
        return buffer[:count]

    def _refilled(self, count: int) -> bytes:
        """The buffer, with the stream's next blocks until it holds ``count`` bytes."""
        if self._key is None:
            raise SeedUnavailable("the server seed is not disclosed yet")
        if callable(self._key):
            self._key = self._key()
        while len(self._buffer) < count:
            block = hmac.digest(self._key, self._prefix + self._block.to_bytes(8, "big"), "sha256")
            self._buffer += block
            self._block += 1
        return self._buffer

    def getrandbits(self, k: int, /) -> int:
        """The top ``k`` bits of the next ``ceil(k / 8)`` bytes, big-endian."""
        if k <= 0:
            return 0
        count = (k + 7) // 8
        return int.from_bytes(self._take(count), "big") >> (8 * count - k)

    def below(self, n: int) -> int:
        """Uniform in ``0 .. n - 1`` by rejection sampling: ``getrandbits(k)`` for the smallest
        ``k`` that covers ``n - 1``, until a value is below ``n`` (``n = 1``: 0, nothing read)."""
        if n <= 1:
            if n == 1:
                return 0
            raise ValueError("below(n) needs n >= 1")
        k = (n - 1).bit_length()
        count = (k + 7) // 8
        shift = 8 * count - k
        while True:  # getrandbits(k), inlined: a deal draws once per card
            value = int.from_bytes(self._take(count), "big") >> shift
            if value < n:
                return value

    def randrange(self, n: int, /) -> int:
        return self.below(n)

    def randint(self, a: int, b: int, /) -> int:
        return a + self.below(b - a + 1)

    def choice(self, xs: Sequence[T], /) -> T:
        return xs[self.below(len(xs))]

    def shuffle(self, xs: MutableSequence[Any], /) -> None:
        """Fisher-Yates from the end."""
        for i in range(len(xs) - 1, 0, -1):
            j = self.below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]


def seeded(seed: object, version: int) -> random.Random:
    """A game with ``seed`` in its options (tests, reproducible games): CPython's generator."""
    return random.Random(f"{seed}:{version}")
