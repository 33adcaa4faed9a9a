"""The personal texts kept beside the log (migration 0018, domain/personal.py, docs/erasure.md).

An append that carries a person's words keeps them here first (``keep``), then appends the
events with their seals (a batched append keeps them in its own statement,
service/store/batching.py: one round trip, one transaction); when the append does not happen,
the texts are dropped again (a crash
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
from domain.personal import erased
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
        self.remember(kept)

    def remember(self, kept: Sequence[Kept]) -> None:
        """Texts kept (here, or with their append: service/store/batching.py), for their seals' reads."""
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

    async def shown(self, game_ids: Iterable[uuid.UUID], seals: Iterable[str]) -> dict[str, str]:
        """What each seal of these games opens to now: its text, or what an erasure left."""
        out: dict[str, str] = {}
        missing = []
        for seal in seals:
            if (known := self._shown.get(seal)) is not None:
                out[seal] = known
            else:
                missing.append(seal)
        if missing:
            rows = await self.db.fetch(  # by the key: the game's (and its node's, on Citus)
                "SELECT seal, coalesce(text, shown) AS shown FROM personal_texts"
                " WHERE game_id = ANY($1) AND seal = ANY($2)",
                list(set(game_ids)),
                missing,
            )
            for row in rows:
                out[row["seal"]] = row["shown"]
                self._remember(row["seal"], row["shown"])
        return out

    async def _opened(
        self, items: list[tuple[uuid.UUID, str, str, str | None]]
    ) -> dict[int, tuple[str, str | None]]:
        """``(game, type, data, metadata)`` stored items, by place: those holding a seal, opened."""
        events = registry.PERSONAL_EVENTS
        opening = {
            i: (_decode(data), None if metadata is None else _decode(metadata))
            for i, (_, kind, data, metadata) in enumerate(items)
            if kind in events and "sealed:" in data
        }
        if not opening:
            return {}
        seals = (s for i, (data, metadata) in opening.items() for s in seals_of(items[i][1], data, metadata))
        shown = await self.shown((items[i][0] for i in opening), seals)
        out: dict[int, tuple[str, str | None]] = {}
        for i, (data, metadata) in opening.items():
            data, metadata = open_event(items[i][1], data, metadata, shown)
            out[i] = (_encode(data).decode(), None if metadata is None else _encode(metadata).decode())
        return out

    async def open(self, rows: list[StoredEvent]) -> list[StoredEvent]:
        """``rows`` with every seal opened (events of a type with personal fields, and the
        command their metadata records); the rest as they are."""
        opened = await self._opened([(r.game_id, r.type, r.data, r.metadata_json) for r in rows])
        if not opened:
            return rows
        out = list(rows)
        for i, (data, metadata) in opened.items():
            out[i] = msgspec.structs.replace(
                rows[i], data=data, metadata_json=metadata or rows[i].metadata_json
            )
        return out

    async def open_bodies(
        self, game_id: uuid.UUID, rows: list[tuple[str, int, str]]
    ) -> list[tuple[str, int, str]]:
        """One game's ``(type, schema_version, data)`` rows with every seal opened (for folds)."""
        opened = await self._opened([(game_id, kind, data, None) for kind, _, data in rows])
        if not opened:
            return rows
        out = list(rows)
        for i, (data, _) in opened.items():
            out[i] = (rows[i][0], rows[i][1], data)
        return out

    async def erase(self, subject: str) -> tuple[list[uuid.UUID], list[str]]:
        """Destroy ``subject``'s texts and salts; their seals open to what ``erased`` shows from
        now on. Returns the games they wrote in and the seals erased (already erased ones too)."""
        rows = await self.db.fetch(
            "UPDATE personal_texts SET salt = NULL, text = NULL,"
            " shown = CASE field WHEN 'name' THEN $2 ELSE $3 END WHERE subject = $1 RETURNING game_id, seal",
            subject,
            erased("name", subject),
            erased("text", subject),
        )
        seals = [row["seal"] for row in rows]
        self.forget(seals)
        return sorted({row["game_id"] for row in rows}), seals
