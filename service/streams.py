"""Server-Sent Event streams: a seat's live stream and the spectators' delayed stream.

Both resume from ``Last-Event-ID`` (the id of the last event received): nothing is lost or
repeated. Ids are the viewer's own event numbers (projections/numbering), so an event a viewer
may not see is skipped without a gap, and keep-alives follow the last message the viewer got,
not the log's activity. The spectator stream holds every event back until
``recorded_at + spectator_delay``, whatever id the client claims.
"""

from __future__ import annotations

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
from service.tasks import wait_event

KEEPALIVE_SECONDS = 15.0
# The last message of a stream the server closes on shutdown; the client reconnects, with its
# Last-Event-ID, to another instance or to this one once restarted.
SHUTDOWN_COMMENT = "server shutting down: reconnect with Last-Event-ID"
_encoder = msgspec.json.Encoder()


def _message(feed: Feed, item: Item, number: int, viewer: Viewer) -> ServerSentEventMessage | None:
    """The SSE message of one event for one viewer (its ``number`` for that viewer), encoded once
    per feed and viewer."""
    key = (item.seq, viewer)
    if key in feed.messages:
        cached: ServerSentEventMessage | None = feed.messages[key]
        return cached
    decider = feed.table.decider if feed.table is not None else None
    out = envelope(decider, number, item.recorded_at, item.event, viewer)
    message = None
    if out is not None:
        message = ServerSentEventMessage(data=_encoder.encode(out).decode(), event=out.type, id=out.seq)
    feed.messages[key] = message
    return message


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
            for item in feed.after(cursor):
                cursor = item.seq
                if ends is not None and ends(item.seq, item.event):
                    return
                if not sees(item.private, viewer):
                    continue
                number += 1
                if number <= after:
                    continue
                due = release_at(item.recorded_at, delay)
                while (wait := due - clock()) > 0 and not hub.draining:
                    await wait_event(hub.drained, min(wait, KEEPALIVE_SECONDS))
                if due > clock():  # the process shuts down before this event is due
                    break
                message = _message(feed, item, number, viewer)
                if message is not None:
                    quiet_since = clock()
                    yield message
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
