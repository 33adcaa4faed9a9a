"""A witness of the transparency log: a separate process, with its own key and its own storage.

Each round it fetches the log's checkpoint, checks the log's signature, and checks that the
checkpoint extends the last one it cosigned (a consistency proof, RFC 9162 2.1.4.2). Then it
cosigns (C2SP tlog-cosignature, ``cosignature/v1``), remembers the checkpoint, and hands the
cosignature to the log (``POST /log/cosignatures``). It never cosigns a smaller tree than one it
has cosigned.

Shown a history that does not extend the one it saw (the same size with another root, a proof
that does not verify, a signature that does not verify), it refuses: it cosigns nothing more,
writes both checkpoints and what the log answered into ``<state>/evidence/<time>/``, and raises
``Refused`` (the command exits non-zero and logs an error).

State directory: ``checkpoint`` (the last checkpoint cosigned, as the log signed it),
``log-keys`` (the log's verifier keys, given on the command line or pinned on first contact).
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from projections import merkle
from projections.notes import (
    COSIGNATURE_V1,
    Checkpoint,
    Note,
    NoteError,
    Signer,
    Verifier,
    cosign,
)

CHECKPOINT_FILE = "checkpoint"
KEYS_FILE = "log-keys"


class Refused(Exception):
    """The log showed a history the witness will not cosign; ``evidence`` holds both sides."""

    def __init__(self, reason: str, evidence: Path) -> None:
        super().__init__(f"{reason} (evidence in {evidence})")
        self.reason = reason
        self.evidence = evidence


def load_key(path: Path, name: str | None) -> Signer:
    """The witness's signing key from ``path``, made there (for ``name``) if the file is absent."""
    if path.exists():
        signer = Signer.parse(path.read_text())
        if signer.kind != COSIGNATURE_V1:
            raise NoteError("a witness key signs cosignatures (type 0x04), not checkpoints")
        return signer
    if not name:
        raise NoteError(f"{path} does not exist: give --name to make a new witness key there")
    signer = Signer.generate(name, COSIGNATURE_V1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(signer.text + "\n")
    path.chmod(0o600)
    return signer


def _write(path: Path, text: str) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)


@dataclass
class Witness:
    log_url: str
    key: Signer
    state: Path
    log_keys: list[Verifier] | None = None  # None: the ones pinned in the state, or pin the log's

    async def round(self, client: httpx.AsyncClient) -> str:
        """One look at the log: ``cosigned``, ``unchanged``, ``behind`` (an older checkpoint,
        consistent with ours) or ``empty``; raises ``Refused``."""
        self.state.mkdir(parents=True, exist_ok=True)
        keys = await self._keys(client)
        response = await client.get(f"{self.log_url}/log/checkpoint")
        if response.status_code == 404:
            return "empty"
        response.raise_for_status()
        shown_text = response.text
        last_text = self._last()
        try:
            shown_note = Note.parse(shown_text)
            shown = Checkpoint.parse_body(shown_note.body)
        except NoteError as exc:
            raise self._refuse(f"the checkpoint is malformed: {exc}", last_text, shown_text) from None
        if not any(shown_note.signed_by(k) for k in keys if k.name == shown.origin):
            raise self._refuse("the checkpoint bears no valid signature of the log", last_text, shown_text)
        log_signed = Note(shown_note.body, tuple(s for s in shown_note.signatures if s[0] == shown.origin))
        if last_text is None:
            return await self._cosign(client, log_signed)
        last = Checkpoint.parse_body(Note.parse(last_text).body)
        if last.origin != shown.origin:
            raise self._refuse("the checkpoint names another log", last_text, shown_text)
        if shown.size == last.size:
            if shown.root != last.root:
                raise self._refuse("two trees of the same size with different roots", last_text, shown_text)
            if not shown_note.signed_by(self.key.verifier):  # the log never got it, or lost it
                return await self._cosign(client, log_signed)
            return "unchanged"
        old, new = (last, shown) if last.size < shown.size else (shown, last)
        proof_response = await client.get(
            f"{self.log_url}/log/consistency", params={"from": old.size, "to": new.size}
        )
        if proof_response.status_code != 200:
            raise self._refuse(
                f"the log gives no consistency proof ({proof_response.status_code})",
                last_text,
                shown_text,
                proof_response.text,
            )
        proof = [base64.b64decode(h) for h in proof_response.json()["proof"]]
        if not merkle.verify_consistency(old.size, new.size, old.root, new.root, proof):
            raise self._refuse(
                "the new checkpoint does not extend the one cosigned",
                last_text,
                shown_text,
                proof_response.text,
            )
        if shown.size < last.size:
            return "behind"
        return await self._cosign(client, log_signed)

    async def _keys(self, client: httpx.AsyncClient) -> list[Verifier]:
        if self.log_keys is not None:
            return self.log_keys
        path = self.state / KEYS_FILE
        if not path.exists():  # trust on first use: pinned, and every later round checks against it
            response = await client.get(f"{self.log_url}/log/keys")
            response.raise_for_status()
            _write(path, "".join(k + "\n" for k in response.json()["log_keys"]))
        self.log_keys = [Verifier.parse(line) for line in path.read_text().splitlines() if line.strip()]
        return self.log_keys

    def _last(self) -> str | None:
        path = self.state / CHECKPOINT_FILE
        return path.read_text() if path.exists() else None

    async def _cosign(self, client: httpx.AsyncClient, checkpoint: Note) -> str:
        # Remembered before it is handed over: once out, this witness is bound to it.
        _write(self.state / CHECKPOINT_FILE, checkpoint.text)
        line = cosign(checkpoint.body, self.key, int(time.time()))
        response = await client.post(
            f"{self.log_url}/log/cosignatures", json={"checkpoint": checkpoint.text + line}
        )
        response.raise_for_status()
        return "cosigned"

    def _refuse(self, reason: str, last: str | None, shown: str, answer: str | None = None) -> Refused:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{time.time_ns() % 10**9:09d}"
        evidence = self.state / "evidence" / stamp
        evidence.mkdir(parents=True, exist_ok=True)
        files: dict[str, Any] = {"cosigned.checkpoint": last or "", "shown.checkpoint": shown}
        if answer is not None:
            files["log-answer.txt"] = answer
        files["refusal.json"] = json.dumps(
            {"reason": reason, "log": self.log_url, "at": time.time()}, indent=2
        )
        for name, text in files.items():
            (evidence / name).write_text(text)
        return Refused(reason, evidence)
