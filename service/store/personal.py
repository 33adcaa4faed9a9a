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
from domain.personal import Field, erased
from projections.personal import Kept, open_event, seals_of
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
        opening = {
            i: (_decode(row.data), _decode(row.metadata_json))
            for i, row in enumerate(rows)
            if row.type in events and "sealed:" in row.data
        }
        if not opening:
            return rows
        shown = await self.shown(s for i, (d, m) in opening.items() for s in seals_of(rows[i].type, d, m))
        out = list(rows)
        for i, (data, metadata) in opening.items():
            data, metadata = open_event(rows[i].type, data, metadata, shown)
            out[i] = msgspec.structs.replace(
                rows[i], data=_encode(data).decode(), metadata_json=_encode(metadata).decode()
            )
        return out

    async def open_bodies(self, rows: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
        """``(type, schema_version, data)`` rows with every seal opened (``open``'s, for folds)."""
        events = registry.PERSONAL_EVENTS
        opening = {
            i: _decode(data) for i, (kind, _, data) in enumerate(rows) if kind in events and "sealed:" in data
        }
        if not opening:
            return rows
        shown = await self.shown(s for i, body in opening.items() for s in seals_of(rows[i][0], body, None))
        out = list(rows)
        for i, body in opening.items():
            kind, version, _ = rows[i]
            out[i] = (kind, version, _encode(open_event(kind, body, None, shown)[0]).decode())
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
