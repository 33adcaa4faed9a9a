"""The golden replay corpus: recorded games and what replaying each must give, forever.

Each game is two files in tests/golden/games/: ``NAME.jsonl.gz``, the game's export
(docs/export-format.md), and ``NAME.expected.json.gz``: the digest of the complete state (as
audits show it) after every seq, each seat's and the spectator's view at a few sampled seqs, and
the outcome.
``expectations`` computes the second from the first; the test compares it with the stored one.
Regenerate both with ``python -m tests.golden.record`` (see tests/golden/README.md).
"""

from __future__ import annotations

import gzip
import hashlib
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from domain import registry
from domain.viewers import SPECTATOR
from projections import table as tables
from projections.export import format as export_format
from projections.replay import plain, snapshot
from projections.seat_view import seat_view
from projections.table import Table
from service.store import portable
from tests.declared import declared

GAMES = Path(__file__).parent / "games"
SAMPLES = 5  # seqs at which every view is kept: the first after the start, spread to the last

_encoder = msgspec.json.Encoder(order="deterministic")


@dataclass(frozen=True)
class Config:
    """One kind of recorded game: a name, the game's options, how many games."""

    name: str
    kind: str
    options: dict[str, Any]
    games: int = 2


def configs() -> list[Config]:
    """Every registered game's declared configurations (its folder's ``tests/golden.py``, found
    through the registry: tests/declared.py), in the registry's order."""
    out = []
    for kind in registry.games():
        module = declared(kind, "golden")
        if module is None:
            raise LookupError(f"The game {kind!r} declares no golden games (its folder's tests/golden.py).")
        out += [Config(name, kind, options) for name, options in module.GOLDEN]
    return out


def digest(table: Table) -> str:
    """The complete state after a seq, as the audit shows it (``/audit/state``): lobby facts and
    the moderator's view, hidden cards included; not the Structs' internal layout."""
    return hashlib.sha256(_encoder.encode(snapshot(table))).hexdigest()[:32]


def spectator_view(table: Table) -> Any:
    started = table.status != "open"
    return {
        "status": table.status,
        "version": table.version,
        "seats": list(table.seats),
        "view": plain(table.decider.view(table.state, SPECTATOR)) if started else None,
        "winners": list(table.outcome.winners) if table.outcome else None,
    }


def sample_seqs(tables_after: list[Table]) -> list[int]:
    started = next((i + 1 for i, t in enumerate(tables_after) if t.status != "open"), len(tables_after))
    last = len(tables_after)
    picks = {started + (last - started) * k // (SAMPLES - 1) for k in range(SAMPLES)}
    return sorted(picks)


def expectations(export: export_format.ExportFile) -> dict[str, Any]:
    """What replaying ``export`` through today's code gives (the corpus's expected file)."""
    game_id = uuid.UUID(export.header.game_id)
    table: Table | None = None
    after: list[Table] = []
    for event in export.events:
        kind = table.kind if table else None
        data = export_format.canonical(event.data)
        table = tables.evolve(table, tables.decode(kind, event.type, data, event.schema_version))
        after.append(table)
    assert table is not None
    views = {}
    for seq in sample_seqs(after):
        shown = after[seq - 1]
        seats = {str(s): plain(seat_view(game_id, shown, s)) for s in range(len(shown.seats))}
        views[str(seq)] = {"seats": seats, "spectator": spectator_view(shown)}
    return {
        "game_id": export.header.game_id,
        "kind": table.kind,
        "digests": [digest(t) for t in after],
        "views": views,
        "outcome": {
            "status": table.status,
            "winners": list(table.outcome.winners) if table.outcome else None,
            "scores": list(table.outcome.scores) if table.outcome and table.outcome.scores else None,
        },
    }


def load_export(name: str) -> export_format.ExportFile:
    return export_format.read(portable.open_lines(GAMES / f"{name}.jsonl.gz"))


def load_expected(name: str) -> Any:
    return msgspec.json.decode(gzip.decompress((GAMES / f"{name}.expected.json.gz").read_bytes()))


def names() -> list[str]:
    return sorted(p.name.removesuffix(".jsonl.gz") for p in GAMES.glob("*.jsonl.gz"))


def write_gz(path: Path, data: bytes) -> None:
    """gzip with no timestamp, so the same content gives the same bytes."""
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
