"""The log's signing identity: Ed25519 keys, newest first; the first signs, all are published.

Never the JWT secret. From ``PLAYLOG_LOG_SIGNING_KEY`` (signing keys in signed-note text form,
comma-separated, newest first: every instance of a deployment needs the same, checked at start by
service/deployment.py), else from the file ``log-signing-keys`` in the data directory, created
with one key on first use (a lone instance's). Rotation puts a new key first (``playlog
deployment rotate-log-key``); the older keys keep verifying the checkpoints they signed, so they
stay in the list and at ``GET /log/keys``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from projections.notes import ED25519, NoteError, Signer, Verifier

KEYS_FILE = "log-signing-keys"


@dataclass(frozen=True)
class Identity:
    keys: tuple[Signer, ...]  # newest first

    @property
    def signer(self) -> Signer:
        return self.keys[0]

    @property
    def origin(self) -> str:
        return self.signer.name

    @property
    def verifiers(self) -> list[Verifier]:
        return [k.verifier for k in self.keys]

    @classmethod
    def parse(cls, text: str) -> Identity:
        keys = tuple(Signer.parse(part) for part in text.replace("\n", ",").split(",") if part.strip())
        if not keys:
            raise NoteError("no log signing key")
        if any(k.kind != ED25519 for k in keys) or len({k.name for k in keys}) != 1:
            raise NoteError("log signing keys are Ed25519 keys that all bear the log's origin as name")
        return cls(keys)


def load(configured: str, data_dir: Path, origin: str) -> Identity:
    """The configured keys, else the data directory's (made on first use, for ``origin``)."""
    if configured:
        return Identity.parse(configured)
    path = data_dir / KEYS_FILE
    if path.exists():
        return Identity.parse(path.read_text())
    return _write(path, [Signer.generate(origin)])


def rotate(data_dir: Path, origin: str) -> Identity:
    """A new key first in the data directory's file; the older ones stay for verifying."""
    path = data_dir / KEYS_FILE
    old = list(Identity.parse(path.read_text()).keys) if path.exists() else []
    return _write(path, [Signer.generate(old[0].name if old else origin), *old])


def _write(path: Path, keys: list[Signer]) -> Identity:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(k.text + "\n" for k in keys))
    tmp.chmod(0o600)
    tmp.replace(path)
    return Identity(tuple(keys))
