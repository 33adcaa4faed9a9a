"""An export's proofs checked offline against keys the verifier trusts (``playlog verify --trust``).

The file's ``checkpoint`` must bear a signature of one of the trusted log keys and a cosignature
of every trusted witness key; each ``proof`` line must put its head, as a leaf, under that
checkpoint's root; and each proven head must be the file's own hash at its seq. A head the log
holds for a seq that the file hashes otherwise is a rewrite after the head was logged: its seq is
the finding. See docs/export-format.md ("Proofs").
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from projections import merkle
from projections.export.format import ExportFile
from projections.notes import COSIGNATURE_V1, ED25519, Checkpoint, Note, NoteError, Verifier


@dataclass(frozen=True)
class Trust:
    """The keys a verifier trusts: the log's, and the witnesses' it chose."""

    log_keys: list[Verifier]
    witness_keys: list[Verifier]

    @classmethod
    def parse(cls, lines: Iterable[str]) -> Trust:
        """Verifier keys, one a line (``#`` starts a comment): log keys (type 0x01) and witness
        keys (type 0x04) alike, told apart by their type."""
        keys = [Verifier.parse(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]
        return cls(
            [k for k in keys if k.kind == ED25519],
            [k for k in keys if k.kind == COSIGNATURE_V1],
        )


@dataclass(frozen=True)
class Proven:
    """What the proofs showed: the checkpoint's size, the seqs whose heads it holds, the witnesses
    that cosigned it; or the first thing that failed (``seq`` 0: the checkpoint itself)."""

    size: int
    seqs: list[int]
    witnesses: list[str]
    failure: tuple[int, str] | None = None


def check_proofs(export: ExportFile, trust: Trust) -> Proven:
    record = export.checkpoint
    if record is None:
        return Proven(0, [], [], (0, "the file carries no checkpoint"))
    try:
        note = Note.parse(record.note)
        checkpoint = Checkpoint.parse_body(note.body)
    except NoteError as exc:
        return Proven(0, [], [], (0, f"the checkpoint is not a signed checkpoint: {exc}"))
    if not any(note.signed_by(key) for key in trust.log_keys):
        return Proven(checkpoint.size, [], [], (0, "the checkpoint bears no signature of a trusted log key"))
    missing = [w.name for w in trust.witness_keys if not note.signed_by(w)]
    if missing:
        return Proven(checkpoint.size, [], [], (0, f"the checkpoint is not cosigned by {', '.join(missing)}"))
    witnesses = [w.name for w in trust.witness_keys]
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
