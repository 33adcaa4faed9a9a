"""A seat's command and its answer: the body read once by the game's own decoder, wrapped in the
table's ``Play`` for the one loop, and the events answered as the seat may see them (with its
view, on ``?view=true``, and the service's signed receipt).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Annotated, Any

import msgspec

from domain import registry
from domain.errors import RuleViolation
from domain.table.commands import Play
from domain.viewers import Seat
from projections import table as tables
from projections.envelopes import EventOut, envelopes, envelopes_up_to
from projections.numbering import version_for
from projections.seat_view import SeatViewOut, seat_view
from projections.table import Table
from service.app import bodies, idempotency
from service.app.errors import ServiceError
from service.app.idempotency import keyed, seat_caller
from service.app.loop import GameLoop, key_arguments
from service.runtime import metrics
from service.runtime.log import get_logger
from service.store.events import StoredEvent

log = get_logger("playlog.commands")


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


class _Sent(msgspec.Struct, frozen=True):
    """What a seat's command request was, as its receipt names it."""

    fingerprint: str
    key: str | None


def _command_type(body: bytes) -> str | None:
    try:
        value = bodies.decode_any(body)
    except ServiceError:  # malformed, or nested too deep
        return None
    command = value.get("type") if isinstance(value, dict) else None
    return command if isinstance(command, str) else None


class SeatCommands:
    """A seat's command through the one loop, and its answer."""

    def __init__(self, loop: GameLoop) -> None:
        self.loop = loop

    def decode_command(self, table: Table, body: bytes) -> Any:
        """The body read once, by the decoder of ``table``'s game (its rules check no field again)."""
        try:
            return bodies.decode(body, table.decider.commands)
        except ServiceError as exc:
            # Another game's command is a well-formed command of the API (its schema is every
            # game's union): this game refuses it as a rule would, not as a malformed body.
            command = _command_type(body)
            if command is not None and command in registry.of(table.kind).foreign_commands:
                raise ServiceError(
                    422, "unknown_command", f"A {table.kind} game has no command {command}."
                ) from exc
            raise

    async def applied(self, game_id: uuid.UUID, seat: int, idempotency_key: str) -> bool:
        """Whether the seat's request with this key is in the log (its retry gets its result)."""
        command_id = idempotency.command_id(seat_caller(seat), idempotency_key)
        return await self.loop.store.command_events(game_id, command_id) is not None

    async def command(
        self,
        game_id: uuid.UUID,
        seat: int,
        body: bytes,
        *,
        idempotency_key: str | None = None,
        expected_version: int | None = None,
        holder: str | None = None,
        table: Table | None = None,
        view: bool = False,
    ) -> CommandResult:
        """Decode, decide and append one seat's command; one canonical log line whatever happens.

        ``holder``: the occupancy id the caller's token names; the rules refuse the command unless
        it still holds the seat in the very table the command is decided on. ``table``: the game's
        table as the caller holds it (its guard took it from the cache): the body is read by its
        game and the command decided on it first, so the table is taken once per command.
        ``view``: add the seat's view right after the command (a retry's too: as it was then).
        """
        started = time.perf_counter()
        outcome, command_type, kind_name = "error", "?", "?"
        try:
            if table is None:
                table = await self.loop.load(game_id, cached_ok=True)
            kind_name = table.kind
            command = self.decode_command(table, body)
            command_type = type(command).__name__
            keys = keyed(idempotency_key, seat_caller(seat), "sendCommand", (game_id, seat), body)
            sent = _Sent(
                keys.fingerprint if keys else idempotency.fingerprint("sendCommand", (game_id, seat), body),
                idempotency_key,
            )
            done = await self.loop.execute(
                game_id,
                Play(seat=seat, command=command, holder=holder),
                f"seat:{seat}",
                **key_arguments(keys),
                expected_version=expected_version,
                viewer=Seat(seat),
                table=table,
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
            if self.loop.command_log:
                metrics.COMMANDS.inc((kind_name, outcome))
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
        before, shown = envelopes_up_to(table, items, viewer, version)
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
        if self.loop.receipts is None or not stored:
            return None
        return self.loop.receipts.sign(
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
            current = await self.loop.load(game_id)
            return CommandResult(
                version=version_for(current, Seat(seat)), events=[], view=_view(game_id, current, seat, view)
            )
        viewer = Seat(seat)
        first = stored[0].seq
        # The table just before the command, from the one cache's fold; its events read on.
        table = await self.loop.tables.fold(game_id, first - 1, keep=False) if first > 1 else None
        before = version_for(table, viewer) if table is not None else 0
        since = await self.loop.store.read(game_id, first - 1, stored[-1].seq)
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


def _view(game_id: uuid.UUID, table: Table, seat: int, asked: bool) -> SeatViewOut | None:
    """The seat's view of ``table`` when asked for (``?view=true``)."""
    return seat_view(game_id, table, seat) if asked else None
