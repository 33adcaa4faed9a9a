"""The object graph of a running service, built once: the pool, the log, the one cache of tables,
the use cases, the streams' hub, the projector, the scheduler and the transparency log's sequencer.

``running`` builds and starts them in order and stops them in reverse; the HTTP app
(``service/http/app.py``) keeps them in its state for the controllers.
"""

from __future__ import annotations

import hmac
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, fields
from typing import Any

from projections.receipts import ReceiptSigner
from service import deployment
from service.app.access import Access
from service.app.auth import Keyring
from service.app.computer_players import ComputerPlayers
from service.app.disputes import Disputes
from service.app.erasure import Erasure
from service.app.games import GameService
from service.app.incidents import Incidents
from service.app.listing import Listings
from service.app.moderators import Moderators
from service.app.players import Players
from service.app.scheduler import Scheduler
from service.app.tables import Tables
from service.config import Settings
from service.readmodels.projector import Projector
from service.runtime.shutdown import on_shutdown_signal
from service.store.batching import AppendBatcher
from service.store.citus import is_citus
from service.store.events import EventStore
from service.store.notifications import Listener, Notifier
from service.store.pool import Pool, create_pool
from service.store.replica import Reads
from service.streams.chunks import Chunks
from service.streams.feeds import FeedHub
from service.transparency.log import Sequencer, TransparencyLog
from service.transparency.push import Pusher


@dataclass(frozen=True, slots=True)
class Services:
    """What the controllers reach, by the names they reach it by (``request.app.state``)."""

    settings: Settings
    keyring: Keyring
    pool: Pool
    store: EventStore
    games: GameService
    listener: Listener
    feeds: FeedHub
    moderators: Moderators
    players: Players
    disputes: Disputes
    listings: Listings
    incidents: Incidents
    access: Access
    chunks: Chunks
    projector: Projector
    transparency: TransparencyLog
    sequencer: Sequencer
    erasure: Erasure

    def by_name(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@asynccontextmanager
async def running(settings: Settings, url: str, keys: Keyring) -> AsyncIterator[Services]:
    """Every part of the service against the database at ``url``, started; stopped on exit."""
    pool = await create_pool(url, max_size=20)
    identity = settings.log_identity()  # made at the first start, not by `playlog openapi`
    async with pool.acquire() as conn:
        try:  # one deployment, one identity: refused before anything starts (docs/scaling.md)
            await deployment.check(conn, settings, identity, keys)
        except deployment.Disagreement:
            await pool.close()
            raise
        store = EventStore(pool, batcher=None if await is_citus(conn) else AppendBatcher(pool))
    # A replica that is down at start only sends its reads to the primary: no connection first.
    replica = None
    if settings.read_database_url:
        replica = EventStore(
            await create_pool(settings.read_database_url, min_size=0, max_size=20),
            personal=store.personal,  # texts are opened from the primary: an erasure shows at once
        )
    reads = Reads(store, replica, wait=settings.replica_wait)
    listener = Listener(url)
    notifier = Notifier(pool, local=listener.deliver)
    tables = Tables(store, settings.cache_games)  # the one cache: commands, feeds, projector
    games = GameService(
        store,
        notifier=notifier if settings.notify_appends else None,
        retries=settings.command_retries,
        tables=tables,
        reads=reads,
        command_log=settings.command_log,
        receipts=ReceiptSigner(identity.keys),
        # Seats' claims (domain/personal.py) from the oldest log key: the same after a rotation.
        claims=hmac.digest(identity.keys[-1].key.private_bytes_raw(), b"playlog/claims/v1", "sha256"),
    )
    listener.on_append(games.invalidate)
    listener.on_resync(games.forget_all)
    scheduler = Scheduler(games, settings.scheduler_interval)
    computer_players = ComputerPlayers(games, settings.computer_players_interval)
    feeds = FeedHub(reads, listener, tables)

    def forget_erased(game_id: uuid.UUID) -> None:  # docs/erasure.md
        games.forget(game_id)
        feeds.forget(game_id)
        store.personal.forget()

    listener.on_erased(forget_erased)
    moderators = Moderators(pool, settings.moderator_cache_seconds)
    listener.on_auth(moderators.on_auth)
    listener.on_resync(moderators.invalidate)
    pusher = Pusher(settings.witness_submission_urls(), settings.witnesses())
    sequencer = Sequencer(url, identity, settings.log_interval, pusher)
    projector = Projector(store, url, listener, tables=tables)
    services = Services(
        settings=settings,
        keyring=keys,
        pool=pool,
        store=store,
        games=games,
        listener=listener,
        feeds=feeds,
        moderators=moderators,
        players=Players(pool, keys, settings.player_token_lifetime),
        disputes=Disputes(games, pool, settings.dispute_window),
        listings=Listings(reads),
        incidents=Incidents(pool, games.forget),
        access=Access(games, settings.seat_token_after_game),
        chunks=Chunks(feeds, games),
        projector=projector,
        transparency=TransparencyLog(pool, identity, settings.witnesses()),
        sequencer=sequencer,
        erasure=Erasure(games, pool, forget=forget_erased),
    )
    notifier.start()
    listener.start()
    scheduler.start()
    computer_players.start()
    if settings.read_models:
        projector.start()
    sequencer.start()
    # On SIGTERM/SIGINT, streams end with a last comment before uvicorn waits for responses.
    unhook = on_shutdown_signal(feeds.drain)
    try:
        yield services
    finally:
        unhook()
        feeds.drain()
        await sequencer.stop()
        await projector.stop()
        await computer_players.stop()
        await scheduler.stop()
        await feeds.close()
        await listener.stop()
        await notifier.stop()
        await pool.close()
        if replica is not None:
            await replica.db.close()
