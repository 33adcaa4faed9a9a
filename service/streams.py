"""Server-Sent Event streams: a seat's live stream and the spectators' delayed stream.

Both resume from ``Last-Event-ID`` (the id of the last event received): nothing is lost or
repeated. Ids are the viewer's own event numbers (projections/numbering), so an event a viewer
may not see is skipped without a gap, and keep-alives follow the last message the viewer got,
not the log's activity. The spectator stream holds every event back until
``recorded_at + spectator_delay``, whatever id the client claims.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from typing import Any

import msgspec
from litestar.response import ServerSentEventMessage

from domain.viewers import Viewer
from projections.envelopes import envelope
from projections.numbering import sees
from projections.spectator import release_at
from service.feeds import Feed, FeedHub, Item

KEEPALIVE_SECONDS = 15.0
# The last message of a stream the server closes on shutdown; the client reconnects, with its
# Last-Event-ID, to another instance or to this one once restarted.
SHUTDOWN_COMMENT = "server shutting down: reconnect with Last-Event-ID"
_encoder = msgspec.json.Encoder()


class Encoded(ServerSentEventMessage):
    """SSE messages as bytes, built once: every stream of a feed and viewer sends the same bytes
    (Litestar would otherwise encode each message again for each stream)."""

    def __init__(self, encoded: bytes) -> None:
        super().__init__(data=None)
        self.encoded = encoded

    @classmethod
    def message(cls, seq: int, type_: str, data: bytes) -> Encoded:
        # msgspec's JSON holds no line break: one ``data:`` line.
        return cls(b"id: %d\r\nevent: %s\r\ndata: %s\r\n\r\n" % (seq, type_.encode(), data))

    def encode(self) -> bytes:
        return self.encoded


def _message(feed: Feed, item: Item, number: int, viewer: Viewer) -> Encoded | None:
    """The SSE message of one event for one viewer (its ``number`` for that viewer), encoded once
    per feed and viewer."""
    key = (item.seq, viewer)
    if key in feed.messages:
        cached: Encoded | None = feed.messages[key]
        return cached
    decider = feed.table.decider if feed.table is not None else None
    out = envelope(decider, number, item.recorded_at, item.event, viewer)
    message = None
    if out is not None:
        message = Encoded.message(out.seq, out.type, _encoder.encode(out))
    feed.messages[key] = message
    return message


# (feed, instant) pairs with a timer set: the streams of a feed waiting for one event's release
# share one timer, which wakes the feed (and so every stream of it) when the instant comes. The
# pending timer holds the feed, so its id is not reused meanwhile.
_release_timers: set[tuple[int, float]] = set()


def _release(feed: Feed, key: tuple[int, float]) -> None:
    _release_timers.discard(key)
    feed.wake()


async def _until(hub: FeedHub, feed: Feed, due: float, clock: Callable[[], float]) -> None:
    """Until ``due`` (the clock's time) or the process drains."""
    while (wait := due - clock()) > 0 and not hub.draining:
        key = (id(feed), due)
        if key not in _release_timers:
            _release_timers.add(key)
            asyncio.get_running_loop().call_later(min(wait, KEEPALIVE_SECONDS), _release, feed, key)
        await feed.woken()


async def event_stream(
    hub: FeedHub,
    game_id: uuid.UUID,
    viewer: Viewer,
    after: int,
    *,
    delay: float = 0.0,
    clock: Callable[[], float] = time.time,
    ends: Callable[[int, Any], bool] | None = None,
    needs: int = 0,
) -> AsyncGenerator[ServerSentEventMessage, None]:
    """Events after ``viewer``'s number ``after``, each released ``delay`` s after it was recorded;
    the stream ends before the first event for which ``ends(seq, event)`` holds. ``needs``: a seq
    the caller knows the log holds (read from the primary), which the feed must reach."""
    async with hub.watch(game_id, needs=needs) as feed:
        cursor = 0  # the log seq read up to
        number = 0  # how many of those events the viewer may see
        quiet_since = clock()
        while True:
            # The messages due now go out as one chunk: one write per stream and wake-up, not
            # one per event (a command appends 2-3 events at once).
            batch: list[bytes] = []
            ended = False
            for item in feed.after(cursor):
                cursor = item.seq
                if ends is not None and ends(item.seq, item.event):
                    ended = True
                    break
                if not sees(item.private, viewer):
                    continue
                number += 1
                if number <= after:
                    continue
                due = release_at(item.recorded_at, delay)
                if due > clock():
                    if batch:
                        yield Encoded(b"".join(batch))
                        batch = []
                    await _until(hub, feed, due, clock)
                    if due > clock():  # the process shuts down before this event is due
                        break
                message = _message(feed, item, number, viewer)
                if message is not None:
                    quiet_since = clock()
                    batch.append(message.encoded)
            if batch:
                yield Encoded(b"".join(batch))
            if ended:
                return
            if feed.finished and cursor >= feed.seq:
                return
            if hub.draining:
                yield ServerSentEventMessage(data=None, comment=SHUTDOWN_COMMENT)
                return
            # Keep-alives are timed from the last message this viewer got, so events it may not
            # see change nothing in what it receives, timing included.
            await feed.wait_beyond(cursor, max(0.0, quiet_since + KEEPALIVE_SECONDS - clock()))
            if feed.seq == cursor and clock() >= quiet_since + KEEPALIVE_SECONDS and not hub.draining:
                quiet_since = clock()
                yield ServerSentEventMessage(data=None, comment="keep-alive")
