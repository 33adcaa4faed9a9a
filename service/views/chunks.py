"""A public game's delayed view published as immutable chunks and a short-lived head, for HTTP
caches (projections/chunks.py has the chain and the cut; docs/chunks.md the construction).

The chain is computed from the game's feed (service/streams/feeds.py), once per feed and instance,
and extended as the log grows; the head's summary is the spectators' kept state
(service/views/spectators.py); a head or chunk request joins the feed for its duration, so a game
that caches keep asking for stays followed. Whatever is not released answers exactly as a game
that does not exist, a private game too: a 404 reveals neither that events exist within the
delay nor that a private game exists.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from typing import Any
from weakref import WeakKeyDictionary

import msgspec

from projections.chunks import CHUNK_EVENTS, Chain, Link, chunk_index, chunk_range
from projections.spectator import released_by
from service.app.errors import ServiceError
from service.streams.feeds import FeedHub
from service.views.spectators import Spectators, SpectatorSummary, summary_of

IMMUTABLE = "public, max-age=31536000, immutable"
HEAD_CACHE = "public, max-age=1"
# Not published (yet): cached a second at most, so that polling ahead of a release reaches the
# origin once a second per cache, and a chunk shows at most a second after its release.
NOT_YET = "public, max-age=1"
CHUNK_PATH = "/games/{game_id}/spectate/chunks/{start}-{end}"
_encoder = msgspec.json.Encoder()


def within_this_second() -> dict[str, str]:
    """For nginx: keep a copy until the end of this second of its clock, not ``max-age=1``'s 1-2 s
    (it counts whole seconds and keeps a copy through the second it expires in); the one-second
    copies of every game then turn over together, each whole second."""
    return {"X-Accel-Expires": f"@{int(time.time())}"}


def no_chunk() -> ServiceError:
    """The one answer for a chunk or head that is not published: unknown, private or not released."""
    return ServiceError(
        404,
        "not_published",
        "Nothing is published here (yet).",
        headers={"Cache-Control": NOT_YET, **within_this_second()},
    )


class SpectatorChunk(msgspec.Struct, frozen=True):
    """Events ``start``..``end`` of the spectators' numbering, each as served (sorted-key JSON)
    with its chain hash; ``prev`` is the hash before ``start``."""

    game_id: uuid.UUID
    start: int
    end: int
    prev: str  # hex
    events: list[str]
    hashes: list[str]  # hex, one per event


class SpectatorTail(msgspec.Struct, frozen=True):
    """The released events from the last full chunk's first on, as a chunk carries them."""

    start: int
    prev: str
    events: list[str]
    hashes: list[str]


class SpectatorHead(msgspec.Struct, frozen=True):
    """What is released: ``chunks`` full chunks (chunk k covers numbers k * chunk_events + 1 ..
    (k + 1) * chunk_events, at ``chunk_path``) and ``tail``, the events from the last full
    chunk's first on; ``head`` is the chain's hash after the last released event
    (``released``, in the spectators' numbering)."""

    game_id: uuid.UUID
    chunk_events: int
    chunk_path: str
    spectator_delay: float
    released: int
    chunks: int
    head: str
    tail: SpectatorTail
    summary: SpectatorSummary


class Published(msgspec.Struct, frozen=True):
    body: bytes
    etag: str


def _texts(links: list[Link]) -> tuple[list[str], list[str]]:
    return [x.text.decode() for x in links], [x.hash.hex() for x in links]


class Chunks:
    def __init__(self, feeds: FeedHub, spectators: Spectators) -> None:
        self.feeds = feeds
        self.spectators = spectators
        self.games = spectators.games
        self._chains: WeakKeyDictionary[Any, Chain] = WeakKeyDictionary()  # by feed

    async def _chain(self, game_id: uuid.UUID) -> tuple[Chain, float]:
        """The game's chain as far as this instance has read its log, and its spectator delay."""
        try:
            table = await self.games.load(game_id, cached_ok=True)
        except ServiceError as exc:
            if exc.status == 404:
                raise no_chunk() from None
            raise
        if not table.public:
            raise no_chunk()
        feed = await self.feeds.join(game_id, needs=table.version)
        try:
            chain = self._chains.get(feed)
            if chain is None:
                chain = self._chains[feed] = Chain(game_id)
            decider = feed.table.decider if feed.table is not None else None
            fresh = feed.items[chain.cursor :]  # items[i].seq == i + 1
            chain.extend(
                decider, table.spectator_delay, ((i.seq, i.recorded_at, i.event, i.private) for i in fresh)
            )
        finally:
            self.feeds.leave(feed)
        return chain, table.spectator_delay

    async def chunk(self, game_id: uuid.UUID, start: int, end: int) -> bytes:
        index = chunk_index(start, end)
        if index is None:
            raise no_chunk()
        chain, _ = await self._chain(game_id)
        now = time.time()
        if chain.released_number(now) < end:
            raise no_chunk()
        upto = chain.released(now)
        prev, links = chain.between(start, end, upto)
        events, hashes = _texts(links)
        return _encoder.encode(SpectatorChunk(game_id, start, end, prev.hex(), events, hashes))

    async def head(self, game_id: uuid.UUID) -> Published:
        chain, delay = await self._chain(game_id)
        now = time.time()
        upto = chain.released(now)
        released = chain.released_number(now)
        full = released // CHUNK_EVENTS
        # The tail repeats the last full chunk: a viewer that follows the head needs no chunk
        # the moment one is cut (when every viewer would ask for it at once).
        tail_start = chunk_range(max(full - 1, 0))[0]
        prev, links = chain.between(tail_start, released, upto)
        events, hashes = _texts(links)
        shown = await self.spectators.at(game_id, released_by(now, delay), needs=0)
        document = SpectatorHead(
            game_id=game_id,
            chunk_events=CHUNK_EVENTS,
            chunk_path=CHUNK_PATH,
            spectator_delay=delay,
            released=released,
            chunks=full,
            head=chain.head(upto).hex(),
            tail=SpectatorTail(tail_start, prev.hex(), events, hashes),
            summary=summary_of(shown),
        )
        body = _encoder.encode(document)
        return Published(body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')
