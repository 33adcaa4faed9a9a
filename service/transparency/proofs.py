"""The proofs an export carries after the game's own lines (docs/export-format.md, "Proofs").

- ``receipt_keys``: the game's keys of the receipts' head commitments, one per signing key
  (projections/receipts.py), so that a seat's receipts can be checked against the file;
- ``proof``: each head of the game (up to the exported seq) that is a leaf of the checkpoint
  below, with its inclusion proof;
- ``checkpoint``: the newest checkpoint a witness cosigned (else the newest), with its
  cosignatures, and the log's published keys.
"""

from __future__ import annotations

import base64
import uuid

import msgspec

from projections.notes import Checkpoint, Note
from projections.receipts import ReceiptSigner
from service.transparency.log import TransparencyLog


def _line(record: dict[str, object]) -> str:
    return msgspec.json.encode(record).decode() + "\n"


async def proof_lines(
    tlog: TransparencyLog, receipts: ReceiptSigner | None, game_id: uuid.UUID, until: int
) -> list[str]:
    """The proof lines of ``game_id`` exported up to seq ``until`` (``receipts``: the service's
    receipt signer, None where it signs none)."""
    lines = []
    if receipts is not None:
        lines.append(_line({"record": "receipt_keys", "keys": receipts.game_keys(game_id)}))
    note = await tlog.checkpoint(cosigned=True) or await tlog.checkpoint()
    if note is None:  # nothing logged yet
        return lines
    size = Checkpoint.parse_body(Note.parse(note).body).size
    for inclusion in await tlog.inclusions(game_id, size):
        if inclusion.seq <= until:
            proof = [base64.b64encode(p).decode() for p in inclusion.proof]
            lines.append(
                _line(
                    {
                        "record": "proof",
                        "index": inclusion.index,
                        "seq": inclusion.seq,
                        "head": inclusion.head.hex(),
                        "proof": proof,
                        # the game's tag of a version-2 leaf; none: a version-1 leaf
                        **({} if inclusion.tag is None else {"tag": inclusion.tag.hex()}),
                    }
                )
            )
    keys = [v.text for v in await tlog.published_keys()]
    lines.append(_line({"record": "checkpoint", "note": note, "log_keys": keys}))
    return lines
