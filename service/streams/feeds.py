"""One in-memory feed per watched game and instance, shared by all of its local streams.

A feed holds the game's decoded events (a game has a few hundred) and one follower task that
reads the log's tail once per wake-up, however many streams watch the game. Wake-ups come from
the instance's single LISTEN connection, with a poll as the fallback. The feed is dropped a
little after its last stream closes. Reads may be served by a replica (service/store/replica.py): a
feed asks for the highest seq it knows the log holds, from a notification or from a stream's
caller, so a lagging replica delays an event a little and never hides it.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from projections import table as tables
from projections.numbering import private_seat
from projections.table import Table
from service.app.errors import not_found
from service.app.tables import Tables
from service.runtime.log import get_logger
from service.store.notifications import Listener
from service.store.replica import Reads
from service.store.tasks import log_failure, stop
from service.streams.wakeups import Wakeups

log = get_logger("playlog.feeds")
LINGER_SECONDS = 5.0


class Item:
    __slots__ = ("event", "hash", "private", "recorded_at", "seq", "type")

    def __init__(
        self,
        seq: int,
        recorded_at: float,
        type_: str,
        event: Any,
        private: int | None = None,
        hash_: bytes = b"",
    ) -> None:
        self.seq = seq
        self.recorded_at = recorded_at
        self.type = type_
        self.event = event
        self.private = private  # the one seat that may know this event exists (None: everyone)
        self.hash = hash_  # the log's hash of it: a seat stream's receipts commit to it


class Feed:
    def __init__(self, game_id: uuid.UUID) -> None:
        self.game_id = game_id
        self.items: list[Item] = []  # items[i].seq == i + 1
        self.table: Table | None = None
        self.known = 0  # the highest seq the primary said the log holds (notification, caller)
        # Encoded SSE messages by (seq, viewer): every stream of a viewer shares one encoding.
        self.messages: dict[tuple[int, Any], bytes | None] = {}
        self.watchers = 0
        self.wakeups = Wakeups()  # of the streams waiting on this feed
        self.task: asyncio.Task[None] | None = None

    @property
    def seq(self) -> int:
        return len(self.items)

    @property
    def finished(self) -> bool:
        return self.table is not None and self.table.status == "finished"

    def extend(self, items: list[Item], table: Table) -> None:
        self.items.extend(items)
        self.table = table
        self.wakeups.arrived(items[0].recorded_at)


class FeedHub:
    def __init__(self, reads: Reads, listener: Listener, tables: Tables | None = None) -> None:
        self.reads = reads
        self.listener = listener
        self.tables = tables or Tables(reads.primary)  # the one cache: a feed's fold advances it
        listener.on_append(self._notified)
        self._feeds: dict[uuid.UUID, Feed] = {}
        self.drained = asyncio.Event()  # set when the process shuts down: streams end now

    @property
    def draining(self) -> bool:
        return self.drained.is_set()

    def drain(self) -> None:
        """The process is shutting down: every stream ends now, with a last comment."""
        self.drained.set()
        for feed in self._feeds.values():
            feed.wakeups.all()

    def _notified(self, game_id: uuid.UUID, seq: int) -> None:
        feed = self._feeds.get(game_id)
        if feed is not None:
            feed.known = max(feed.known, seq)

    async def _catch_up(self, feed: Feed) -> None:
        stored = await self.reads.events(feed.game_id, after_seq=feed.seq, needs=feed.known)
        if not stored:
            return
        # A new feed reads every event (its streams start anywhere) but folds on from the one
        # cache's newest table it reaches, not from the game's first event.
        base = feed.table if feed.table is not None else self.tables.base(feed.game_id, stored[-1].seq)
        table, events = tables.read_on(base, stored)
        assert table is not None
        decider = table.decider  # the kind never changes
        items = [
            Item(s.seq, s.recorded_at.timestamp(), s.type, event, private_seat(decider, event), s.hash)
            for s, event in zip(stored, events, strict=True)
        ]
        feed.extend(items, table)
        self.tables.offer(feed.game_id, table)

    async def _follow(self, feed: Feed) -> None:
        wake = self.listener.subscribe(feed.game_id)
        loop = asyncio.get_running_loop()
        unwatched_since: float | None = None
        try:
            while True:
                # Lingering, it still follows the log: a client that reconnects (to a finished
                # game's stream, say) finds the events appended meanwhile.
                if feed.watchers > 0:
                    unwatched_since = None
                elif unwatched_since is None:
                    unwatched_since = loop.time()
                elif loop.time() - unwatched_since >= LINGER_SECONDS:
                    return
                await self.listener.wait(wake)
                try:
                    await self._catch_up(feed)
                except Exception as exc:  # any: keep following; the next poll retries
                    log_failure(log, "feed_read_failed", exc, game_id=str(feed.game_id))
        finally:
            self.listener.unsubscribe(feed.game_id, wake)
            if self._feeds.get(feed.game_id) is feed:
                del self._feeds[feed.game_id]

    async def join(self, game_id: uuid.UUID, *, needs: int = 0) -> Feed:
        """The game's feed, which will hold seq ``needs`` (the stream waits for it if need be),
        watched until ``leave`` (explicit calls, not a context manager: one generator less in
        every open stream)."""
        feed = self._feeds.get(game_id)
        if feed is not None and feed.seq < needs:
            feed.known = max(feed.known, needs)
            self.listener.wake(game_id)  # its follower reads now, not at the next poll
        if feed is None:
            feed = Feed(game_id)
            feed.known = needs
            await self._catch_up(feed)
            if feed.table is None:
                raise not_found(f"Game {game_id}")
            existing = self._feeds.get(game_id)
            if existing is not None:  # another stream opened it meanwhile
                feed = existing
            else:
                self._feeds[game_id] = feed
                feed.task = asyncio.create_task(self._follow(feed), name=f"feed-{game_id}")
        feed.watchers += 1
        return feed

    def forget(self, game_id: uuid.UUID) -> None:
        """Streams opened from now on read the game afresh (a person in it was erased); those
        open keep their feed, which has sent what it holds already."""
        self._feeds.pop(game_id, None)

    @staticmethod
    def leave(feed: Feed) -> None:
        feed.watchers -= 1

    async def close(self) -> None:
        for feed in list(self._feeds.values()):
            await stop(feed.task)
        self._feeds.clear()
