"""The game service: every change to a game is one command through one loop, ``execute``.

Load the table (the cache, then the log's tail), decide with the game's composed decider
(domain/table: the table's rules, the game's inside), append with the expected seq and the
command's idempotency key, notify. On a conflict, fold what was missed and decide again, a bounded
number of times. The cache only saves reads: a stale entry makes the append conflict, never a
wrong event, and a refusal decided on a cached table stands only once the log confirms it. A
cache *ahead* of the log (or a head the log lacks) means acknowledged seqs are missing: an
incident (service/app/incidents.py), never a retry.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
import uuid
import weakref
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import msgspec

from domain import randomness, registry
from domain.decider import Context
from domain.errors import RuleViolation
from domain.registry import Kind
from domain.table import seeds
from domain.table.commands import (
    ActOnDeadline,
    CreateGame,
    JoinSeat,
    LeaveSeat,
    Play,
    RevealSeed,
    StartGame,
    TableCommand,
)
from domain.table.events import SeatJoined
from domain.viewers import Seat, Viewer
from projections import commands
from projections import table as tables
from projections.disputes import RuledOutcome, ruled_outcome
from projections.envelopes import EventOut, envelopes
from projections.numbering import count_seen, private_seat, same_for_everyone, sees, version_for
from projections.receipts import ReceiptSigner
from projections.spectator import released_by, shown_at
from projections.table import Table
from service.app import bodies, idempotency
from service.app.auth import Principal
from service.app.errors import ServiceError, not_found
from service.app.idempotency import Keyed, created_game_id, key_reused, keyed, seat_caller
from service.app.incidents import under_incident
from service.app.legacy_tokens import bound
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

__all__ = ["CommandResult", "Executed", "GameService", "Lobbied", "SeatViewOut", "seat_view"]

log = get_logger("playlog.commands")
_encoder = msgspec.json.Encoder()


class SeatViewOut(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    status: str
    version: int  # how many events this seat may see (projections/numbering)
    seat: int
    seats: list[str | None]
    view: Any  # the game's view for this seat (None before the game starts)
    # The seat's own moves now: its legal commands but leaving (conceding), which is always legal
    # and never a move; empty while the game waits for another seat.
    moves: list[Any]
    winners: list[int] | None = None
    ruled_outcome: RuledOutcome | None = None  # once an upheld verdict changed the outcome


def _moves(table: Table, seat: int) -> list[Any]:
    if table.status != "running":
        return []
    decider = table.decider
    leaving = type(decider.concede()) if decider.concede is not None else None
    return [c for c in decider.legal_commands(table.state, seat) if type(c) is not leaving]


def seat_view(game_id: uuid.UUID, table: Table, seat: int) -> SeatViewOut:
    """What ``seat`` sees of ``table``, with its legal commands and, apart, its own moves."""
    return SeatViewOut(
        game_id=game_id,
        kind=table.kind,
        status=table.status,
        version=version_for(table, Seat(seat)),
        seat=seat,
        seats=list(table.seats),
        view=table.decider.view(table.state, Seat(seat)) if table.status != "open" else None,
        winners=list(table.outcome.winners) if table.outcome else None,
        ruled_outcome=ruled_outcome(table),
        moves=_moves(table, seat),
    )


class CommandResult(msgspec.Struct, frozen=True):
    version: int  # the seat's version right after the command (projections/numbering)
    events: list[EventOut]
    view: SeatViewOut | None = None  # the seat's view right after, when asked for (``?view=true``)
    receipt: Annotated[
        str | None,
        msgspec.Meta(
            description=(
                "The service's signed receipt of this answer (docs/receipts.md): a signed note over"
                " the game, seat, versions, a digest of these events, a commitment to the game's head"
                " and the command's fingerprint and key; null when the command appended nothing"
            )
        ),
    ] = None


class Lobbied(msgspec.Struct, frozen=True):
    """A lobby action's answer: the table right after it, and where and when its first event was
    recorded (a token issued for it is named and dated by that event: a replay issues the same)."""

    table: Table
    seq: int
    recorded_at: float


class Executed(msgspec.Struct, frozen=True):
    """What one ``execute`` did: the table after it, and the events it appended.

    ``duplicate``: the idempotency key had been used by the same request before; ``stored`` are
    that earlier command's events and nothing new was appended.
    """

    table: Table
    events: Sequence[Any]
    stored: list[StoredEvent]
    duplicate: bool = False


class _Sent(msgspec.Struct, frozen=True):
    """What a seat's command request was, as its receipt names it."""

    fingerprint: str
    key: str | None


def _holds(table: Table, seat: int, occupancy: str | None) -> bool:
    return 0 <= seat < len(table.occupancies) and table.occupancies[seat] == occupancy


def _new_event(kind: Kind, event: Any) -> NewEvent:
    tag, version = kind.tags[type(event)]  # fixed per kind (domain/registry.py)
    return NewEvent(type=tag, data=_encoder.encode(event), schema_version=version)


# (kind, outcome) -> the commands counter's child: ``labels()`` checks and sorts its labels each time.
_command_counters: dict[tuple[str, str], Any] = {}


def _count_command(kind: str, outcome: str) -> None:
    counter = _command_counters.get((kind, outcome))
    if counter is None:
        counter = _command_counters[(kind, outcome)] = metrics.COMMANDS.labels(kind=kind, outcome=outcome)
    counter.inc()


def _command_type(body: bytes) -> str | None:
    try:
        value = bodies.decode_any(body)
    except ServiceError:  # malformed, or nested too deep
        return None
    command = value.get("type") if isinstance(value, dict) else None
    return command if isinstance(command, str) else None


class GameService:
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
    ) -> None:
        self.store = store
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

    async def _context(self, table: Table, game_id: uuid.UUID) -> Context:
        """What ``decide`` may use at ``table``: the draws of its committed seeds (a game older
        than seeds: the system's), the clock, the rules version (domain/table/seeds.py)."""
        seed = await self.store.seeds.of(game_id) if table.seed_commitment is not None else None
        # A game imported while running has a commitment but not its seed here: the system's.
        known = seed is not None or table.seed_commitment is None
        rng = (seeds.draws(table, game_id, seed) if known else None) or random.SystemRandom()
        return seeds.context(table, rng, self.clock(), seed)

    async def _created(self, game_id: uuid.UUID, command: CreateGame) -> Context:
        """A create's context: the server's new seed committed (none for a seeded game)."""
        committed = None
        if command.options.get("seed") is None:
            committed = randomness.server_commitment(await self.store.seeds.new(game_id))
        return Context(randomness.Draws(None, 0), self.clock(), None, seed_commitment=committed)

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
        current: Table | None = None,
        held: bool = False,
        kind: Kind | None = None,
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
        ``current``: the game's table as the caller just took it from the cache (a guard's), decided
        on first instead of taking it again; ``held``: the caller checked on ``current`` that the
        command's holder holds its seat (a guard did), so the rules do not check it again there
        (a table read again is checked); ``kind``: the game's kind, if the caller looked it up.
        """
        if isinstance(command, CreateGame):  # a new game: nothing to load, nothing to race
            kind = registry.of(command.kind)
            ctx = await self._created(game_id, command)
            events: Sequence[Any] = kind.table.decide(None, command, ctx)
            recorded = commands.record(command, ctx.now, len(events))
            return await self._append(game_id, kind, None, events, command_id, fingerprint, actor, recorded)
        async with self._lock(game_id):
            table = current if current is not None else await self.load(game_id, cached_ok=True)
            kind = kind if kind is not None else registry.of(table.kind)
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
                    raise ServiceError(
                        409,
                        "version_conflict",
                        f"Expected version {expected_version}, the game is at {seen}.",
                        current_version=seen,
                    )
                ctx = await self._context(table, game_id)
                try:
                    decided = _unheld(command) if held and table is current else command
                    events = rules.decide(table, decided, ctx)  # as decided: folded (domain/batch.py)
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
                if not events:  # nothing to do now: a retry still gets what its first run did
                    earlier = await self._earlier(game_id, command_id, fingerprint)
                    return earlier or Executed(table=table, events=[], stored=[])
                recorded = commands.record(command, ctx.now, len(events))
                try:
                    return await self._append(
                        game_id, kind, table, events, command_id, fingerprint, actor, recorded
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
        events: Sequence[Any],
        command_id: str | None,
        fingerprint: str | None,
        actor: str,
        recorded: dict[str, Any],
    ) -> Executed:
        """Append with the expected seq, remember, notify; a used ``command_id`` appends nothing.
        ``recorded``: the command as the log keeps it (projections/commands.py)."""
        new_table = kind.table.fold(table, events)
        assert new_table is not None
        result = await self.store.append(
            game_id,
            table.version if table else 0,
            [_new_event(kind, e) for e in events],
            command_id=command_id,
            actor=actor,
            fingerprint=fingerprint,
            due_at=kind.table.deadline(new_table),
            command=recorded,
        )
        if result.duplicate:
            if result.fingerprint != fingerprint:
                raise key_reused()
            return Executed(table=await self.load(game_id), events=[], stored=result.events, duplicate=True)
        self.tables.offer(game_id, new_table)
        if self.notifier is not None:
            self.notifier.publish(game_id, new_table.version)
        return Executed(table=new_table, events=events, stored=result.events)

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

    # -- lobby ---------------------------------------------------------------------------------

    async def create(
        self,
        kind: str,
        options: dict[str, Any],
        *,
        public: bool,
        spectator_delay: float | None,
        key: str | None = None,
        body: bytes = b"",
    ) -> tuple[uuid.UUID, Lobbied]:
        """A new game (with ``key``: the one the first create with that key and ``body`` made)."""
        game_id = created_game_id(key) if key is not None else uuid.uuid4()
        command = CreateGame(kind=kind, options=options, public=public, spectator_delay=spectator_delay)
        keys = keyed(key, "host", "createGame", (), body)
        done = await self.execute(game_id, command, "lobby", **_ids(keys))
        return game_id, (await self._answered(game_id, done))[0]

    async def join(
        self,
        game_id: uuid.UUID,
        name: str,
        *,
        player: str | None = None,
        key: str | None = None,
        body: bytes = b"",
        seed_commitment: str | None = None,
    ) -> tuple[int, Lobbied]:
        """Take the first free seat for ``name`` (and ``player``, unless a guest); the table after
        holds the new occupancy id, which the seat token carries. With ``key``: the seat the
        first join with that key (and caller and ``body``) took, as it was taken."""
        caller = f"player:{player}" if player else "guest"
        if player and key is not None:  # a player's token reaches every game
            await self.load(game_id, cached_ok=True)  # a key sent for no game binds to none
            await self.bind_key(caller, key, game_id)
        keys = keyed(key, caller, "joinGame", (game_id,), body)
        command = JoinSeat(
            name=name, occupancy=uuid.uuid4().hex, player=player, seed_commitment=seed_commitment
        )
        done = await self.execute(game_id, command, "lobby", **_ids(keys))
        answer, joined = await self._answered(game_id, done)
        assert isinstance(joined, SeatJoined)
        return joined.seat, answer

    async def start(self, game_id: uuid.UUID, *, key: str | None = None, by: str = "host") -> Table:
        """The table right after the start (a second start with ``key``: the first one's);
        ``by``: who starts it, the host or a seat (``seat:N``)."""
        keys = keyed(key, by, "startGame", (game_id,), b"")
        # Without a key, two starts racing (the host's and a seat's too) still append once.
        ids = _ids(keys) if keys is not None else {"command_id": "start"}
        done = await self.execute(game_id, StartGame(), by, **ids)
        return (await self._answered(game_id, done))[0].table

    async def bind_key(self, caller: str, key: str | None, game_id: uuid.UUID) -> None:
        """Refuse ``key`` unless ``caller`` (whose token reaches several games) sent it for
        ``game_id`` first: each game's log knows only its own keys (migration 0013). A key is
        bound to the first existing game it is sent for, whatever that game answers."""
        if key is not None and await self.store.key_game(caller, key, game_id) != game_id:
            raise key_reused()

    async def _answered(self, game_id: uuid.UUID, done: Executed) -> tuple[Lobbied, Any]:
        """A lobby action's answer and its first event; a replay's as the action left the game."""
        first = done.stored[0]
        if done.duplicate:
            table = await self.tables.fold(game_id, done.stored[-1].seq, keep=False)
            assert table is not None
            event = tables.decode(table.kind, first.type, first.data, first.schema_version)
        else:
            table, event = done.table, done.events[0]
        return Lobbied(table=table, seq=first.seq, recorded_at=first.recorded_at.timestamp()), event

    async def leave(self, game_id: uuid.UUID, seat: int, *, holder: str | None = None) -> Table:
        """Leave the lobby before the start; once the game runs, concede through its rules."""
        return (await self.execute(game_id, LeaveSeat(seat=seat, holder=holder), f"seat:{seat}")).table

    async def reveal_seed(self, game_id: uuid.UUID, seat: int, seed: str, *, holder: str | None) -> Table:
        """The seat's committed seed revealed (domain/table/rules.py says when it may be)."""
        command = RevealSeed(seat=seat, seed=seed, holder=holder)
        return (await self.execute(game_id, command, f"seat:{seat}")).table

    async def act_on_deadline(self, game_id: uuid.UUID) -> bool:
        """Send the game's deadline command if its deadline has passed; True if appended."""
        table = await self.load(game_id)
        try:
            done = await self.execute(
                game_id, ActOnDeadline(), "server", command_id=f"deadline:{table.version}"
            )
        except ServiceError as exc:
            if exc.code != "version_conflict":
                raise
            self.forget(game_id)
            return False
        if not done.events:
            return False
        log.info("deadline", game_id=str(game_id), command=type(done.events[0]).__name__)
        return True

    # -- commands ------------------------------------------------------------------------------

    def decode_command(self, kind: Kind, body: bytes) -> Any:
        """The body read once, by the game's own decoder (its rules check no field again)."""
        try:
            return bodies.decode(body, kind.commands)
        except ServiceError as exc:
            # Another game's command is a well-formed command of the API (its schema is every
            # game's union): this game refuses it as a rule would, not as a malformed body.
            command = _command_type(body)
            if command is not None and command in kind.foreign_commands:
                raise ServiceError(
                    422, "unknown_command", f"A {kind.kind} game has no command {command}."
                ) from exc
            raise

    async def applied(self, game_id: uuid.UUID, seat: int, idempotency_key: str) -> bool:
        """Whether the seat's request with this key is in the log (its retry gets its result)."""
        command_id = idempotency.command_id(seat_caller(seat), idempotency_key)
        return await self.store.command_events(game_id, command_id) is not None

    async def command(
        self,
        game_id: uuid.UUID,
        seat: int,
        body: bytes,
        *,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
        holder: str | None = None,
        checked: Table | None = None,
        view: bool = False,
    ) -> CommandResult:
        """Decode, decide and append one seat's command; one canonical log line whatever happens.

        ``holder``: the occupancy id the caller's token names; the command is refused unless it
        still holds the seat in the very table the command is decided on. ``checked``: the table
        the caller's guard just took from the cache: the command is decided on it first (and the
        game's kind read from it), so the table is taken once per command.
        ``view``: add the seat's view right after the command (a retry's too: as it was then).
        """
        started = time.perf_counter()
        outcome, command_type, kind_name = "error", "?", "?"
        try:
            table = checked if checked is not None else await self.load(game_id, cached_ok=True)
            kind = registry.of(table.kind)
            kind_name = kind.kind
            command = self.decode_command(kind, body)
            command_type = type(command).__name__
            keys = keyed(idempotency_key, seat_caller(seat), "sendCommand", (game_id, seat), body)
            sent = _Sent(
                keys.fingerprint if keys else idempotency.fingerprint("sendCommand", (game_id, seat), body),
                idempotency_key,
            )
            done = await self.execute(
                game_id,
                Play(seat=seat, command=command, holder=holder),
                f"seat:{seat}",
                **_ids(keys),
                expected_version=expected_version,
                viewer=Seat(seat),
                current=table,
                held=checked is not None and holder is not None,
                kind=kind,
            )
            if done.duplicate:
                outcome = "duplicate"
                return await self._earlier_result(game_id, seat, done.stored, view, sent)
            outcome = "applied"
            return self._result(game_id, done.table, seat, done.stored, done.events, view, sent)
        except (RuleViolation, ServiceError) as exc:
            outcome = exc.code
            raise
        except msgspec.ValidationError:
            outcome = "invalid_body"
            raise
        finally:
            if self.command_log:
                _count_command(kind_name, outcome)
                log.info(
                    "command",
                    game_id=str(game_id),
                    seat=seat,
                    command=command_type,
                    outcome=outcome,
                    duration_ms=round((time.perf_counter() - started) * 1000, 2),
                )

    def _result(
        self,
        game_id: uuid.UUID,
        table: Table,
        seat: int,
        stored: Sequence[StoredEvent],
        events: Sequence[Any],
        view: bool,
        sent: _Sent,
    ) -> CommandResult:
        """What the seat may see of the events just appended (``table``: right after them)."""
        items = [(s.seq, s.recorded_at.timestamp(), e) for s, e in zip(stored, events, strict=True)]
        viewer = Seat(seat)
        version = version_for(table, viewer)
        # Numbered back from the seat's version: the last event it sees is its number ``version``.
        before = version - count_seen(table.decider, events, viewer)
        shown = envelopes(table, items, viewer, before)
        return CommandResult(
            version=version,
            events=shown,
            view=_view(game_id, table, seat, view),
            receipt=self._receipt(game_id, seat, (before, version), shown, stored, sent),
        )

    def _receipt(
        self,
        game_id: uuid.UUID,
        seat: int,
        versions: tuple[int, int],
        shown: Sequence[EventOut],
        stored: Sequence[StoredEvent],
        sent: _Sent,
    ) -> str | None:
        """The signed receipt of a command's answer (None: nothing appended, or no signer)."""
        if self.receipts is None or not stored:
            return None
        return self.receipts.sign(
            game_id,
            seat,
            versions,
            [(e.seq, e.type, e.data) for e in shown],
            stored[-1].hash,
            fingerprint=sent.fingerprint,
            key=sent.key,
        )

    async def _earlier_result(
        self, game_id: uuid.UUID, seat: int, stored: Sequence[StoredEvent], view: bool, sent: _Sent
    ) -> CommandResult:
        """What the seat may see of an earlier command's events, numbered as they were then."""
        if not stored:
            current = await self.load(game_id)
            return CommandResult(
                version=version_for(current, Seat(seat)), events=[], view=_view(game_id, current, seat, view)
            )
        viewer = Seat(seat)
        first = stored[0].seq
        # The table just before the command, from the one cache's fold; its events read on.
        table = await self.tables.fold(game_id, first - 1, keep=False) if first > 1 else None
        before = version_for(table, viewer) if table is not None else 0
        since = await self.store.read(game_id, first - 1, stored[-1].seq)
        table, events = tables.read_on(table, since)
        items = [(s.seq, s.recorded_at.timestamp(), e) for s, e in zip(since, events, strict=True)]
        assert table is not None
        version = version_for(table, viewer)
        shown = envelopes(table, items, viewer, before)
        return CommandResult(
            version=version,
            events=shown,
            view=_view(game_id, table, seat, view),
            receipt=self._receipt(game_id, seat, (before, version), shown, stored, sent),
        )

    # -- reading -------------------------------------------------------------------------------

    async def bind_legacy(self, principal: Principal) -> Principal:
        """An older release's seat token bound to the holder it was issued to, if that holder
        still holds the seat (service/app/legacy_tokens.py); else as it came (it holds no seat).
        Not remembered: such tokens are few and short-lived, and this is one indexed read."""
        if principal.game_id is None or principal.seat is None:
            return principal
        moves = await self.store.seat_moves(principal.game_id, principal.seat)
        return (
            dataclasses.replace(principal, occupancy="") if bound(moves, principal.issued_at) else principal
        )

    async def ended_at(self, game_id: uuid.UUID, table: Table) -> float | None:
        """When the game's last event, the one that finished it, was recorded (None: running)."""
        if table.finished_version is None:
            return None
        ended = await self.store.read(game_id, table.finished_version - 1, table.finished_version)
        return ended[0].recorded_at.timestamp() if ended else None

    async def ping(self) -> None:
        """Raise unless the database answers (readiness)."""
        await self.store.db.fetchval("SELECT 1")

    async def as_spectators_see(self, game_id: uuid.UUID, instant: float, *, needs: int) -> Table:
        """The game as spectators may see it at ``instant`` (projections/spectator), from a log
        that reaches at least seq ``needs`` (the version the caller knows: never older)."""
        rows = await self.reads.events(game_id, needs=needs)
        if not rows:
            raise not_found(f"Game {game_id}")
        return shown_at(
            ((s.recorded_at.timestamp(), s.type, s.schema_version, s.data) for s in rows), instant
        )

    async def shown_to(self, game_id: uuid.UUID, principal: Principal | None) -> Table:
        """The game as ``principal`` may see its summary: live to its host, the holders of its
        seats and moderators; to anyone else only if public, and only as the delay allows."""
        table = await self.load(game_id, cached_ok=True)
        if principal is not None and principal.game_id == game_id and principal.role in ("host", "seat"):
            seat = principal.seat
            if principal.role == "host" or (seat is not None and _holds(table, seat, principal.occupancy)):
                return table
        if principal is not None and principal.role == "moderator":
            return table
        if not table.public:
            raise ServiceError(403, "private_game", "This game is private: only its host and seats see it.")
        if table.spectator_delay <= 0:
            return table
        instant = released_by(self.clock(), table.spectator_delay)
        shown = await self.as_spectators_see(game_id, instant, needs=table.version)
        # Seat names are lobby information: they show at once (as in the listing).
        return msgspec.structs.replace(shown, seats=table.seats)

    async def events_for(
        self, game_id: uuid.UUID, viewer: Viewer, after: int = 0, limit: int | None = None
    ) -> tuple[list[EventOut], str | None]:
        """The events ``viewer`` may see after its number ``after`` (projections/numbering), at
        most ``limit`` of them, and, for a seat, the signed receipt of them (docs/receipts.md)."""
        table = await self.load(game_id)
        if same_for_everyone(table) and after <= table.version:
            # Nothing up to ``after`` is hidden from anyone: numbers and seqs agree so far.
            stored = await self.store.read(game_id, after_seq=after)
            before = after
        else:
            stored = await self.store.read(game_id)
            before = 0
        items = [
            (s.seq, s.recorded_at.timestamp(), tables.decode(table.kind, s.type, s.data, s.schema_version))
            for s in stored
        ]
        shown = [e for e in envelopes(table, items, viewer, before) if e.seq > after]
        cut = limit is not None and len(shown) > limit
        shown = shown[:limit]
        if self.receipts is None or not isinstance(viewer, Seat):
            return shown, None
        # The receipt commits to the head at the last event the seat may know of, never a later
        # one: two reads at one version of the seat get one receipt, whatever was hidden since.
        decider = table.decider
        seen = [
            s for s, item in zip(stored, items, strict=True) if sees(private_seat(decider, item[2]), viewer)
        ]
        if cut:  # a page: the receipt vouches for what it holds, up to its last event
            seen = seen[: shown[-1].seq - before]
        last = before + len(seen)
        if not seen and before == after > 0:
            seen = await self.store.read(game_id, after - 1, after)  # the event at its number
        if last < after or not seen:
            return shown, None  # asked from beyond the seat's version: nothing to vouch for
        events = [(e.seq, e.type, e.data) for e in shown]
        return shown, self.receipts.sign(game_id, viewer.index, (after, last), events, seen[-1].hash)


def _view(game_id: uuid.UUID, table: Table, seat: int, asked: bool) -> SeatViewOut | None:
    """The seat's view of ``table`` when asked for (``?view=true``)."""
    return seat_view(game_id, table, seat) if asked else None


def _unheld(command: TableCommand) -> TableCommand:
    """``command`` without the holder its rules would check (the caller checked it already);
    the log records the command as it was sent."""
    if isinstance(command, Play) and command.holder is not None:
        return msgspec.structs.replace(command, holder=None)
    return command


def _ids(keys: Keyed | None) -> dict[str, Any]:
    """``execute``'s idempotency arguments for a request sent with (or without) a key."""
    return {} if keys is None else {"command_id": keys.command_id, "fingerprint": keys.fingerprint}
