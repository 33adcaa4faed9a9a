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
import functools
import random
import time
import uuid
import weakref
from collections.abc import Callable, Sequence
from typing import Any, get_args

import msgspec

from domain import randomness, registry
from domain.decider import Context, Decider
from domain.errors import RuleViolation
from domain.table import decider as composed
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
from domain.table.rules import check_holder
from domain.viewers import Seat, Viewer
from projections import commands
from projections import table as tables
from projections.disputes import RuledOutcome, ruled_outcome
from projections.envelopes import EventOut, envelopes
from projections.numbering import count_seen, same_for_everyone, version_for
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

__all__ = ["CommandResult", "Executed", "GameService", "Lobbied", "SeatViewOut", "check_holder", "seat_view"]

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
    winners: list[int] | None = None
    ruled_outcome: RuledOutcome | None = None  # once an upheld verdict changed the outcome


def seat_view(game_id: uuid.UUID, table: Table, seat: int) -> SeatViewOut:
    """What ``seat`` sees of ``table``, with its legal commands."""
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
    )


class CommandResult(msgspec.Struct, frozen=True):
    version: int  # the seat's version right after the command (projections/numbering)
    events: list[EventOut]
    view: SeatViewOut | None = None  # the seat's view right after, when asked for (``?view=true``)


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
    events: list[Any]
    stored: list[StoredEvent]
    duplicate: bool = False


def _holds(table: Table, seat: int, occupancy: str | None) -> bool:
    return 0 <= seat < len(table.occupancies) and table.occupancies[seat] == occupancy


# (kind, event class) -> (tag, schema version written today): both fixed for the process's life.
_event_types: dict[tuple[str, type], tuple[str, int]] = {}


def _new_event(kind: str, event: Any) -> NewEvent:
    known = _event_types.get((kind, type(event)))
    if known is None:
        tag = tables.event_tag(event)
        known = _event_types[(kind, type(event))] = (tag, tables.schema_version(kind, tag))
    return NewEvent(type=known[0], data=_encoder.encode(event), schema_version=known[1])


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


@functools.cache
def _other_commands(kind: str) -> frozenset[str]:
    """The command tags of the other games that ``kind`` does not share."""
    tags = {
        game: {str(member.__struct_config__.tag) for member in get_args(decider.command_type)}
        for game, decider in registry.games().items()
    }
    return frozenset().union(*(t for game, t in tags.items() if game != kind)) - tags[kind]


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
    ) -> None:
        self.store = store
        self.reads = reads or Reads(store)  # what a replica may serve (service/store/replica.py)
        self.notifier = notifier
        self.retries = retries
        self.tables = tables or Tables(store)  # the one cache (service/app/tables.py)
        self.clock = clock
        self._locks: weakref.WeakValueDictionary[uuid.UUID, asyncio.Lock] = weakref.WeakValueDictionary()
        self._command_decoders: dict[str, msgspec.json.Decoder[Any]] = {}

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
        """
        if isinstance(command, CreateGame):  # a new game: nothing to load, nothing to race
            rules = composed.for_kind(command.kind)
            ctx = await self._created(game_id, command)
            events = list(rules.decide(None, command, ctx))
            recorded = commands.record(command, ctx.now, len(events))
            return await self._append(game_id, None, events, command_id, fingerprint, actor, recorded)
        async with self._lock(game_id):
            table = await self.load(game_id, cached_ok=True)
            rules = composed.for_kind(table.kind)
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
                    events = list(rules.decide(table, command, ctx))
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
                        game_id, table, events, command_id, fingerprint, actor, recorded
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
        table: Table | None,
        events: list[Any],
        command_id: str | None,
        fingerprint: str | None,
        actor: str,
        recorded: dict[str, Any],
    ) -> Executed:
        """Append with the expected seq, remember, notify; a used ``command_id`` appends nothing.
        ``recorded``: the command as the log keeps it (projections/commands.py)."""
        new_table = table
        for event in events:
            new_table = tables.evolve(new_table, event)
        assert new_table is not None
        result = await self.store.append(
            game_id,
            table.version if table else 0,
            [_new_event(new_table.kind, e) for e in events],
            command_id=command_id,
            actor=actor,
            fingerprint=fingerprint,
            due_at=composed.for_kind(new_table.kind).deadline(new_table),
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

    async def start(self, game_id: uuid.UUID, *, key: str | None = None) -> Table:
        """The table right after the start (a second start with ``key``: the first one's)."""
        keys = keyed(key, "host", "startGame", (game_id,), b"")
        # Without a key, two starts racing still append once.
        ids = _ids(keys) if keys is not None else {"command_id": "start"}
        done = await self.execute(game_id, StartGame(), "host", **ids)
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
            rows = await self.store.read_bodies(game_id, 0, done.stored[-1].seq)
            table = tables.fold_rows(None, rows)
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

    def decode_command(self, decider: Decider, body: bytes) -> Any:
        decoder = self._command_decoders.get(decider.kind)
        if decoder is None:
            decoder = self._command_decoders[decider.kind] = msgspec.json.Decoder(decider.command_type)
        try:
            return bodies.decode(body, decoder)
        except ServiceError as exc:
            # Another game's command is a well-formed command of the API (its schema is every
            # game's union): this game refuses it as a rule would, not as a malformed body.
            command = _command_type(body)
            if command is not None and command in _other_commands(decider.kind):
                raise ServiceError(
                    422, "unknown_command", f"A {decider.kind} game has no command {command}."
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
        still holds the seat in the very table the command is decided on. ``checked``: a table
        of the game the caller already holds (its guard's), read only for the game's kind.
        ``view``: add the seat's view right after the command (a retry's too: as it was then).
        """
        started = time.perf_counter()
        outcome, command_type, kind = "error", "?", "?"
        try:
            # Only the kind is needed (it never changes): any table of the game will do.
            table = checked if checked is not None else await self.load(game_id, cached_ok=True)
            decider = table.decider
            kind = decider.kind
            command = self.decode_command(decider, body)
            command_type = type(command).__name__
            done = await self.execute(
                game_id,
                Play(seat=seat, command=command, holder=holder),
                f"seat:{seat}",
                **_ids(keyed(idempotency_key, seat_caller(seat), "sendCommand", (game_id, seat), body)),
                expected_version=expected_version,
                viewer=Seat(seat),
            )
            if done.duplicate:
                outcome = "duplicate"
                return await self._earlier_result(game_id, seat, done.stored, view)
            outcome = "applied"
            return self._result(game_id, done.table, seat, done.stored, done.events, view)
        except (RuleViolation, ServiceError) as exc:
            outcome = exc.code
            raise
        except msgspec.ValidationError:
            outcome = "invalid_body"
            raise
        finally:
            _count_command(kind, outcome)
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
    ) -> CommandResult:
        """What the seat may see of the events just appended (``table``: right after them)."""
        items = [(s.seq, s.recorded_at.timestamp(), e) for s, e in zip(stored, events, strict=True)]
        viewer = Seat(seat)
        version = version_for(table, viewer)
        # Numbered back from the seat's version: the last event it sees is its number ``version``.
        before = version - count_seen(table.decider, events, viewer)
        return CommandResult(
            version=version,
            events=envelopes(table, items, viewer, before),
            view=_view(game_id, table, seat, view),
        )

    async def _earlier_result(
        self, game_id: uuid.UUID, seat: int, stored: Sequence[StoredEvent], view: bool
    ) -> CommandResult:
        """What the seat may see of an earlier command's events, numbered as they were then."""
        if not stored:
            current = await self.load(game_id)
            return CommandResult(
                version=version_for(current, Seat(seat)), events=[], view=_view(game_id, current, seat, view)
            )
        viewer = Seat(seat)
        first = stored[0].seq
        table: Table | None = None
        items: list[tuple[int, float, Any]] = []
        before = 0
        for s in await self.store.read(game_id, 0, stored[-1].seq):
            if s.seq == first:
                before = version_for(table, viewer) if table is not None else 0
            table, event = tables.step(table, s.type, s.data, s.schema_version)
            if s.seq >= first:
                items.append((s.seq, s.recorded_at.timestamp(), event))
        assert table is not None
        return CommandResult(
            version=version_for(table, viewer),
            events=envelopes(table, items, viewer, before),
            view=_view(game_id, table, seat, view),
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

    async def events_for(self, game_id: uuid.UUID, viewer: Viewer, after: int = 0) -> list[EventOut]:
        """The events ``viewer`` may see after its number ``after`` (projections/numbering)."""
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
        return [e for e in envelopes(table, items, viewer, before) if e.seq > after]


def _view(game_id: uuid.UUID, table: Table, seat: int, asked: bool) -> SeatViewOut | None:
    """The seat's view of ``table`` when asked for (``?view=true``)."""
    return seat_view(game_id, table, seat) if asked else None


def _ids(keys: Keyed | None) -> dict[str, Any]:
    """``execute``'s idempotency arguments for a request sent with (or without) a key."""
    return {} if keys is None else {"command_id": keys.command_id, "fingerprint": keys.fingerprint}
