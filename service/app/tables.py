"""The one cache of folded tables, keyed by game, shared by commands, feeds and the projector.

A table at a version is the log folded up to that seq: the log only grows, so it stays true for
good, and any of them is a base the one fold (``projections.table.fold_rows``) carries forward.
Each game keeps two tables: the newest (what commands and feeds reach), and the projector's,
which folds a little behind the commands and would otherwise fold the game again from its first
event each batch. The cache is bounded in games, least recently used
first out.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from typing import Protocol

from projections import table as tables
from projections.table import Table


class Bodies(Protocol):
    async def read_bodies(
        self, game_id: uuid.UUID, after_seq: int = 0, up_to_seq: int | None = None
    ) -> list[tuple[str, int, str]]: ...


class Kept:
    """One game's tables: the newest (trusted as current unless an append went past it, in
    ``known``) and the one a lagging reader, the projector, folds on from."""

    __slots__ = ("behind", "known", "latest")

    def __init__(self) -> None:
        self.latest: Table | None = None
        self.behind: Table | None = None
        self.known = 0  # the highest seq known to be in the log

    def bases(self, up_to: int | None) -> list[Table]:
        kept = [t for t in (self.latest, self.behind) if t is not None]
        return [t for t in kept if up_to is None or t.version <= up_to]


class Tables:
    def __init__(self, store: Bodies, size: int = 2000) -> None:
        self.store = store
        self.size = size
        # Keyed by the id's integer: a UUID hashes and compares in Python, the int in C, and the
        # cache is looked up several times per command.
        self._games: OrderedDict[int, Kept] = OrderedDict()

    def latest(self, game_id: uuid.UUID) -> Table | None:
        """The newest table of the game, unless the log is known to be past it."""
        kept = self._games.get(game_id.int)
        if kept is None or kept.latest is None or kept.latest.version < kept.known:
            return None
        self._games.move_to_end(game_id.int)
        return kept.latest

    def past(self, game_id: uuid.UUID, table: Table) -> Table | None:
        """The newest table of the game if an append went past ``table`` (another command of
        this instance, since a caller took it), else None: ``table`` is still the newest."""
        kept = self._games.get(game_id.int)
        latest = kept.latest if kept is not None else None
        return latest if latest is not None and latest.version > table.version else None

    def offer(self, game_id: uuid.UUID, table: Table, *, behind: bool = False) -> None:
        """Keep ``table`` as the newest if it is newer, or (``behind``) as the lagging reader's
        (where it goes on from next, even back after a rebuild)."""
        kept = self._games.get(game_id.int)
        if kept is None:
            kept = self._games[game_id.int] = Kept()
        if behind:
            kept.behind = table
        elif kept.latest is None or table.version >= kept.latest.version:
            kept.latest = table
            kept.known = max(kept.known, table.version)
        self._games.move_to_end(game_id.int)
        while len(self._games) > self.size:
            self._games.popitem(last=False)

    def base(self, game_id: uuid.UUID, up_to: int | None = None) -> Table | None:
        """The newest cached table of the game not past seq ``up_to`` (None: any): where a fold
        to ``up_to`` goes on from."""
        kept = self._games.get(game_id.int)
        bases = kept.bases(up_to) if kept is not None else []
        return max(bases, key=lambda t: t.version) if bases else None

    async def fold(
        self, game_id: uuid.UUID, up_to: int | None = None, *, fresh: bool = False, keep: bool = True
    ) -> Table | None:
        """The table at seq ``up_to`` (None: the log's end), folded on from the newest cached table
        not past it (``fresh``: from nothing); None if the log holds nothing up to there. The
        table is kept (a fold to the end as the newest, one to ``up_to`` as the lagging
        reader's) unless ``keep`` is False (a reader looking back, as the audit does)."""
        base = None if fresh else self.base(game_id, up_to)
        if base is not None and base.version == up_to:
            if keep:
                self._games.move_to_end(game_id.int)
            return base
        rows = await self.store.read_bodies(game_id, base.version if base else 0, up_to)
        table = tables.fold_rows(base, rows, up_to)
        if table is not None and keep:
            self.offer(game_id, table, behind=up_to is not None)
        return table

    def behind(self, game_id: uuid.UUID) -> Table | None:
        """The lagging reader's table of the game: where it goes on from."""
        kept = self._games.get(game_id.int)
        return kept.behind if kept is not None else None

    def forget_behind(self) -> None:
        """The lagging reader starts over (it no longer knows how far it went)."""
        for kept in self._games.values():
            kept.behind = None

    def invalidate(self, game_id: uuid.UUID, seq: int) -> None:
        """An append reached ``seq`` (maybe through another instance): a newest table before it is
        no longer current (it stays a base to fold on from)."""
        kept = self._games.get(game_id.int)
        if kept is not None:
            kept.known = max(kept.known, seq)

    def forget(self, game_id: uuid.UUID) -> None:
        self._games.pop(game_id.int, None)

    def clear(self) -> None:
        self._games.clear()
