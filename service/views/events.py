"""What a game's events show to a viewer: each event as the viewer may see it, numbered as it
sees them (projections/numbering, envelopes), and for a seat the signed receipt of them
(docs/receipts.md)."""

from __future__ import annotations

import uuid

from domain.viewers import Seat, Viewer
from projections import table as tables
from projections.envelopes import EventOut, envelopes
from projections.numbering import private_seat, same_for_everyone, sees
from service.app.games import GameService


async def events_for(
    games: GameService, game_id: uuid.UUID, viewer: Viewer, after: int = 0, limit: int | None = None
) -> tuple[list[EventOut], str | None]:
    """The events ``viewer`` may see after its number ``after`` (projections/numbering), at
    most ``limit`` of them, and, for a seat, the signed receipt of them (docs/receipts.md)."""
    table = await games.load(game_id)
    if same_for_everyone(table) and after <= table.version:
        # Nothing up to ``after`` is hidden from anyone: numbers and seqs agree so far.
        stored = await games.store.read(game_id, after_seq=after)
        before = after
    else:
        stored = await games.store.read(game_id)
        before = 0
    items = [
        (s.seq, s.recorded_at.timestamp(), tables.decode(table.kind, s.type, s.data, s.schema_version))
        for s in stored
    ]
    shown = [e for e in envelopes(table, items, viewer, before) if e.seq > after]
    cut = limit is not None and len(shown) > limit
    shown = shown[:limit]
    if games.receipts is None or not isinstance(viewer, Seat):
        return shown, None
    # The receipt commits to the head at the last event the seat may know of, never a later
    # one: two reads at one version of the seat get one receipt, whatever was hidden since.
    decider = table.decider
    seen = [s for s, item in zip(stored, items, strict=True) if sees(private_seat(decider, item[2]), viewer)]
    if cut:  # a page: the receipt vouches for what it holds, up to its last event
        seen = seen[: shown[-1].seq - before]
    last = before + len(seen)
    if not seen and before == after > 0:
        seen = await games.store.read(game_id, after - 1, after)  # the event at its number
    if last < after or not seen:
        return shown, None  # asked from beyond the seat's version: nothing to vouch for
    events = [(e.seq, e.type, e.data) for e in shown]
    return shown, games.receipts.sign(game_id, viewer.index, (after, last), events, seen[-1].hash)
