"""A game's last logged head as a C2SP tlog-proof (c2sp.org/tlog-proof), made from an export and
checked offline against a trust policy (``playlog proof FILE``, ``playlog verify --proof``).

The proof's ``extra`` line carries the leaf's data (``"playlog/head/v1" || game id || seq ||
head``, docs/transparency-log.md) so that a verifier can recompute the leaf hash; it is not
trusted as such: the leaf must be the file's own head at that seq. Pure: no I/O.

    c2sp.org/tlog-proof@v1
    extra <base64 leaf data>
    index <leaf index>
    <base64 hash, the leaf's sibling first>
    ...
    <blank line>
    <the checkpoint, a signed note with its cosignatures>
"""

from __future__ import annotations

import base64
import binascii
import struct
import uuid
from dataclasses import dataclass

from projections import merkle
from projections.export.format import ExportFile
from projections.export.proofs import Trust
from projections.notes import Checkpoint, Note, NoteError

HEADER = "c2sp.org/tlog-proof@v1"


class ProofFormatError(ValueError):
    """Not a tlog-proof, or one this verifier cannot read."""


@dataclass(frozen=True)
class TlogProof:
    extra: bytes | None
    index: int
    proof: list[bytes]
    checkpoint: str  # the signed note, verbatim

    @property
    def text(self) -> str:
        extra = [f"extra {base64.b64encode(self.extra).decode()}"] if self.extra is not None else []
        hashes = [base64.b64encode(h).decode() for h in self.proof]
        return (
            "\n".join([HEADER, *extra, f"index {self.index}", *hashes, "", self.checkpoint.rstrip("\n")])
            + "\n"
        )

    @classmethod
    def parse(cls, text: str) -> TlogProof:
        head, sep, checkpoint = text.partition("\n\n")
        lines = head.split("\n")
        if not sep or lines[0] != HEADER:
            raise ProofFormatError(
                f"not a tlog-proof (its first line is {HEADER}, a blank line before the checkpoint)"
            )
        at, extra = 1, None
        try:
            if len(lines) > at and lines[at].startswith("extra "):
                extra = base64.b64decode(lines[at].removeprefix("extra "), validate=True)
                at += 1
            index = lines[at].removeprefix("index ") if len(lines) > at else ""
            if not lines[at].startswith("index ") or not index.isdigit() or str(int(index)) != index:
                raise ProofFormatError(
                    "a tlog-proof's index line is 'index' and a decimal with no leading zeros"
                )
            proof = [base64.b64decode(line, validate=True) for line in lines[at + 1 :]]
        except binascii.Error:
            raise ProofFormatError("a tlog-proof's extra data or hash is not base64") from None
        return cls(extra, int(index), proof, checkpoint)


def last_head(export: ExportFile) -> TlogProof | None:
    """The tlog-proof of the game's last head under the file's checkpoint (None: the file carries
    no proof, or no checkpoint)."""
    if export.checkpoint is None or not export.proofs:
        return None
    last = max(export.proofs, key=lambda p: p.seq)
    data = merkle.leaf_data(uuid.UUID(export.header.game_id), last.seq, last.head)
    return TlogProof(data, last.index, last.proof, export.checkpoint.note)


@dataclass(frozen=True)
class ProofChecked:
    summary: str
    failure: str | None = None


def check_tlog_proof(text: str, export: ExportFile, trust: Trust) -> ProofChecked:
    """The proof's checkpoint trusted (signed, cosigned as the quorum asks), its leaf under it, and
    that leaf one of the file's heads: this game's, at a seq whose hash it is."""
    try:
        proof = TlogProof.parse(text)
        note = Note.parse(proof.checkpoint)
        checkpoint = Checkpoint.parse_body(note.body)
    except (ProofFormatError, NoteError) as exc:
        return ProofChecked("not checked", f"the tlog-proof cannot be read: {exc}")
    cosigned, untrusted = trust.cosigners(note)
    if untrusted is not None:
        return ProofChecked("not checked", f"the tlog-proof's checkpoint {untrusted}")
    data = proof.extra or b""
    if len(data) != len(merkle.LEAF_PREFIX) + 16 + 8 + 32 or not data.startswith(merkle.LEAF_PREFIX):
        return ProofChecked("not checked", "the tlog-proof's extra data is not a playlog leaf")
    rest = data[len(merkle.LEAF_PREFIX) :]
    game_id, (seq,), head = uuid.UUID(bytes=rest[:16]), struct.unpack(">Q", rest[16:24]), rest[24:]
    leaf = merkle.leaf_hash(data)
    if not merkle.verify_inclusion(leaf, proof.index, checkpoint.size, proof.proof, checkpoint.root):
        return ProofChecked(
            "not checked", f"the inclusion proof of leaf {proof.index} fails against its checkpoint"
        )
    hashes = {event.seq: event.hash for event in export.events}
    if str(game_id) != export.header.game_id or hashes.get(seq) != head:
        return ProofChecked("not checked", f"the proven leaf is not this file's head at seq {seq}")
    witnessed = f", cosigned by {', '.join(w.name for w in cosigned)}" if cosigned else ""
    return ProofChecked(
        f"the head at seq {seq} is leaf {proof.index} of the checkpoint of size {checkpoint.size}{witnessed}"
    )
