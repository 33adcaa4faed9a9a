"""Server-Sent Event streams: a seat's live stream and the spectators' delayed stream.

Both resume from ``Last-Event-ID`` (the id of the last event received): nothing is lost or
repeated. Ids are the viewer's own event numbers (projections/numbering), so an event a viewer
may not see is skipped without a gap, and keep-alives follow the last message the viewer got,
not the log's activity. The spectator stream holds every event back until
``recorded_at + spectator_delay``, whatever id the client claims.

A seat's stream, given the service's receipt signer, follows each batch of events it writes with
a ``receipt`` message (no ``id``: resuming is unchanged): the signed receipt of the seat's events
in that batch, in its own numbering (docs/receipts.md). One signature per batch written, not
per event.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import AsyncGenerator, Callable
from typing import Any

import msgspec

from domain.viewers import Seat, Viewer
from projections.envelopes import EventOut, envelope
from projections.numbering import sees
from projections.receipts import ReceiptSigner
from projections.spectator import release_at
from service.streams.feeds import Feed, FeedHub, Item

KEEPALIVE_SECONDS = 15.0
KEEPALIVE_GRAIN = 0.25  # seconds a keep-alive may come late, so that streams share its timer
# The last message of a stream the server closes on shutdown; the client reconnects, with its
# Last-Event-ID, to another instance or to this one once restarted.
SHUTDOWN_COMMENT = "server shutting down: reconnect with Last-Event-ID"
SHUTDOWN = f": {SHUTDOWN_COMMENT}\r\n\r\n".encode()
KEEPALIVE = b": keep-alive\r\n\r\n"
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(EventOut)
_UNSEEN = object()


def _encoded(seq: int, type_: str, data: bytes) -> bytes:
    # msgspec's JSON holds no line break: one ``data:`` line.
    return b"id: %d\r\nevent: %s\r\ndata: %s\r\n\r\n" % (seq, type_.encode(), data)


def _message(feed: Feed, item: Item, number: int, viewer: Viewer) -> bytes | None:
    """The SSE message of one event for one viewer (its ``number`` for that viewer), encoded once
    per feed and viewer: every stream of that feed and viewer sends the same bytes."""
    key = (item.seq, viewer)
    cached = feed.messages.get(key, _UNSEEN)
    if cached is not _UNSEEN:
        return cached  # type: ignore[return-value]
    decider = feed.table.decider if feed.table is not None else None
    out = envelope(decider, number, item.recorded_at, item.event, viewer)
    message = None
    if out is not None:
        message = _encoded(out.seq, out.type, _encoder.encode(out))
    feed.messages[key] = message
    return message


class _Receipts:
    """The seat's events written since the last receipt: its numbers ``before + 1..last``, the
    messages sent of them, and the log's hash at ``last`` (the head the receipt commits to)."""

    def __init__(self, signer: ReceiptSigner, game_id: uuid.UUID, seat: Seat) -> None:
        self.signer, self.game_id, self.seat = signer, game_id, seat
        self.before: int | None = None
        self.last = 0
        self.head = b""
        self.sent: list[bytes] = []

    def saw(self, item: Item, number: int, message: bytes | None) -> None:
        if self.before is None:
            self.before = number - 1
        self.last, self.head = number, item.hash
        if message is not None:
            self.sent.append(message)

    def message(self) -> bytes:
        """The ``receipt`` message of what was written since the last (b"" if nothing was)."""
        if self.before is None or not self.sent:
            return b""
        # The digest covers the events exactly as sent: each message's data read back.
        shown = [_decoder.decode(m[m.index(b"data: ") + 6 : -4]) for m in self.sent]
        events = [(e.seq, e.type, e.data) for e in shown]
        versions = (self.before, self.last)
        text = self.signer.sign(self.game_id, self.seat.index, versions, events, self.head)
        self.before, self.sent = None, []
        return b"event: receipt\r\ndata: %s\r\n\r\n" % _encoder.encode({"receipt": text})


async def _until(hub: FeedHub, feed: Feed, due: float) -> None:
    """Until ``due`` (time.time()) or the process drains."""
    while due > time.time() and not hub.draining:
        waiter = feed.wakeups.at(due)
        try:
            await waiter
        except BaseException:  # cancelled (the client left): not kept until the next wake-up
            feed.wakeups.forget(waiter)
            raise


async def event_stream(
    hub: FeedHub,
    game_id: uuid.UUID,
    viewer: Viewer,
    after: int,
    *,
    delay: float = 0.0,
    ends: Callable[[int, Any], bool] | None = None,
    needs: int = 0,
    receipts: ReceiptSigner | None = None,
) -> AsyncGenerator[bytes, None]:
    """Events after ``viewer``'s number ``after``, each released ``delay`` s after it was recorded,
    as encoded SSE messages; the stream ends before the first event for which ``ends(seq, event)``
    holds. ``needs``: a seq the caller knows the log holds (read from the primary), which the
    feed must reach. ``receipts``: a seat's stream signs a receipt of each batch it writes."""
    feed = await hub.join(game_id, needs=needs)
    items = feed.items  # extended in place
    receipting = _Receipts(receipts, game_id, viewer) if receipts and isinstance(viewer, Seat) else None
    try:
        cursor = 0  # the log seq read up to
        number = 0  # how many of those events the viewer may see
        quiet_since = time.time()
        while True:
            # The messages due now go out as one chunk: one write per stream and wake-up, not
            # one per event (a command appends 2-3 events at once).
            batch: list[bytes] = []
            ended = False
            now = time.time()
            while cursor < len(items):
                item = items[cursor]
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
                if due > now:
                    if batch:
                        yield b"".join(batch) + (receipting.message() if receipting else b"")
                        batch = []
                    await _until(hub, feed, due)
                    now = time.time()
                    if due > now:  # the process shuts down before this event is due
                        break
                message = _message(feed, item, number, viewer)
                if receipting is not None:
                    receipting.saw(item, number, message)
                if message is not None:
                    quiet_since = now
                    batch.append(message)
            if batch:
                yield b"".join(batch) + (receipting.message() if receipting else b"")
            if ended:
                return
            # Over, once it has sent what its caller knows the log holds: a dispute's events come
            # after the end, and the feed may not have read them yet.
            if feed.finished and cursor >= len(items) and cursor >= needs:
                return
            if hub.draining:
                yield SHUTDOWN
                return
            if cursor < len(items):  # more arrived while the batch was sent
                continue
            # Keep-alives are timed from the last message this viewer got, so events it may not
            # see change nothing in what it receives, timing included.
            keepalive = quiet_since + KEEPALIVE_SECONDS
            if time.time() >= keepalive:
                quiet_since = time.time()
                yield KEEPALIVE
                continue
            # Until the next event is released or the keep-alive is due; the instant is rounded
            # up (to KEEPALIVE_GRAIN) so that the streams of a feed share a few timers, not one each.
            feed.wakeups.keepalive_at(math.ceil(keepalive / KEEPALIVE_GRAIN) * KEEPALIVE_GRAIN)
            waiter = feed.wakeups.idle(delay)  # awaited here: a helper would be a frame more
            try:
                await waiter
            except BaseException:  # cancelled (the client left): not kept until the next wake-up
                feed.wakeups.forget(waiter)
                raise
    finally:
        hub.leave(feed)
