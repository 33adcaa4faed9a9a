"""The audit's verification of a stored game: its hash chain recomputed by the database, and
every recorded command re-executed through the running rules with the server's own seed, so a
running game is judged whole (docs/export-format.md, projections/export/reexecute.py)."""

from __future__ import annotations

import time
import uuid

import msgspec

from projections.export import format as export_format
from projections.export import verify as export_verify
from service.app.games import GameService
from service.store import portable
from service.store.events import ChainReport


class VerifyFinding(msgspec.Struct, frozen=True):
    check: str  # chain | shuffles | replay | seeds
    seq: int
    reason: str


class Verified(ChainReport, frozen=True, kw_only=True):
    """The chain's report (``ok``, ``first_bad_seq`` and ``reason`` cover every check), and the
    rules' check: ``level`` re-executed (``commands`` of them) or replayed (a game recorded
    before commands were)."""

    chain_ok: bool
    level: str
    commands: int
    findings: list[VerifyFinding]
    # The server's seed (hex): to moderators at any time, to anyone once the game disclosed it.
    server_seed: str | None = None


async def verified(
    games: GameService, game_id: uuid.UUID, chain: ChainReport, *, moderator: bool
) -> Verified:
    lines = [
        line async for line in portable.export_lines(games.store.db, game_id, now=time.time(), access=False)
    ]
    seed = await games.store.seeds.of(game_id)
    report = export_verify.verify(export_format.read(lines), server_seed=seed, accept=("replayed",))
    findings = [VerifyFinding(f.check, f.seq, f.reason) for f in report.findings]
    if not chain.ok and chain.first_bad_seq is not None:
        findings.append(VerifyFinding("chain", chain.first_bad_seq, chain.reason or "the chain breaks here"))
    first = min(findings, key=lambda f: f.seq, default=None)
    shown = seed.hex() if seed is not None and (moderator or report.seed_disclosed) else None
    return Verified(
        ok=chain.ok and report.ok,
        events=chain.events,
        first_bad_seq=first.seq if first else None,
        last_hash=chain.last_hash,
        reason=first.reason if first else None,
        chain_ok=chain.ok,
        level=report.level,
        commands=report.executed,
        findings=findings,
        server_seed=shown,
    )
