"""The spectators' view of a game as a hash chain, cut into immutable chunks (docs/chunks.md).

The n-th event a spectator may see (its number n, projections/numbering) is served as its
*text*: the event as the delayed stream sends it (``EventOut``, redacted for spectators), in
JSON with sorted keys and no whitespace. Its hash is ``sha256(prev || hashed_text(text))``,
``prev`` being the hash of event n - 1, or for the first event the game's genesis hash
``sha256("playlog/spectator/v1 " || game_id)``: a chain is bound to its game, so a cache cannot
hand over another game's chunk. A viewer hashes each text as received, except an event holding a
person's words, whose hash covers them sealed (``hashed_text``): a chain then verifies the same
before and after that person is erased, when the words show as a pseudonym.

A chunk is a range of ``CHUNK_EVENTS`` numbers, ``[k * CHUNK_EVENTS + 1, (k + 1) * CHUNK_EVENTS]``;
it exists only once every event in it is released (``recorded_at + spectator_delay`` has
passed, and every earlier event's too), so it never changes and nothing in it is early.
"""

from __future__ import annotations

import bisect
import hashlib
import uuid
from collections.abc import Iterable
from typing import Any

import msgspec

from domain.decider import Decider
from domain.personal import sealed_form
from domain.viewers import SPECTATOR
from projections.envelopes import envelope
from projections.numbering import sees
from projections.spectator import release_at

CHUNK_EVENTS = 16
GENESIS_PREFIX = b"playlog/spectator/v1 "
_encoder = msgspec.json.Encoder(order="sorted")
_decoder = msgspec.json.Decoder()
_SEALED = b'"sealed":'  # a member's key (a string's quote is escaped): the only way it shows


def hashed_text(text: bytes) -> bytes:
    """What a link's hash covers of an event's ``text``: the text itself, or for an event whose
    body carries opened words (its ``sealed`` member), the text with the body in its sealed form
    (domain/personal.py): each opened field back to its seal, ``sealed`` dropped."""
    if _SEALED not in text:
        return text
    event = _decoder.decode(text)
    data = event.get("data") if isinstance(event, dict) else None
    if not isinstance(data, dict) or "sealed" not in data:
        return text
    return _encoder.encode({**event, "data": sealed_form(data)})


def genesis(game_id: uuid.UUID) -> bytes:
    return hashlib.sha256(GENESIS_PREFIX + str(game_id).encode()).digest()


def link(prev: bytes, text: bytes) -> bytes:
    return hashlib.sha256(prev + hashed_text(text)).digest()


def chunk_range(index: int) -> tuple[int, int]:
    """The numbers of chunk ``index`` (from 0), first and last."""
    return index * CHUNK_EVENTS + 1, (index + 1) * CHUNK_EVENTS


def chunk_index(start: int, end: int) -> int | None:
    """The chunk whose range is exactly ``start``-``end``, or None."""
    if start < 1 or (start - 1) % CHUNK_EVENTS or end != start + CHUNK_EVENTS - 1:
        return None
    return (start - 1) // CHUNK_EVENTS


class Link(msgspec.Struct, frozen=True):
    number: int  # the spectators' number of the event
    text: bytes  # the event as served (sorted-key JSON)
    hash: bytes
    released: float  # when it and every event before it are released (epoch seconds)


class Chain:
    """A game's spectator chain, extended as its log grows (one per feed: computed once)."""

    def __init__(self, game_id: uuid.UUID) -> None:
        self.genesis = genesis(game_id)
        self.links: list[Link] = []
        self._released: list[float] = []  # links[i].released, for bisection
        self.cursor = 0  # the log seq read up to
        self.number = 0  # how many of those events spectators may see

    def extend(
        self, decider: Decider | None, delay: float, items: Iterable[tuple[int, float, Any, int | None]]
    ) -> None:
        """Append the log's events ``(seq, recorded_at, event, private_to)`` after ``cursor``."""
        for seq, recorded_at, event, private in items:
            if seq <= self.cursor:
                continue
            self.cursor = seq
            if not sees(private, SPECTATOR):
                continue
            self.number += 1
            out = envelope(decider, self.number, recorded_at, event, SPECTATOR)
            if out is None:  # seen but empty for spectators: its number stays unused
                continue
            text = _encoder.encode(out)
            prev = self.links[-1] if self.links else None
            released = release_at(recorded_at, delay)
            if prev is not None:  # a prefix is released together: never a later event first
                released = max(released, prev.released)
            self.links.append(
                Link(self.number, text, link(prev.hash if prev else self.genesis, text), released)
            )
            self._released.append(released)

    def released(self, now: float) -> int:
        """How many links are released at ``now``."""
        return bisect.bisect_right(self._released, now)

    def released_number(self, now: float) -> int:
        """The spectators' number of the last event released at ``now`` (0: none)."""
        count = self.released(now)
        return self.links[count - 1].number if count else 0

    def between(self, first: int, last: int, upto: int) -> tuple[bytes, list[Link]]:
        """The hash before number ``first`` and the links numbered ``first``..``last`` among the
        first ``upto`` links."""
        lo = bisect.bisect_left(self.links, first, hi=upto, key=lambda x: x.number)
        hi = bisect.bisect_right(self.links, last, lo=lo, hi=upto, key=lambda x: x.number)
        prev = self.links[lo - 1].hash if lo else self.genesis
        return prev, self.links[lo:hi]

    def head(self, upto: int) -> bytes:
        """The hash of the last of the first ``upto`` links (the genesis for none)."""
        return self.links[upto - 1].hash if upto else self.genesis


def verify(prev: bytes, texts: Iterable[str], hashes: Iterable[str]) -> bytes:
    """What a viewer checks of a chunk or tail: each text's hash chained from ``prev`` equals the
    one listed; returns the hash after the last. ValueError on the first that differs."""
    texts, hashes = list(texts), list(hashes)
    if len(texts) != len(hashes):
        raise ValueError("as many hashes as events")
    for n, (text, listed) in enumerate(zip(texts, hashes, strict=True)):
        prev = link(prev, text.encode())
        if prev.hex() != listed:
            raise ValueError(f"event {n} of the chunk does not chain")
    return prev
