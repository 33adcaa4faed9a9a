"""The one loop every change to a game goes through: ``GameLoop.execute``.

Load the table (the cache, then the log's tail), decide with the game's composed decider
(domain/registry.py's ``Kind``: the table's rules, the game's inside, the disputes beside), append
with the expected seq and the command's idempotency key, notify. On a conflict, fold what was
missed and decide again, a bounded number of times. The cache only saves reads: a stale entry
makes the append conflict, never a wrong event, and a refusal decided on a cached table stands
only once the log confirms it. A cache *ahead* of the log (or a head the log lacks) means
acknowledged seqs are missing: an incident (service/app/incidents.py), never a retry.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain import randomness, registry
from domain.decider import Context
from domain.errors import RuleViolation
from domain.personal import SALT_BYTES, claim, claim_salt
from domain.registry import Kind
from domain.table import seeds
from domain.table.commands import CreateGame, JoinSeat, TableCommand
from domain.table.decision import Decision
from domain.table.rules import admit
from domain.viewers import Viewer
from projections import commands
from projections.numbering import version_for
from projections.personal import seal_append
from projections.receipts import ReceiptSigner
from projections.table import Table
from service.app.errors import ServiceError, not_found
from service.app.idempotency import Keyed, key_reused
from service.app.incidents import under_incident
from service.app.tables import Tables
from service.runtime import metrics
from service.runtime.log import get_logger
from service.store.events import (
    ConcurrencyConflict,
    EventStore,
    GameUnderIncident,
    HeadNotInLog,
    InvalidExpectedSeq,
    NewEvent,
    StoredEvent,
)
from service.store.notifications import Notifier
from service.store.replica import Reads

log = get_logger("playlog.commands")


class Executed(msgspec.Struct, frozen=True):
    """What one ``execute`` did: the table after it, and the events it appended.

    ``duplicate``: the idempotency key had been used by the same request before; ``stored`` are
    that earlier command's events and nothing new was appended.
    """

    table: Table
    events: Sequence[Any]
    stored: list[StoredEvent]
    duplicate: bool = False


class GameLoop:
    """Loading, the one loop and its append: what every use case of a game shares."""

    def __init__(
        self,
        store: EventStore,
        *,
        notifier: Notifier | None = None,
        retries: int = 5,
        tables: Tables | None = None,
        clock: Callable[[], float] = time.time,
        reads: Reads | None = None,
        command_log: bool = True,
        receipts: ReceiptSigner | None = None,
        claims: bytes | None = None,
    ) -> None:
        self.store = store
        # The key a seat's claim is derived with (domain/personal.py): the service's own secret.
        self._claims = claims or os.urandom(32)
        self.command_log = command_log
        self.receipts = receipts  # signs every answer to a seat's command (docs/receipts.md)
        self.reads = reads or Reads(store)  # what a replica may serve (service/store/replica.py)
        self.notifier = notifier
        self.retries = retries
        self.tables = tables or Tables(store)  # the one cache (service/app/tables.py)
        self.clock = clock
        self._locks: weakref.WeakValueDictionary[uuid.UUID, asyncio.Lock] = weakref.WeakValueDictionary()

    # -- loading -------------------------------------------------------------------------------

    async def load(self, game_id: uuid.UUID, *, fresh: bool = False, cached_ok: bool = False) -> Table:
        """The table at the log's latest seq (the cache supplies a prefix, the log the rest).

        ``cached_ok`` returns a cached table without asking the log: for callers whose append
        carries its version as the expected seq (a stale entry then conflicts), and for views,
        whose entries other instances' notifications invalidate.
        """
        if cached_ok and not fresh and (cached := self.tables.latest(game_id)) is not None:
            return cached
        table = await self.tables.fold(game_id, fresh=fresh)
        if table is None:
            raise not_found(f"Game {game_id}")
        return table

    def claim(self, game_id: uuid.UUID, occupancy: str) -> bytes:
        """The claim of the seat held by ``occupancy``: given to its holder when it joins."""
        return claim(self._claims, game_id.bytes, occupancy)

    def invalidate(self, game_id: uuid.UUID, seq: int) -> None:
        """An append reached ``seq`` (maybe through another instance): an older table is stale."""
        self.tables.invalidate(game_id, seq)

    def forget(self, game_id: uuid.UUID) -> None:
        self.tables.forget(game_id)

    def forget_all(self) -> None:
        self.tables.clear()

    def _lock(self, game_id: uuid.UUID) -> asyncio.Lock:
        lock = self._locks.get(game_id)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[game_id] = lock
        return lock

    async def bind_key(self, caller: str, key: str | None, game_id: uuid.UUID) -> None:
        """Refuse ``key`` unless ``caller`` (whose token reaches several games) sent it for
        ``game_id`` first: each game's log knows only its own keys (migration 0013). A key is
        bound to the first existing game it is sent for, whatever that game answers."""
        if key is not None and await self.store.key_game(caller, key, game_id) != game_id:
            raise key_reused()

    async def _context(self, table: Table, game_id: uuid.UUID) -> Context:
        """What ``decide`` may use at ``table``: the draws of its committed seeds (a game older
        than seeds: the system's), the clock, the rules version (domain/table/seeds.py)."""
        seed = await self.store.seeds.of(game_id) if table.seed_commitment is not None else None
        # A game imported while running has a commitment but not its seed here: the system's.
        known = seed is not None or table.seed_commitment is None
        rng = (seeds.draws(table, game_id, seed) if known else None) or random.SystemRandom()
        return seeds.context(table, rng, self.clock(), seed)

    def _created(self, command: CreateGame) -> tuple[Context, bytes | None]:
        """A create's context, the server's new seed committed in it (none for a seeded game),
        and that seed, which its append stores."""
        seed = None if command.options.get("seed") is not None else self.store.seeds.draw()
        committed = None if seed is None else randomness.server_commitment(seed)
        return Context(randomness.Draws(None, 0), self.clock(), None, seed_commitment=committed), seed

    # -- the one loop ------------------------------------------------------------------------

    async def execute(
        self,
        game_id: uuid.UUID,
        command: TableCommand,
        actor: str,
        *,
        command_id: str | None = None,
        fingerprint: str | None = None,
        expected_version: int | None = None,
        viewer: Viewer | None = None,
        table: Table | None = None,
    ) -> Executed:
        """Load, decide, append (expected seq, idempotency key), notify; retry a bounded number
        of times on a conflict.

        The first attempt trusts the cache: the append's expected seq guards it, and a refusal
        decided on a cached table is only final once the log confirms that table is current.
        ``expected_version`` is in ``viewer``'s numbering: only a change it can see conflicts.
        ``command_id`` (with the request's ``fingerprint``, service/app/idempotency.py) makes the
        command idempotent: a second request with it gets the first one's events whatever it
        carries (``expected_version`` included). The append answers a known key before anything
        else, so the key is looked up here only before a refusal is answered (a stale version,
        a rule's refusal, a game too busy): a retry is never refused for what its first run did.
        ``table``: the game's table as the caller already holds it (a guard's, from the cache), decided
        on first rather than taken again (unless a command of this instance appended past it
        meanwhile: then the cache's newer table). The decision is the events and the table after
        them (domain/table/decision.py): that table is the one cached, never folded again.
        """
        if isinstance(command, CreateGame):  # a new game: nothing to load, nothing to race
            kind = registry.of(command.kind)
            ctx, seed = self._created(command)
            created = kind.table.decide(None, command, ctx)
            recorded = commands.record(command, ctx.now, len(created.events))
            return await self._append(
                game_id, kind, None, command, created, command_id, fingerprint, actor, recorded, seed
            )
        async with self._lock(game_id):
            if table is not None:  # unless a command of this instance went past it meanwhile
                table = self.tables.past(game_id, table) or table
            else:
                table = await self.load(game_id, cached_ok=True)
            kind = registry.of(table.kind)
            rules = kind.table
            checked = False  # whether ``table`` was just read from the log
            for _ in range(self.retries):
                seen = table.version if viewer is None else version_for(table, viewer)
                if expected_version is not None and expected_version != seen:
                    if expected_version > seen and not checked:
                        table, checked = await self.load(game_id, fresh=True), True
                        continue
                    if (earlier := await self._earlier(game_id, command_id, fingerprint)) is not None:
                        return earlier
                    admit(table, command)  # the seat's version is told to its holder only
                    raise ServiceError(
                        409,
                        "version_conflict",
                        f"Expected version {expected_version}, the game is at {seen}.",
                        current_version=seen,
                    )
                ctx = await self._context(table, game_id)
                try:
                    decision = rules.decide(table, command, ctx)
                except RuleViolation:
                    if (earlier := await self._earlier(game_id, command_id, fingerprint)) is not None:
                        return earlier
                    if checked:
                        raise
                    fresh = await self.load(game_id, fresh=True)
                    if fresh.version == table.version:
                        raise
                    table, checked = fresh, True
                    continue
                if not decision.events:  # nothing to do now: a retry still gets what its first run did
                    earlier = await self._earlier(game_id, command_id, fingerprint)
                    return earlier or Executed(table=table, events=[], stored=[])
                recorded = commands.record(command, ctx.now, len(decision.events))
                try:
                    return await self._append(
                        game_id, kind, table, command, decision, command_id, fingerprint, actor, recorded
                    )
                except ConcurrencyConflict:
                    table, checked = await self.load(game_id, fresh=True), True
                except InvalidExpectedSeq as exc:
                    # The cache holds seqs this service acknowledged (or read) that the log
                    # lacks: never decide again over them.
                    found = exc.current if exc.current is not None else await self.store.current_seq(game_id)
                    raise await self._incident(game_id, "cache_ahead_of_log", table.version, found) from None
                except HeadNotInLog as exc:
                    head = await self.store.current_seq(game_id)
                    raise await self._incident(game_id, "head_not_in_log", head, exc.log_seq) from None
                except GameUnderIncident:
                    self.forget(game_id)
                    raise under_incident(game_id) from None
            if (earlier := await self._earlier(game_id, command_id, fingerprint)) is not None:
                return earlier
            seen = table.version if viewer is None else version_for(table, viewer)
            raise ServiceError(409, "version_conflict", "The game is too busy; retry.", current_version=seen)

    async def _incident(
        self, game_id: uuid.UUID, reason: str, acknowledged: int, log_seq: int
    ) -> ServiceError:
        """Seqs up to ``acknowledged`` are missing from the log (it ends at ``log_seq``): an
        incident. Logged and counted; the game stops taking commands until a moderator clears it
        (service/app/incidents.py)."""
        log.error(
            "acknowledged_missing",
            game_id=str(game_id),
            reason=reason,
            acknowledged=acknowledged,
            log_seq=log_seq,
            missing_seqs=f"{log_seq + 1}-{acknowledged}",
        )
        metrics.ACKNOWLEDGED_MISSING.inc()
        self.forget(game_id)
        await self.store.raise_incident(game_id, reason=reason, acknowledged=acknowledged, log_seq=log_seq)
        return under_incident(game_id)

    async def _append(
        self,
        game_id: uuid.UUID,
        kind: Kind,
        table: Table | None,
        command: TableCommand,
        decision: Decision,
        command_id: str | None,
        fingerprint: str | None,
        actor: str,
        recorded: dict[str, Any],
        seed: bytes | None = None,
    ) -> Executed:
        """Append ``decision``'s events with the expected seq (``table``'s version), remember,
        notify; a used ``command_id`` appends nothing. ``recorded``: the command as the log keeps
        it (projections/commands.py); ``seed``: a new game's, stored with its create."""
        events, new_table = decision.events, decision.table

        # One salt per append: a text and the command's copy of it share one seal. A seat's
        # name is salted from the claim its holder is given (domain/personal.py).
        def draw_salt() -> bytes:
            if isinstance(command, JoinSeat):
                return claim_salt(self.claim(game_id, command.occupancy))
            return os.urandom(SALT_BYTES)

        sealed = seal_append(kind, table, command, events, recorded, draw_salt)
        result = await self.store.append(
            game_id,
            table.version if table else 0,
            [NewEvent(type=tag, data=body, schema_version=version) for tag, version, body in sealed.stored],
            command_id=command_id,
            actor=actor,
            fingerprint=fingerprint,
            due_at=kind.table.deadline(new_table),
            command=sealed.recorded,
            kept=sealed.kept,
            seed=seed,
        )
        if result.duplicate:
            if result.fingerprint != fingerprint:
                raise key_reused()
            return Executed(table=await self.load(game_id), events=[], stored=result.events, duplicate=True)
        self.tables.offer(game_id, new_table)
        if self.notifier is not None:
            self.notifier.publish(game_id, new_table.version)
        return Executed(table=new_table, events=sealed.events, stored=result.events)

    async def _earlier(
        self, game_id: uuid.UUID, command_id: str | None, fingerprint: str | None
    ) -> Executed | None:
        """The earlier run of a client's key (``command_id`` with its ``fingerprint``), if the log
        has one: asked before any refusal is answered (same request, or refused)."""
        if command_id is None or fingerprint is None:
            return None
        found = await self.store.command_events(game_id, command_id)
        if found is None:
            return None
        stored, original_fingerprint = found
        if original_fingerprint != fingerprint:
            raise key_reused()
        return Executed(table=await self.load(game_id), events=[], stored=stored, duplicate=True)


def key_arguments(keys: Keyed | None) -> dict[str, Any]:
    """``execute``'s idempotency arguments for a request sent with (or without) a key."""
    return {} if keys is None else {"command_id": keys.command_id, "fingerprint": keys.fingerprint}
