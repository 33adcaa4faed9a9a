"""An export's proofs checked offline against keys the verifier trusts (``playlog verify --trust``).

The file's ``checkpoint`` must bear a signature of one of the trusted log keys and the
cosignatures the trust's quorum asks for (a flat key list: every witness listed; a C2SP
tlog-policy: its quorum), and no line of a known key that does not verify; each ``proof`` line
must put its head, as a leaf, under that checkpoint's root; and each proven head must be the
file's own hash at its seq. A head the log holds for a seq that the file hashes otherwise is a
rewrite after the head was logged: its seq is the finding. See docs/export-format.md ("Proofs").
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from projections import merkle
from projections.export.format import ExportFile
from projections.notes import COSIGNATURE_V1, ED25519, Checkpoint, Note, NoteError, Verifier


@dataclass(frozen=True)
class Group:
    """A witness group of a C2SP tlog-policy: met when ``k`` of its members are (a member is a
    witness, met by its cosignature, or an earlier group)."""

    name: str
    k: int
    members: tuple[Verifier | Group, ...]

    def met(self, cosigned: Collection[Verifier]) -> bool:
        return (
            sum(m in cosigned if isinstance(m, Verifier) else m.met(cosigned) for m in self.members) >= self.k
        )


NONE = Group("none", 0, ())


@dataclass(frozen=True)
class Trust:
    """What a verifier trusts: the log's keys, the witnesses' keys it knows, and the quorum of
    them a checkpoint must bear (from a flat key list: every witness listed)."""

    log_keys: list[Verifier]
    witness_keys: list[Verifier]
    quorum: Group = NONE

    @classmethod
    def parse(cls, lines: Iterable[str]) -> Trust:
        """A C2SP tlog-policy file (``log``, ``witness``, ``group`` and ``quorum`` lines), or
        verifier keys one a line: log keys (type 0x01) and witness keys (type 0x04), told apart
        by their type, every witness required. ``#`` starts a comment."""
        kept = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
        if any(line.split()[0] in _POLICY_WORDS for line in kept):
            return _policy(kept)
        keys = [Verifier.parse(line) for line in kept]
        witnesses = [k for k in keys if k.kind == COSIGNATURE_V1]
        every = Group("every listed witness", len(witnesses), tuple(witnesses)) if witnesses else NONE
        return cls([k for k in keys if k.kind == ED25519], witnesses, every)

    def cosigners(self, note: Note) -> tuple[list[Verifier], str | None]:
        """The known witnesses that cosigned ``note``, and why it is not trusted (None: it is):
        no signature of a log key, a line of a known key that does not verify (the whole note
        refused), or cosignatures short of the quorum."""
        try:
            signers = note.signers([*self.log_keys, *self.witness_keys])
        except NoteError as exc:
            return [], str(exc)
        cosigned = [w for w in self.witness_keys if w in signers]
        if not any(k in signers for k in self.log_keys):
            return cosigned, "bears no signature of a trusted log key"
        if not self.quorum.met(cosigned):
            if self.quorum.k == len(self.quorum.members) and all(
                isinstance(m, Verifier) for m in self.quorum.members
            ):
                missing = [m.name for m in self.quorum.members if m not in cosigned]
                return cosigned, f"is not cosigned by {', '.join(missing)}"
            names = ", ".join(w.name for w in cosigned) or "none"
            return cosigned, f"is cosigned by {names}: short of the quorum {self.quorum.name}"
        return cosigned, None


_POLICY_WORDS = ("log", "witness", "group", "quorum")


def _policy(lines: list[str]) -> Trust:
    """A C2SP tlog-policy: names defined before they are used, one quorum line, k in 1..n."""
    logs: list[Verifier] = []
    names: dict[str, Verifier | Group] = {"none": NONE}
    quorum: Group | None = None
    for line in lines:
        word, *rest = line.split()
        if word == "log" and len(rest) in (1, 2):
            logs.append(_key(rest[0], ED25519))
        elif word == "witness" and len(rest) in (2, 3) and rest[0] not in names:
            names[rest[0]] = _key(rest[1], COSIGNATURE_V1)
        elif word == "group" and len(rest) >= 3 and rest[0] not in names:
            members = rest[2:]
            if len(set(members)) != len(members) or not all(m in names and m != "none" for m in members):
                raise NoteError(f"a policy group names an undefined member, none, or one twice: {line!r}")
            k = {"all": len(members), "any": 1}.get(rest[1]) or _threshold(rest[1], len(members))
            names[rest[0]] = Group(rest[0], k, tuple(names[m] for m in members))
        elif word == "quorum" and len(rest) == 1 and rest[0] in names and quorum is None:
            found = names[rest[0]]
            quorum = found if isinstance(found, Group) else Group(rest[0], 1, (found,))
        else:
            raise NoteError(f"not a policy line (or a name defined twice, or a second quorum): {line!r}")
    if quorum is None:
        raise NoteError("a policy needs one quorum line")
    witnesses = [v for v in names.values() if isinstance(v, Verifier)]
    if len({v.public for v in witnesses}) != len(witnesses) or len({v.public for v in logs}) != len(logs):
        raise NoteError("a policy lists one key twice")
    return Trust(logs, witnesses, quorum)


def _key(text: str, kind: int) -> Verifier:
    key = Verifier.parse(text)
    if key.kind != kind:
        raise NoteError(
            f"the key of {key.name} is not of the type a {'log' if kind == ED25519 else 'witness'} signs with"
        )
    return key


def _threshold(text: str, n: int) -> int:
    if not text.isdigit() or not 1 <= int(text) <= n or str(int(text)) != text:
        raise NoteError(f"a group's threshold is all, any or 1..{n}: {text!r}")
    return int(text)


@dataclass(frozen=True)
class Proven:
    """What the proofs showed: the checkpoint's size, the seqs whose heads it holds, the witnesses
    that cosigned it; or the first thing that failed (``seq`` 0: the checkpoint itself)."""

    size: int
    seqs: list[int]
    witnesses: list[str]
    failure: tuple[int, str] | None = None
    trusted: bool = True  # the checkpoint itself: signed, cosigned as the quorum asks


def check_proofs(export: ExportFile, trust: Trust) -> Proven:
    record = export.checkpoint
    if record is None:
        return Proven(0, [], [], (0, "the file carries no checkpoint"), trusted=False)
    try:
        note = Note.parse(record.note)
        checkpoint = Checkpoint.parse_body(note.body)
    except NoteError as exc:
        return Proven(0, [], [], (0, f"the checkpoint is not a signed checkpoint: {exc}"), trusted=False)
    cosigned, untrusted = trust.cosigners(note)
    if untrusted is not None:
        return Proven(checkpoint.size, [], [], (0, f"the checkpoint {untrusted}"), trusted=False)
    witnesses = [w.name for w in cosigned]
    game_id = uuid.UUID(export.header.game_id)
    hashes = {event.seq: event.hash for event in export.events}
    seqs: list[int] = []
    for proof in sorted(export.proofs, key=lambda p: (p.seq, p.index)):
        leaf = merkle.leaf_hash(merkle.leaf_data(game_id, proof.seq, proof.head, proof.tag))
        if not merkle.verify_inclusion(leaf, proof.index, checkpoint.size, proof.proof, checkpoint.root):
            failure = (proof.seq, f"the inclusion proof of leaf {proof.index} fails against the checkpoint")
            return Proven(checkpoint.size, seqs, witnesses, failure)
        if hashes.get(proof.seq) != proof.head:
            reason = "the log holds another head for this seq: the game was rewritten after it was logged"
            return Proven(checkpoint.size, seqs, witnesses, (proof.seq, reason))
        seqs.append(proof.seq)
    if not seqs:
        return Proven(checkpoint.size, [], witnesses, (0, "no head of this game is under the checkpoint"))
    return Proven(checkpoint.size, seqs, witnesses)
