"""Offline verification of an exported game (docs/export-format.md): no server, no database.

``verify`` checks
- the hash chain of the events (``projections/export/format.py`` says what is hashed);
- every shuffle commitment against its reveal, and the reveal against the replayed state;
- every recorded command re-executed through today's rules, the events it produced required
  exactly (projections/export/reexecute.py; a log without commands: replayed), reaching every
  fact of the header;
- the disclosed server seed against its commitment;
- the access records' own chain and that each record could be true of this log: its range
  within the events logged by its time, its reason one of the list, a read before the end with a
  reason, a dispute it names raised before it;
- given the keys a verifier trusts, the file's proofs: its heads under a cosigned checkpoint
  (projections/export/proofs.py);
- given a seat's receipts and the keys a verifier trusts, that the file holds every receipted
  append as receipted (projections/export/receipted.py); without pinned keys they are unverified;
- given the log's checkpoint now and a consistency proof to it, that the log still extends the
  file's checkpoint, when that checkpoint is trusted (projections/export/extend.py);
- given a C2SP tlog-proof and the trust, that it proves one of the file's heads
  (projections/export/tlogproof.py).

The verdict is OK, FAILED (a finding: something contradicts the file) or UNVERIFIED (nothing
contradicts it, but something asked or needed was not checked: receipts without pinned keys, a
log only replayed that the caller did not accept at that level). Only OK is ``ok``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from decimal import Decimal

import msgspec

from domain import access as reasons
from domain import commitment
from projections.export.extend import Later, check_extension
from projections.export.findings import Finding, Replayed
from projections.export.format import (
    GENESIS_HASH,
    AccessLine,
    ExportError,
    ExportFile,
    ShuffleRecord,
    access_digest,
    event_digest,
    read,
)
from projections.export.opened import check_personal, opened
from projections.export.proofs import Trust, check_proofs
from projections.export.receipted import check_receipts
from projections.export.reexecute import reexecute, replay
from projections.export.tlogproof import check_tlog_proof

__all__ = ["Finding", "Replayed", "VerifyReport", "replay", "verify", "verify_lines"]

# Findings that name something else than a seq of the log.
_NOT_SEQS = ("access", "format", "receipts", "extend", "tlog-proof")


class VerifyReport(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    kind: str
    events: int
    shuffles: int
    chain_ok: bool
    shuffles_ok: bool
    replay_ok: bool
    winners: list[int] | None
    findings: list[Finding]
    access: int = 0
    access_ok: bool = True
    # The level of the rules' check (docs/export-format.md): "re-executed" or "replayed".
    level: str = "replayed"
    executed: int = 0  # commands re-executed
    awaiting: int = 0  # of them, applied as facts until the server seed is disclosed
    seeds_ok: bool = True
    seed_committed: bool = False  # lobby.created commits a server seed (not a seeded or older game)
    seed_disclosed: bool = False
    log: str | None = None  # with trusted keys: what the proofs showed
    receipts: str | None = None  # with a seat's receipts: how many were checked
    extended: str | None = None  # with the log's checkpoint now: what extended to what
    personal: str | None = None  # with personal texts (docs/erasure.md): how many, how many erased
    tlog_proof: str | None = None  # with a C2SP tlog-proof of the game's head: what it proved
    # What was asked or needed but could not be checked, by check (receipts without pinned keys,
    # a log only replayed without the caller accepting that level): no contradiction, yet no OK.
    unverified: dict[str, str] = msgspec.field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.findings and not self.unverified

    @property
    def first_bad_seq(self) -> int | None:
        return min((f.seq for f in self.findings if f.check not in _NOT_SEQS and f.seq), default=None)

    @property
    def first_bad_line(self) -> int | None:
        return min((f.seq for f in self.findings if f.check == "format"), default=None)

    def seeds_text(self) -> str:
        if not self.seeds_ok:
            return "FAILED"
        if not self.seed_committed:
            return "none committed (a seeded game, or one recorded before seeds)"
        return "ok" if self.seed_disclosed else "not disclosed yet"

    def level_text(self) -> str:
        if self.level != "re-executed":
            refused = "level" in self.unverified
            return "replayed (no recorded commands)" + (": NOT ACCEPTED" if refused else "")
        waiting = f", {self.awaiting} replayed awaiting the server seed" if self.awaiting else ""
        return f"re-executed ({self.executed} commands{waiting})"

    @property
    def first_bad_access(self) -> int | None:
        return min((f.seq for f in self.findings if f.check == "access"), default=None)

    @property
    def first_contradicting_receipt(self) -> int | None:
        return min((f.seq for f in self.findings if f.check == "receipts" and f.seq), default=None)

    def lines(self) -> list[str]:
        out = [
            f"game {self.game_id} ({self.kind}): {self.events} events, {self.shuffles} shuffles",
            f"hash chain:  {'ok' if self.chain_ok else 'FAILED'}",
            f"shuffles:    {'ok' if self.shuffles_ok else 'FAILED'}",
            f"replay:      {'ok' if self.replay_ok else 'FAILED'}"
            + (f" (winners {self.winners})" if self.replay_ok and self.winners is not None else ""),
            f"level:       {self.level_text()}",
            f"seeds:       {self.seeds_text()}",
            f"access:      {'ok' if self.access_ok else 'FAILED'} ({self.access} records)",
        ]
        failing = {f.check for f in self.findings}
        if self.personal is not None:
            out.append(f"texts:       {'FAILED' if 'personal' in failing else 'ok'} ({self.personal})")
        if self.log is not None:
            out.append(f"log:         {'FAILED' if 'log' in failing else 'ok'} ({self.log})")
        if self.receipts is not None:
            out.append(f"receipts:    {self._state('receipts')} ({self.receipts})")
        if self.extended is not None:
            out.append(f"extended:    {self._state('extend')} ({self.extended})")
        if self.tlog_proof is not None:
            out.append(f"tlog-proof:  {self._state('tlog-proof')} ({self.tlog_proof})")
        for finding in sorted(self.findings, key=lambda f: (f.check in _NOT_SEQS, f.seq))[:5]:
            out.append(f"  {finding.where()} ({finding.check}): {finding.reason}")
        failed = [
            f"first bad {what} {at}"
            for what, at in (
                ("seq", self.first_bad_seq),
                ("access record", self.first_bad_access),
                ("line", self.first_bad_line),
                ("receipt", self.first_contradicting_receipt),
            )
            if at is not None
        ]
        if "log" in failing and self.first_bad_seq is None:
            failed.append("the checkpoint")
        if "extend" in failing:
            failed.append("the log now")
        if "tlog-proof" in failing:
            failed.append("the tlog-proof")
        if any(f.check == "receipts" and f.seq == 0 for f in self.findings):
            failed.append("no receipt of this game")
        if failed:
            out.append("FAILED: " + ", ".join(failed))
        else:
            out.append("UNVERIFIED: " + "; ".join(self.unverified.values()) if self.unverified else "OK")
        return out

    def _state(self, check: str) -> str:
        if any(f.check == check for f in self.findings):
            return "FAILED"
        return "UNVERIFIED" if check in self.unverified else "ok"


def check_chain(export: ExportFile) -> Finding | None:
    header = export.header
    running = GENESIS_HASH
    for expected_seq, event in enumerate(export.events, start=1):
        reason = None
        if event.seq != expected_seq:
            reason = f"seq {expected_seq} is missing (found seq {event.seq})"
        elif event.prev_hash != running:
            reason = "prev_hash does not match the previous event's hash"
        else:
            digest = event_digest(
                event.prev_hash,
                header.game_id,
                event.seq,
                event.type,
                event.schema_version,
                event.data,
                event.metadata,
                event.recorded_at,
            )
            if digest != event.hash:
                reason = "content does not match its hash"
        if reason:
            return Finding("chain", expected_seq, reason)
        running = event.hash
    count = len(export.events)
    if header.events != count or header.last_hash != running.hex():
        return Finding("chain", count + 1, f"the header has {header.events} events; the file {count}")
    return None


def check_outcome(export: ExportFile, replayed: Replayed) -> Finding | None:
    header = export.header
    table = replayed.table
    last = len(export.events)
    if table is None:
        return Finding("replay", 1, "the file holds no events")
    created = (table.kind, table.raw_options, table.public, table.spectator_delay, table.rules_version)
    said = (header.kind, header.options, header.public, header.spectator_delay, header.rules_version)
    for name, found, claimed in zip(
        ("kind", "options", "public", "spectator_delay", "rules_version"), created, said, strict=True
    ):
        if found != claimed:
            return Finding("replay", 1, f"the header's {name} differs from lobby.created")
    winners = list(table.outcome.winners) if table.outcome else None
    scores = list(table.outcome.scores) if table.outcome and table.outcome.scores else None
    if table.status != header.status or winners != header.winners or scores != header.scores:
        return Finding(
            "replay",
            max(last, header.events),  # where the header's outcome was reached
            f"replay ends {table.status} with winners {winners} and scores {scores}; the header says"
            f" {header.status} with winners {header.winners} and scores {header.scores}",
        )
    return None


def check_shuffles(export: ExportFile, replayed: Replayed) -> Finding | None:
    findings: list[Finding] = []
    revealed: dict[int, ShuffleRecord] = {}
    for line in export.shuffles:
        if revealed.setdefault(line.seq, line) is not line:
            findings.append(Finding("shuffles", line.seq, "a second reveal of one commitment"))
    types = {event.seq: event.type for event in export.events}
    for seq, (committed, salt) in replayed.commitments.items():
        shuffle = revealed.get(seq)
        if shuffle is None:
            findings.append(Finding("shuffles", seq, "a commitment without its reveal"))
        elif shuffle.type != types[seq] or shuffle.commitment != committed or shuffle.salt != salt:
            reason = "the reveal's type, commitment or salt differs from the event's"
            findings.append(Finding("shuffles", seq, reason))
        elif not commitment.verify(shuffle.order, shuffle.salt, shuffle.commitment):
            findings.append(Finding("shuffles", seq, "the revealed order does not match its commitment"))
        elif shuffle.order != replayed.orders[seq]:
            findings.append(Finding("shuffles", seq, "the revealed order is not the replayed one"))
    for seq in revealed.keys() - replayed.commitments.keys():
        if replayed.finding is None or seq < replayed.finding.seq:
            findings.append(Finding("shuffles", seq, "a reveal without a commitment"))
    return min(findings, key=lambda f: f.seq, default=None)


def check_access(export: ExportFile, replayed: Replayed) -> Finding | None:
    """The access records' chain, and that each could be true of the file's log."""
    table = replayed.table
    finished = table.finished_version if table is not None else None
    ended = export.events[finished - 1].recorded_at if finished else None
    raised = {
        str(event.data.get("dispute_id")): event.recorded_at
        for event in export.events
        if event.type == "dispute.raised" and isinstance(event.data, dict)
    }
    running = GENESIS_HASH
    for expected, record in enumerate(export.access, start=1):
        reason = None
        if record.n != expected:
            reason = f"access record {expected} is missing (found {record.n})"
        elif record.prev_hash != running:
            reason = "prev_hash does not match the previous record's hash"
        elif access_digest(record.prev_hash, export.header.game_id, record) != record.hash:
            reason = "content does not match its hash"
        else:
            reason = _implausible(export, record, ended, raised)
        if reason:
            return Finding("access", expected, reason)
        running = record.hash
    return None


def _implausible(
    export: ExportFile, record: AccessLine, ended: Decimal | None, raised: dict[str, Decimal]
) -> str | None:
    """Why ``record`` cannot be true of the file's log (None: it can). ``ended``: when the
    game's finishing event was logged; ``raised``: when each of its disputes was."""
    logged = sum(1 for event in export.events if event.recorded_at <= record.at)
    if record.reason not in reasons.RECORDED:
        return f"unknown reason {record.reason!r}"
    if not 1 <= record.seq_from <= record.seq_to <= logged:
        return f"seqs {record.seq_from}-{record.seq_to} were not all logged by its time ({logged} were)"
    if record.reason == reasons.AFTER_END and (ended is None or record.at < ended):
        return "a read before the game ended, without a reason"
    if record.reason == reasons.DISPUTE:
        at = raised.get(record.dispute_id or "")
        if at is None or at > record.at:
            return f"names dispute {record.dispute_id}, not raised in this game before the read"
    elif record.dispute_id is not None:
        return f"names dispute {record.dispute_id} with the reason {record.reason!r}"
    return None


def verify(
    export: ExportFile,
    server_seed: bytes | None = None,
    *,
    trust: Trust | None = None,
    receipts: Sequence[str] | None = None,
    later: Later | None = None,
    accept: Collection[str] = (),
    tlog_proof: str | None = None,
) -> VerifyReport:
    """Every check of a parsed export; see the module docstring. ``server_seed``: the game's
    seed as the server holds it, to re-execute a running game whole (the audit, ``--all``).
    With ``trust``, the proofs too; with ``receipts``, a seat's receipts (checked against the
    trusted log keys only: without them, unverified). ``accept``: the levels below
    re-execution the caller accepts ("replayed": a log without recorded commands, whose events
    are taken as facts); a file checked at a level not accepted is unverified. ``tlog_proof``: a
    C2SP tlog-proof of one of the file's heads, checked against ``trust``."""
    chain = check_chain(export)
    texts = check_personal(export)
    judged = opened(export)  # the rules see the texts; the hashes cover the seals
    replayed = reexecute(judged, server_seed)
    rules = replayed.finding or check_outcome(judged, replayed)
    seeds = min(replayed.seeds, key=lambda f: f.seq, default=None)
    shuffles = check_shuffles(judged, replayed)
    access = check_access(judged, replayed) if rules is None else None
    table = replayed.table
    level = "re-executed" if replayed.recorded else "replayed"
    extra: list[Finding] = []
    unverified: dict[str, str] = {}
    if level not in ("re-executed", *accept):
        unverified["level"] = (
            f"the level {level} (no recorded commands) is not accepted (--accept-level {level})"
        )
    log_summary = receipts_summary = extended = None
    proven = None
    if trust is not None:
        proven = check_proofs(export, trust)
        cosigned = f", cosigned by {', '.join(proven.witnesses)}" if proven.witnesses else ""
        log_summary = f"heads at seqs {proven.seqs} under the checkpoint of size {proven.size}{cosigned}"
        if proven.failure:
            extra.append(Finding("log", *proven.failure))
    if receipts is not None and trust is None:
        # Keys taken from the file itself would let whoever wrote it sign the receipts.
        receipts_summary = f"{len(receipts)} given, none checked: no pinned log keys"
        unverified["receipts"] = "the receipts need pinned log keys (--trust)"
    elif receipts is not None and trust is not None:
        receipted = check_receipts(export, receipts, trust.log_keys)
        receipts_summary = f"{receipted.checked} of this game checked against the trusted keys" + (
            f", {receipted.other_games} of other games" if receipted.other_games else ""
        )
        if receipted.failure:
            extra.append(Finding("receipts", *receipted.failure))
        elif not receipted.checked:
            extra.append(Finding("receipts", 0, "no receipt of this game among those given"))
    if proven is not None and later is not None:
        assert trust is not None
        if not proven.trusted:
            extended = "not checked: the file's checkpoint is not one the verifier trusts"
            unverified["extend"] = "the extension of an untrusted checkpoint"
        else:
            extension = check_extension(export, trust, later)
            extended = extension.summary
            if extension.failure:
                extra.append(Finding("extend", 0, extension.failure))
    proof_summary = None
    if tlog_proof is not None and trust is None:
        proof_summary = "not checked: no trust policy"
        unverified["tlog-proof"] = "the tlog-proof needs a trust policy (--trust)"
    elif tlog_proof is not None and trust is not None:
        proved = check_tlog_proof(tlog_proof, export, trust)
        proof_summary = proved.summary
        if proved.failure:
            extra.append(Finding("tlog-proof", 0, proved.failure))
    return VerifyReport(
        game_id=export.header.game_id,
        kind=export.header.kind,
        events=len(export.events),
        shuffles=len(export.shuffles),
        chain_ok=chain is None,
        shuffles_ok=shuffles is None,
        replay_ok=rules is None,
        winners=list(table.outcome.winners) if table and table.outcome else None,
        findings=[f for f in (chain, texts, shuffles, rules, seeds, access) if f is not None] + extra,
        access=len(export.access),
        access_ok=access is None,
        level=level,
        executed=replayed.executed,
        awaiting=replayed.awaiting,
        seeds_ok=seeds is None,
        seed_committed=table is not None and table.seed_commitment is not None,
        seed_disclosed=table is not None and table.server_seed is not None,
        log=log_summary,
        receipts=receipts_summary,
        extended=extended,
        personal=_personal_summary(export),
        tlog_proof=proof_summary,
        unverified=unverified,
    )


def _personal_summary(export: ExportFile) -> str | None:
    if not export.personal:
        return None
    erased = sum(1 for record in export.personal.values() if record.text is None)
    return f"{len(export.personal) - erased} open their seals, {erased} erased"


def verify_lines(
    lines: Iterable[str | bytes],
    *,
    trust: Trust | None = None,
    receipts: Sequence[str] | None = None,
    accept: Collection[str] = (),
) -> VerifyReport:
    """Parse and verify; a file that cannot be parsed yields a report naming where."""
    try:
        export = read(lines)
    except ExportError as exc:
        return VerifyReport(
            game_id="?",
            kind="?",
            events=0,
            shuffles=0,
            chain_ok=False,
            shuffles_ok=False,
            replay_ok=False,
            winners=None,
            findings=[Finding("format", exc.line or 1, str(exc))],
        )
    return verify(export, trust=trust, receipts=receipts, accept=accept)
