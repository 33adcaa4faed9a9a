"""Trust in an export's checkpoint extended to the log as it stands now
(``playlog verify --trust KEYS --extend URL``, docs/transparency-log.md).

The file's checkpoint holds the game's heads. A later checkpoint of the same log, signed by a
trusted log key and cosigned as the trust's quorum asks, with an RFC 9162 consistency proof from
the file's to it, shows that the log still holds them, as witnessed now: a log rebuilt without
them (a rewrite, a fork) has no such proof. Pure: the service's answers are given.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from projections import merkle
from projections.export.format import ExportFile
from projections.export.proofs import Trust
from projections.notes import Checkpoint, Note, NoteError


@dataclass(frozen=True)
class Later:
    """What the log answered: its checkpoint now (a signed note with its cosignatures) and the
    consistency proof from the file's checkpoint's size to it (empty when the sizes are equal)."""

    checkpoint: str  # empty: the log serves none (none a witness cosigned, if asked for one)
    proof: list[bytes]


@dataclass(frozen=True)
class Extended:
    summary: str
    failure: str | None = None


def _named(checkpoint: Checkpoint) -> str:
    return f"size {checkpoint.size}, root {base64.b64encode(checkpoint.root).decode()}"


def file_checkpoint(export: ExportFile) -> Checkpoint | None:
    """The checkpoint the file's proofs are against, if it carries a well-formed one."""
    try:
        return Checkpoint.parse_body(Note.parse(export.checkpoint.note).body) if export.checkpoint else None
    except NoteError:
        return None


def check_extension(export: ExportFile, trust: Trust, later: Later) -> Extended:
    old = file_checkpoint(export)
    if old is None:
        return Extended("not extended", "the file carries no checkpoint to extend")
    if not later.checkpoint:
        return Extended(
            "not extended", "the log serves no checkpoint now (none cosigned, if witnesses are trusted)"
        )
    try:
        note = Note.parse(later.checkpoint)
        new = Checkpoint.parse_body(note.body)
    except NoteError as exc:
        return Extended("not extended", f"the log's checkpoint now is not a signed checkpoint: {exc}")
    shown = f"the file's checkpoint ({_named(old)}) and the log's now ({_named(new)})"
    cosigned, untrusted = trust.cosigners(note)
    reason = None
    if untrusted is not None:
        reason = f"the log's checkpoint now {untrusted}"
    elif new.origin != old.origin:
        reason = f"the log's checkpoint now names another log ({new.origin})"
    elif new.size < old.size or not merkle.verify_consistency(
        old.size, new.size, old.root, new.root, later.proof
    ):
        reason = "the log now does not extend the file's checkpoint (rewritten or forked since)"
    if reason is not None:
        return Extended("not extended", f"{reason}: {shown}")
    witnessed = f", cosigned by {', '.join(w.name for w in cosigned)}" if cosigned else ""
    return Extended(
        f"the file's checkpoint of size {old.size} is in the log's of size {new.size} now{witnessed}"
    )
