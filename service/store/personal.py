"""The personal texts kept beside the log (migration 0018, domain/personal.py, docs/erasure.md).

An append that carries a person's words keeps them here first (``keep``), then appends the
events with their seals; when the append does not happen, the texts are dropped again (a crash
in between leaves a text no event seals: the person's erasure finds it by its subject all the
same). Every read of the log opens its seals here (``open``): the texts are few (a name per
seat, a dispute's texts), so the process keeps what it opened, and an erasure (``erase``, here
or announced by another instance, service/store/notifications.py) forgets it.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from domain import registry
from domain.personal import Field, Fields, erased
from projections.personal import Kept, open_body, seals_in
from service.store.records import StoredEvent

KEPT = 50_000  # opened seals kept in memory
_decode = msgspec.json.Decoder(dict[str, Any]).decode
_encode = msgspec.json.Encoder().encode


class PersonalTexts:
    def __init__(self, db: Any) -> None:
        self.db = db  # a pool or one connection (service/store/pool.py); always the primary
        self._shown: OrderedDict[str, str] = OrderedDict()

    def _remember(self, seal: str, shown: str) -> None:
        self._shown[seal] = shown
        self._shown.move_to_end(seal)
        if len(self._shown) > KEPT:
            self._shown.popitem(last=False)

    async def keep(self, game_id: uuid.UUID, kept: Sequence[Kept]) -> None:
        await self.db.execute(
            "INSERT INTO personal_texts (game_id, seal, subject, field, salt, text)"
            " SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::bytea[], $6::text[])"
            " ON CONFLICT DO NOTHING",
            game_id,
            [k.seal for k in kept],
            [k.subject for k in kept],
            [k.field for k in kept],
            [k.salt for k in kept],
            [k.text for k in kept],
        )
        for k in kept:
            self._remember(k.seal, k.text)

    async def drop(self, game_id: uuid.UUID, kept: Sequence[Kept]) -> None:
        """Texts kept for an append that did not happen."""
        seals = [k.seal for k in kept]
        await self.db.execute(
            "DELETE FROM personal_texts WHERE game_id = $1 AND seal = ANY($2)", game_id, seals
        )
        self.forget(seals)

    def forget(self, seals: Iterable[str] | None = None) -> None:
        """Forget what these seals (None: every seal) opened to: an erasure changed it."""
        if seals is None:
            self._shown.clear()
            return
        for seal in seals:
            self._shown.pop(seal, None)

    async def shown(self, seals: Iterable[str]) -> dict[str, str]:
        """What each seal opens to now: its text, or what an erasure left in its place."""
        out: dict[str, str] = {}
        missing = []
        for seal in seals:
            if (known := self._shown.get(seal)) is not None:
                out[seal] = known
            else:
                missing.append(seal)
        if missing:
            rows = await self.db.fetch(
                "SELECT seal, coalesce(text, shown) AS shown FROM personal_texts WHERE seal = ANY($1)",
                missing,
            )
            for row in rows:
                out[row["seal"]] = row["shown"]
                self._remember(row["seal"], row["shown"])
        return out

    async def open(self, rows: list[StoredEvent]) -> list[StoredEvent]:
        """``rows`` with every seal opened (events of a type with personal fields, and the
        command their metadata records); the rest as they are."""
        events = registry.PERSONAL_EVENTS
        opening = [i for i, row in enumerate(rows) if row.type in events and "sealed:" in row.data]
        if not opening:
            return rows
        commands = registry.PERSONAL_COMMANDS
        bodies: dict[int, tuple[dict[str, Any], dict[str, Any] | None]] = {}
        seals: set[str] = set()
        for i in opening:
            data = _decode(rows[i].data)
            seals.update(seals_in(data, events[rows[i].type]))
            metadata = _decode(rows[i].metadata_json) if "sealed:" in rows[i].metadata_json else None
            if metadata is not None and (fields := _command_fields(metadata, commands)):
                seals.update(seals_in(metadata["command"]["body"], fields))
            bodies[i] = (data, metadata)
        shown = await self.shown(seals)
        out = list(rows)
        for i, (data, metadata) in bodies.items():
            row = rows[i]
            opened = open_body(data, events[row.type], shown)
            metadata_json = row.metadata_json
            if metadata is not None and (fields := _command_fields(metadata, commands)):
                command = metadata["command"]
                metadata = {
                    **metadata,
                    "command": {**command, "body": open_body(command["body"], fields, shown, seals=False)},
                }
                metadata_json = _encode(metadata).decode()
            out[i] = msgspec.structs.replace(row, data=_encode(opened).decode(), metadata_json=metadata_json)
        return out

    async def open_bodies(self, rows: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
        """``(type, schema_version, data)`` rows with every seal opened (``open``'s, for folds)."""
        events = registry.PERSONAL_EVENTS
        opening = [i for i, (kind, _, data) in enumerate(rows) if kind in events and "sealed:" in data]
        if not opening:
            return rows
        bodies = {i: _decode(rows[i][2]) for i in opening}
        shown = await self.shown(s for i, body in bodies.items() for s in seals_in(body, events[rows[i][0]]))
        out = list(rows)
        for i, body in bodies.items():
            kind, version, _ = rows[i]
            out[i] = (kind, version, _encode(open_body(body, events[kind], shown)).decode())
        return out

    async def erase(self, subject: str) -> tuple[list[uuid.UUID], list[str]]:
        """Destroy ``subject``'s texts and salts; their seals open to what ``erased`` shows from
        now on. Returns the games they wrote in and the seals erased (already erased ones too)."""
        rows = await self.db.fetch(
            "SELECT game_id, seal, field FROM personal_texts WHERE subject = $1", subject
        )
        shown: dict[Field, str] = {"name": erased("name", subject), "text": erased("text", subject)}
        await self.db.execute(
            "UPDATE personal_texts SET salt = NULL, text = NULL,"
            " shown = CASE field WHEN 'name' THEN $2 ELSE $3 END WHERE subject = $1",
            subject,
            shown["name"],
            shown["text"],
        )
        seals = [row["seal"] for row in rows]
        self.forget(seals)
        return sorted({row["game_id"] for row in rows}), seals

    async def salts(self, game_id: uuid.UUID, subject: str) -> list[tuple[str, bytes]]:
        """``subject``'s seals in a game with their salts: what a person keeps to prove them."""
        rows = await self.db.fetch(
            "SELECT seal, salt FROM personal_texts WHERE game_id = $1 AND subject = $2 AND salt IS NOT NULL",
            game_id,
            subject,
        )
        return [(row["seal"], bytes(row["salt"])) for row in rows]


def _command_fields(metadata: dict[str, Any], commands: Fields) -> dict[str, Field] | None:
    command = metadata.get("command")
    if not isinstance(command, dict) or not isinstance(body := command.get("body"), dict):
        return None
    return commands.get(body.get("type", ""))
