"""Re-execution: every recorded command run through ``decide`` again (docs/export-format.md).

For each group of events one command produced (its metadata's ``command``), decode the command,
run the composed ``decide`` on the table before the group with the recorded clock and the
generator of the committed seeds (domain/table/seeds.py), and require exactly the recorded events,
in order; then fold them. A log recorded before commands were is replayed event by event.
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from domain import randomness, registry
from domain.decider import Context
from domain.errors import RuleViolation
from domain.randomness import Draws, SeedUnavailable
from domain.table import seeds
from domain.table.commands import TableCommand
from projections import commands, upcast
from projections import table as tables
from projections.export.findings import Finding, Replayed
from projections.export.format import EventRecord, ExportFile, canonical, parse
from projections.replay import plain
from projections.table import Table

SEED_DISCLOSED = "lobby.seed_disclosed"


def recorded(export: ExportFile) -> bool:
    """Whether the log records its commands: its ``lobby.created`` carries one."""
    first = export.events[0] if export.events else None
    return first is not None and isinstance(first.metadata, dict) and "command" in first.metadata


def _normal(value: Any) -> str:
    """A JSON value's canonical text after a round trip through floats (as ``decide`` writes)."""
    return canonical(parse(msgspec.json.encode(value)))


def _today(kind: str, event: EventRecord) -> str:
    """The recorded event's data in today's schema, as canonical text."""
    tag = event.type
    current = tables.schema_version(kind, tag)
    lobby = tables.is_lobby_type(tag) or tables.is_dispute_type(tag)
    upcasters = tables.LOBBY_UPCASTERS if lobby else registry.get(kind).versions.upcasters
    return _normal(upcast.upcast(tag, event.schema_version, current, upcasters, canonical(event.data)))


def _disclosed(export: ExportFile) -> tuple[int, bytes | None] | None:
    """The server seed the log discloses (its seq, the seed; None: none disclosed)."""
    for event in export.events:
        if event.type == SEED_DISCLOSED and isinstance(event.data, dict):
            return event.seq, randomness.parse_seed(str(event.data.get("seed", "")))
    return None


class _Fold:
    """The table as the recorded events leave it, and what the shuffle check needs."""

    def __init__(self) -> None:
        self.table: Table | None = None
        self.orders: dict[int, list[Any]] = {}
        self.commitments: dict[int, tuple[str, str | None]] = {}

    def apply(self, event: EventRecord) -> None:
        self.table, decoded = tables.step(self.table, event.type, canonical(event.data), event.schema_version)
        committed = getattr(decoded, "commitment", None)
        hidden_order = self.table.decider.hidden.order
        if committed and hidden_order is not None:
            self.orders[event.seq] = plain(list(hidden_order(self.table.state)))
            self.commitments[event.seq] = (committed, getattr(decoded, "salt", None))


def replay(export: ExportFile) -> Replayed:
    """Fold the file's events as facts through today's rules (a log without commands)."""
    fold = _Fold()
    for event in export.events:
        try:
            fold.apply(event)
        except Exception as exc:  # any failure of old data against today's code is the finding
            finding = Finding("replay", event.seq, f"does not replay: {exc}")
            return Replayed(fold.table, fold.orders, fold.commitments, finding)
    return Replayed(fold.table, fold.orders, fold.commitments, None)


def reexecute(export: ExportFile, server_seed: bytes | None = None) -> Replayed:
    """Re-run every recorded command; a log without them is replayed (``replay``).
    ``server_seed``: the game's seed as the server holds it (a moderator's or the operator's
    check of a running game); otherwise the one the log discloses, if any."""
    if not recorded(export):
        replayed = replay(export)
        if replayed.finding is None and replayed.table is not None and replayed.table.seed_commitment:
            # Seeds came with recorded commands: stripping them would downgrade the check.
            reason = "a game with a committed server seed records its commands; this log has none"
            replayed.finding = Finding("replay", 1, reason)
        return replayed
    game_id = uuid.UUID(export.header.game_id)
    disclosed = _disclosed(export)
    held = server_seed  # the server's own, when the caller holds it
    if server_seed is None and disclosed is not None:
        server_seed = disclosed[1]
    fold = _Fold()
    result = Replayed(None, fold.orders, fold.commitments, None, recorded=True)
    events, at = export.events, 0
    while at < len(events):
        first = events[at]
        group, finding, command = _group(export, at, fold.table)
        if finding is None:
            assert command is not None
            table = fold.table
            ctx = _context(table, game_id, first, server_seed)
            produced, finding = _decide(export.header.kind, table, command, ctx, group)
            if produced is None and finding is None:
                result.awaiting += 1
        if finding is not None:
            result.finding = finding
            break
        try:
            for event in group:
                fold.apply(event)
        except Exception as exc:
            result.finding = Finding("replay", event.seq, f"does not replay: {exc}")
            break
        result.executed += 1
        at += len(group)
    result.table = fold.table
    result.seeds = _seed_findings(fold.table, disclosed, result.finding)
    committed = fold.table.seed_commitment if fold.table is not None else None
    if held is not None and committed is not None and randomness.server_commitment(held) != committed:
        result.seeds.append(Finding("seeds", 1, "the server's seed does not match its commitment"))
    return result


def _group(
    export: ExportFile, at: int, table: Table | None
) -> tuple[list[EventRecord], Finding | None, TableCommand | None]:
    """The events of the command recorded at ``events[at]``, and that command decoded."""
    events = export.events
    first = events[at]
    record = first.metadata.get("command") if isinstance(first.metadata, dict) else None
    if not isinstance(record, dict):
        return [first], Finding("replay", first.seq, "an event no recorded command produced"), None
    count, now, body = record.get("events"), record.get("now"), record.get("body")
    if not isinstance(count, int) or count < 1 or not isinstance(body, dict) or now is None:
        return [first], Finding("replay", first.seq, "the recorded command is malformed"), None
    group = events[at : at + count]
    # The others carry the first's metadata less its command and command_id (written before
    # migration 0024: less its command; before 0023: whole).
    forms = {
        canonical({k: v for k, v in first.metadata.items() if k not in left_out})
        for left_out in ((), ("command",), ("command", "command_id"))
    }
    for event in group[1:]:
        if canonical(event.metadata) not in forms:
            reason = "an event no recorded command produced (its metadata is not its group's)"
            return group, Finding("replay", event.seq, reason), None
    kind = table.kind if table is not None else str(body.get("kind", ""))
    try:
        command = commands.decode(kind, canonical(body))
    except (msgspec.ValidationError, RuleViolation, KeyError) as exc:
        reason = f"the recorded command is no command of this game: {exc}"
        return group, Finding("replay", first.seq, reason), None
    return group, None, command


def _context(
    table: Table | None, game_id: uuid.UUID, first: EventRecord, server_seed: bytes | None
) -> Context:
    now = float(first.metadata["command"]["now"])
    if table is None:
        # The create: the commitment is the server's free choice, checked when the seed is disclosed.
        committed = first.data.get("seed_commitment") if isinstance(first.data, dict) else None
        return Context(Draws(None, 0), now, None, seed_commitment=committed)
    rng = seeds.draws(table, game_id, server_seed) or Draws(None, table.version)
    return seeds.context(table, rng, now, server_seed)


def _decide(
    kind: str, table: Table | None, command: TableCommand, ctx: Context, group: list[EventRecord]
) -> tuple[list[Any] | None, Finding | None]:
    """What the rules produce for ``command``, checked against ``group`` (None, None: its draws
    need the server seed, not disclosed yet: the group is taken as recorded)."""
    first = group[0]
    try:
        produced = list(registry.for_kind(table.kind if table else kind).decide(table, command, ctx).events)
    except SeedUnavailable:
        if (
            table is not None
            and table.seed_commitment is None
            and getattr(table.options, "seed", None) is None
        ):
            return None, Finding("replay", first.seq, "a draw in a game without a committed seed")
        return None, None
    except RuleViolation as exc:
        return None, Finding("replay", first.seq, exc.message)
    except Exception as exc:  # the rules cannot even run on it: a forged table or command
        return None, Finding("replay", first.seq, f"the rules fail on the recorded command: {exc!r}")
    for index in range(max(len(produced), len(group))):
        if index >= len(group):
            tag = tables.event_tag(produced[index])
            # Named where it is missing: the seq after the group's last.
            return produced, Finding("replay", group[-1].seq + 1, f"the rules produce a further {tag} here")
        event = group[index]
        if index >= len(produced):
            return produced, Finding("replay", event.seq, "an event the rules do not produce here")
        tag = tables.event_tag(produced[index])
        if event.type != tag:
            return produced, Finding("replay", event.seq, f"the rules produce a {tag} here, not {event.type}")
        try:
            same = _today(kind if table is None else table.kind, event) == _normal(produced[index])
        except (ValueError, TypeError) as exc:
            return produced, Finding("replay", event.seq, f"does not replay: {exc}")
        if not same:
            return produced, Finding("replay", event.seq, "event differs from what the rules produce")
    return produced, None


def rerun(export: ExportFile, server_seed: bytes | None = None) -> Table | None:
    """The game as today's rules would have played its recorded commands: each one decided on
    the table the rules' own events made (a command they refuse is skipped), for "would the
    outcome change" (``playlog verify --all``). None: a log without recorded commands."""
    if not recorded(export):
        return None
    game_id = uuid.UUID(export.header.game_id)
    if server_seed is None and (disclosed := _disclosed(export)) is not None:
        server_seed = disclosed[1]
    table: Table | None = None
    events, at = export.events, 0
    while at < len(events):
        first = events[at]
        record = first.metadata.get("command") if isinstance(first.metadata, dict) else None
        if not isinstance(record, dict) or not isinstance(record.get("events"), int) or record["events"] < 1:
            break
        at += record["events"]
        kind = table.kind if table is not None else export.header.kind
        try:
            command = commands.decode(kind, canonical(record.get("body")))
            ctx = _context(table, game_id, first, server_seed)
            table = registry.for_kind(kind).decide(table, command, ctx).table
        except (RuleViolation, msgspec.ValidationError):
            continue
        except SeedUnavailable:
            break
    return table


def _seed_findings(
    table: Table | None, disclosed: tuple[int, bytes | None] | None, stopped: Finding | None
) -> list[Finding]:
    """The disclosed server seed against its commitment; a finished game must have disclosed it."""
    if table is None or table.seed_commitment is None:
        return []
    if disclosed is not None:
        seq, seed = disclosed
        if seed is None or randomness.server_commitment(seed) != table.seed_commitment:
            return [Finding("seeds", seq, "the disclosed server seed does not match its commitment")]
        return []
    if table.status == "finished" and stopped is None and table.finished_version is not None:
        return [Finding("seeds", table.finished_version, "the game ended without disclosing its server seed")]
    return []
