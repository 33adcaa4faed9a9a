"""Webhooks (issue 54; docs/api.md, "Webhooks"): a player's subscriptions, what they are told,
and the loop that delivers it.

What is told
    ``notices`` compares a game's table before and after the events the projector folds in one
    round (service/readmodels/models.py) and names, for each seat a player holds: ``your_turn``
    when the seat's view had no moves and now has some, ``game_over`` when the game ended,
    ``dispute_changed`` when a dispute the seat raised changed. A message holds the game, the
    seat, the seat's version in its own numbering (RULES 3: never the log's seq) and that word:
    what the seat's own view shows at that version, nothing more (no card, no count). When the
    projector folds a game from its start again (read models emptied by a migration), a game
    finished long ago tells nothing, and a running one tells each seat that may act again.

Queued once, never lost
    The projector writes the messages (``enqueue``) in the transaction that folds their events, one
    row per subscription of the player: off the command path, and once per event, whichever
    instance projects. A rebuild of the read models queues nothing.

Delivered at least once
    Every instance runs ``Deliverer``: it claims due rows with ``FOR UPDATE SKIP LOCKED`` and moves
    their next attempt a lease ahead in the same statement, so no other instance sends them
    meanwhile and an instance that dies leaves them to the others once the lease ends. A 2xx
    answer delivers; anything else retries after a doubling pause (capped) until the message is
    ``retry_for`` seconds old (and is deleted that long after it is done with). A subscription
    failing for ``pause_after`` seconds is paused, its reason shown to its owner; registering the
    URL again starts afresh.

Signed
    ``Playlog-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<body>">`` with the
    subscription's secret; ``Playlog-Delivery`` the delivery id (the same on every retry: a
    receiver drops what it has seen).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal

import msgspec

from domain.viewers import Seat
from projections.numbering import version_for
from projections.read_models import dispute_changes
from projections.seat_view import may_act
from projections.table import Table
from service.app import webhook_targets
from service.app.errors import ServiceError, not_found
from service.runtime.log import get_logger
from service.store.pool import Pool
from service.store.tasks import Backoff, log_failure, stop

log = get_logger("playlog.webhooks")

MAX_SUBSCRIPTIONS = 10  # per player
FIRST_RETRY, MAX_RETRY = 1.0, 300.0  # seconds between two attempts of one message
CLAIM_BATCH = 20
REFOLDED_AFTER = 3600.0  # a game this old folded from its start and finished: old news
PRUNE_EVERY = 60.0  # seconds between two deletions of the messages done with

NoticeKind = Literal["your_turn", "game_over", "dispute_changed"]


class Notice(msgspec.Struct, frozen=True):
    """One message's body (the delivery id is added when it is sent)."""

    event: NoticeKind
    game_id: uuid.UUID
    seat: int
    version: int  # the seat's version in its own numbering


class WebhookOut(msgspec.Struct, frozen=True):
    webhook_id: uuid.UUID
    url: str
    created_at: datetime
    state: Literal["active", "paused"]
    paused_reason: str | None  # why deliveries stopped (paused); registering the URL again resumes
    failing_since: datetime | None  # the first failed attempt since the last delivered one
    last_error: str | None  # what the last failed attempt met


class WebhookCreatedOut(msgspec.Struct, frozen=True):
    webhook_id: uuid.UUID
    url: str
    secret: str  # the key of Playlog-Signature's HMAC: shown this once


def notices(game_id: uuid.UUID, before: Table | None, after: Table | None) -> list[tuple[str, Notice]]:
    """What each player holding a seat is told of the game going from ``before`` to ``after``:
    (player id, message) pairs."""
    if after is None or (before is not None and before.version >= after.version):
        return []
    if before is None and after.status == "finished" and time.time() - after.created_at > REFOLDED_AFTER:
        return []  # an old finished game folded from its start: the read models were emptied
    told: list[tuple[str, Notice]] = []

    def tell(seat: int, event: NoticeKind) -> None:
        player = after.players[seat]
        if player is not None:
            told.append((player, Notice(event, game_id, seat, version_for(after, Seat(seat)))))

    ended = after.status == "finished" and (before is None or before.status != "finished")
    for seat in range(len(after.players)):
        if ended:
            tell(seat, "game_over")
        elif may_act(after, seat) and (
            before is None or seat >= len(before.players) or not may_act(before, seat)
        ):
            tell(seat, "your_turn")
    for seat in sorted({d.seat for d in dispute_changes(game_id, before, after) if d.seat is not None}):
        if seat < len(after.players):
            tell(seat, "dispute_changed")
    return told


ENQUEUE = """
INSERT INTO webhook_deliveries (delivery_id, webhook_id, body)
SELECT gen_random_uuid(), s.webhook_id, n.body
FROM unnest($1::uuid[], $2::jsonb[]) AS n (player_id, body)
JOIN webhook_subscriptions s ON s.player_id = n.player_id AND s.state = 'active'
"""


def enqueue_args(told: Iterable[tuple[str, Notice]]) -> tuple[list[uuid.UUID], list[str]] | None:
    """``ENQUEUE``'s arguments for these messages (None: nothing to queue)."""
    pairs = [(uuid.UUID(player), msgspec.json.encode(notice).decode()) for player, notice in told]
    if not pairs:
        return None
    return [p for p, _ in pairs], [b for _, b in pairs]


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


class Webhooks:
    """A player's subscriptions: register (the URL checked), list, delete."""

    def __init__(self, pool: Pool, *, allow_private: bool) -> None:
        self._pool = pool
        self.allow_private = allow_private

    async def register(self, player_id: uuid.UUID, url: str) -> WebhookCreatedOut:
        await webhook_targets.check(url, allow_private=self.allow_private)
        webhook_id, secret = uuid.uuid4(), f"whsec_{secrets.token_urlsafe(32)}"
        added = await self._pool.fetchval(
            "INSERT INTO webhook_subscriptions (webhook_id, player_id, url, secret)"
            " SELECT $1, $2, $3, $4"
            " WHERE (SELECT count(*) FROM webhook_subscriptions WHERE player_id = $2) < $5"
            " RETURNING webhook_id",
            webhook_id,
            player_id,
            url,
            secret,
            MAX_SUBSCRIPTIONS,
        )
        if added is None:
            raise ServiceError(
                409,
                "too_many_webhooks",
                f"A player has {MAX_SUBSCRIPTIONS} webhooks at most: delete one first.",
            )
        return WebhookCreatedOut(webhook_id=webhook_id, url=url, secret=secret)

    async def list(self, player_id: uuid.UUID) -> list[WebhookOut]:
        rows = await self._pool.fetch(
            "SELECT webhook_id, url, created_at, state, paused_reason, failing_since, last_error"
            " FROM webhook_subscriptions WHERE player_id = $1 ORDER BY created_at, webhook_id",
            player_id,
        )
        return [WebhookOut(**dict(row)) for row in rows]

    async def delete(self, player_id: uuid.UUID, webhook_id: uuid.UUID) -> None:
        deleted = await self._pool.fetchval(
            "DELETE FROM webhook_subscriptions WHERE webhook_id = $1 AND player_id = $2 RETURNING 1",
            webhook_id,
            player_id,
        )
        if deleted is None:
            raise not_found(f"Webhook {webhook_id}")


CLAIM = """
UPDATE webhook_deliveries d SET attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => $2)
FROM (
    SELECT delivery_id FROM webhook_deliveries
    WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= now()
    ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
) due, webhook_subscriptions s
WHERE d.delivery_id = due.delivery_id AND s.webhook_id = d.webhook_id AND s.state = 'active'
RETURNING d.delivery_id, d.body, d.attempts, d.created_at, s.webhook_id, s.url, s.secret
"""

DELIVERED = """
WITH done AS (UPDATE webhook_deliveries SET delivered_at = now() WHERE delivery_id = $1)
UPDATE webhook_subscriptions SET failing_since = NULL, last_error = NULL WHERE webhook_id = $2
"""

FAILED = """
WITH later AS (
    UPDATE webhook_deliveries
    SET next_attempt_at = now() + make_interval(secs => $3),
        gave_up_at = CASE WHEN created_at < now() - make_interval(secs => $4) THEN now() END
    WHERE delivery_id = $1
)
UPDATE webhook_subscriptions s
SET failing_since = f.since, last_error = $5,
    state = CASE WHEN f.long THEN 'paused' ELSE s.state END,
    paused_reason = CASE WHEN f.long
        THEN 'failing since '
            || to_char(f.since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ': ' || $5
        ELSE s.paused_reason END
FROM (
    SELECT coalesce(failing_since, now()) AS since,
           coalesce(failing_since, now()) < now() - make_interval(secs => $6) AS long
    FROM webhook_subscriptions WHERE webhook_id = $2
) f
WHERE s.webhook_id = $2
"""


PRUNE = """
DELETE FROM webhook_deliveries
WHERE coalesce(delivered_at, gave_up_at) < now() - make_interval(secs => $1)
"""


class Deliverer:
    """Every instance's delivery loop (see the module)."""

    def __init__(
        self,
        pool: Pool,
        *,
        allow_private: bool,
        interval: float = 0.5,
        timeout: float = 5.0,
        retry_for: float = 86400.0,
        pause_after: float = 86400.0,
    ) -> None:
        self._pool = pool
        self.allow_private = allow_private
        self.interval = interval
        self.timeout = timeout
        self.retry_for = retry_for
        self.pause_after = pause_after
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="playlog-webhooks")

    async def stop(self) -> None:
        await stop(self._task)

    async def tick(self) -> int:
        """Send the messages due now; how many were claimed."""
        rows = await self._pool.fetch(CLAIM, CLAIM_BATCH, self.timeout * 2 + 1.0)
        await asyncio.gather(*(self._send(row) for row in rows))
        return len(rows)

    async def _send(self, row: Any) -> None:
        body = msgspec.json.encode(
            {"delivery_id": str(row["delivery_id"]), **msgspec.json.decode(row["body"])}
        )
        headers = {
            "Playlog-Delivery": str(row["delivery_id"]),
            "Playlog-Signature": signature(row["secret"], int(time.time()), body),
        }
        try:
            target = await webhook_targets.check(row["url"], allow_private=self.allow_private)
            status = await webhook_targets.post(target, body, headers, self.timeout)
            error = None if 200 <= status < 300 else f"the receiver answered {status}"
        except webhook_targets.Target as exc:
            error = exc.message
        except (OSError, TimeoutError, ValueError) as exc:
            error = (
                f"no answer ({type(exc).__name__}: {exc})"[:200]
                if str(exc)
                else f"no answer ({type(exc).__name__})"
            )
        if error is None:
            await self._pool.execute(DELIVERED, row["delivery_id"], row["webhook_id"])
            return
        pause = min(MAX_RETRY, FIRST_RETRY * 2 ** (row["attempts"] - 1))
        await self._pool.execute(
            FAILED, row["delivery_id"], row["webhook_id"], pause, self.retry_for, error, self.pause_after
        )

    async def _run(self) -> None:
        backoff = Backoff()
        pruned = 0.0
        while True:
            try:
                if time.monotonic() - pruned >= PRUNE_EVERY:
                    # Done with for as long as a message is retried: its id is no use to anyone.
                    await self._pool.execute(PRUNE, self.retry_for)
                    pruned = time.monotonic()
                claimed = await self.tick()
                backoff.reset()
            except Exception as exc:  # any: a dead loop would deliver nothing again
                log_failure(log, "webhooks_failed", exc)
                await backoff.pause()
                continue
            if claimed < CLAIM_BATCH:
                await asyncio.sleep(self.interval)
