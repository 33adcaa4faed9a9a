"""An in-memory event store: the interface of service/store.EventStore that GameService uses
(append with an expected seq and an idempotency key, read, read_bodies, command_events), so the
execute loop's retry and idempotency are tested without PostgreSQL. No hash chain, no scheduler."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from domain import registry
from projections.personal import Kept, open_body
from service.store.events import (
    AppendResult,
    ConcurrencyConflict,
    GameUnderIncident,
    InvalidExpectedSeq,
    NewEvent,
    StoredEvent,
)


class MemorySeeds:
    """The servers' seeds (service/store/seeds.py) in memory."""

    def __init__(self) -> None:
        self.seeds: dict[uuid.UUID, bytes] = {}

    @staticmethod
    def draw() -> bytes:
        return secrets.token_bytes(32)

    async def of(self, game_id: uuid.UUID) -> bytes | None:
        return self.seeds.get(game_id)


class MemoryEventStore:
    def __init__(self) -> None:
        self.events: dict[uuid.UUID, list[StoredEvent]] = {}
        self.commands: dict[tuple[uuid.UUID, str], tuple[int, int, str | None]] = {}
        self.appends = 0  # how many appends were attempted (conflicts included)
        # Called before each append: a test makes another writer move the game in between.
        self.before_append: Callable[[uuid.UUID], None] | None = None
        self.incidents: dict[uuid.UUID, tuple[str, int, int]] = {}  # the open ones
        self.seeds = MemorySeeds()
        self.texts: dict[str, str] = {}  # personal texts by seal (service/store/personal.py)

    async def append(
        self,
        game_id: uuid.UUID,
        expected_seq: int,
        events: Sequence[NewEvent],
        *,
        command_id: str | None = None,
        actor: str | None = None,
        fingerprint: str | None = None,
        due_at: float | None = None,
        command: dict[str, Any] | None = None,
        kept: Sequence[Kept] = (),
        seed: bytes | None = None,
    ) -> AppendResult:
        self.appends += 1
        self.texts.update((k.seal, k.text) for k in kept)
        if self.before_append is not None:
            self.before_append(game_id)
        log = self.events.setdefault(game_id, [])
        if command_id is not None and (found := self.commands.get((game_id, command_id))) is not None:
            first, last, original = found
            return AppendResult(events=log[first - 1 : last], duplicate=True, fingerprint=original)
        if game_id in self.incidents:
            raise GameUnderIncident(game_id)
        if expected_seq > len(log):
            raise InvalidExpectedSeq(f"Expected seq {expected_seq} is ahead of the game.", len(log))
        if expected_seq != len(log):
            raise ConcurrencyConflict(game_id, expected_seq, len(log))
        if seed is not None:  # stored with the create, as the real store does
            self.seeds.seeds.setdefault(game_id, seed)
        stored = [self._stored(game_id, len(log) + i + 1, event) for i, event in enumerate(events)]
        log.extend(stored)
        if command_id is not None:
            self.commands[(game_id, command_id)] = (stored[0].seq, stored[-1].seq, fingerprint)
        return AppendResult(events=self._opened(stored), duplicate=False, fingerprint=fingerprint)

    def _opened(self, stored: list[StoredEvent]) -> list[StoredEvent]:
        """``stored`` with its seals opened, as the real store reads them."""
        out = []
        for event in stored:
            fields = registry.PERSONAL_EVENTS.get(event.type)
            if fields is not None:
                body = open_body(msgspec.json.decode(event.data), fields, self.texts)
                event = msgspec.structs.replace(event, data=msgspec.json.encode(body).decode())
            out.append(event)
        return out

    async def raise_incident(
        self, game_id: uuid.UUID, *, reason: str, acknowledged: int, log_seq: int
    ) -> bool:
        if game_id in self.incidents:
            return False
        self.incidents[game_id] = (reason, acknowledged, log_seq)
        return True

    def append_now(self, game_id: uuid.UUID, event: NewEvent) -> None:
        """Another writer's event, appended at once (to provoke a conflict)."""
        log = self.events.setdefault(game_id, [])
        log.append(self._stored(game_id, len(log) + 1, event))

    def _stored(self, game_id: uuid.UUID, seq: int, event: NewEvent) -> StoredEvent:
        return StoredEvent(
            game_id=game_id,
            seq=seq,
            type=event.type,
            schema_version=event.schema_version,
            data=event.data.decode(),
            metadata_json="{}",
            recorded_at=datetime.now(UTC),
            prev_hash=b"",
            hash=b"",
        )

    async def command_events(
        self, game_id: uuid.UUID, command_id: str
    ) -> tuple[list[StoredEvent], str | None] | None:
        found = self.commands.get((game_id, command_id))
        if found is None:
            return None
        first, last, fingerprint = found
        return self._opened(self.events[game_id][first - 1 : last]), fingerprint

    async def read(
        self, game_id: uuid.UUID, after_seq: int = 0, up_to_seq: int | None = None
    ) -> list[StoredEvent]:
        log = self.events.get(game_id, [])
        return self._opened(
            [e for e in log if e.seq > after_seq and (up_to_seq is None or e.seq <= up_to_seq)]
        )

    async def read_bodies(
        self, game_id: uuid.UUID, after_seq: int = 0, up_to_seq: int | None = None
    ) -> list[tuple[str, int, str]]:
        return [(e.type, e.schema_version, e.data) for e in await self.read(game_id, after_seq, up_to_seq)]
