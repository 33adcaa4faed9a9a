"""C2SP signed notes, checkpoints and cosignatures, with Ed25519 keys.

- A *note* is a text body ending in a newline, a blank line, then signature lines
  ``— <name> <base64(key id || signature)>`` (C2SP signed-note).
- A *checkpoint* is a note whose body is the origin, the tree size and the base64 root hash, one
  per line (C2SP tlog-checkpoint); the log signs it with its Ed25519 key (signature type 0x01).
- A *cosignature* is a witness's line on the same body (C2SP tlog-cosignature, ``cosignature/v1``,
  type 0x04): it signs ``"cosignature/v1\\ntime <t>\\n" || body`` and carries ``key id || t (8
  bytes big-endian) || signature``.
- A key id is the first 4 bytes of ``SHA-256(name || 0x0A || type || public key)``; a verifier
  key is written ``<name>+<hex key id>+<base64(type || public key)>``, a signing key
  ``PRIVATE+KEY+<name>+<hex key id>+<base64(type || seed)>`` (the signed-note tools' text form).
"""

from __future__ import annotations

import base64
import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519 = 0x01
COSIGNATURE_V1 = 0x04
DASH = "\u2014"  # the em dash that opens a signature line


class NoteError(ValueError):
    """A note, key or signature that is malformed or does not verify."""


def key_id(name: str, kind: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + public).digest()[:4]


def _valid_name(name: str) -> bool:
    return bool(name) and "+" not in name and not any(c.isspace() for c in name)


@dataclass(frozen=True)
class Verifier:
    name: str
    kind: int
    public: bytes

    @property
    def id(self) -> bytes:
        return key_id(self.name, self.kind, self.public)

    @property
    def text(self) -> str:
        encoded = base64.b64encode(bytes([self.kind]) + self.public).decode()
        return f"{self.name}+{self.id.hex()}+{encoded}"

    @classmethod
    def parse(cls, text: str) -> Verifier:
        name, _, rest = text.strip().partition("+")
        hexid, _, encoded = rest.partition("+")
        try:
            raw = base64.b64decode(encoded, validate=True)
        except ValueError as exc:
            raise NoteError(f"not a verifier key: {text!r}") from exc
        if not _valid_name(name) or len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError(f"not a verifier key: {text!r}")
        verifier = cls(name, raw[0], raw[1:])
        if verifier.id.hex() != hexid:
            raise NoteError(f"the key id of {name} does not match its key")
        return verifier

    def check(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class Signer:
    name: str
    kind: int
    key: Ed25519PrivateKey

    @classmethod
    def generate(cls, name: str, kind: int = ED25519) -> Signer:
        if not _valid_name(name):
            raise NoteError(f"a key name has no spaces and no '+': {name!r}")
        return cls(name, kind, Ed25519PrivateKey.generate())

    @classmethod
    def parse(cls, text: str) -> Signer:
        parts = text.strip().split("+", 4)  # base64 may hold "+" too
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("not a signing key (PRIVATE+KEY+name+id+key)")
        try:
            raw = base64.b64decode(parts[4], validate=True)
        except ValueError as exc:
            raise NoteError("not a signing key") from exc
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("not an Ed25519 signing key")
        signer = cls(parts[2], raw[0], Ed25519PrivateKey.from_private_bytes(raw[1:]))
        if signer.verifier.id.hex() != parts[3]:
            raise NoteError("the key id of a signing key does not match its key")
        return signer

    @property
    def text(self) -> str:
        seed = self.key.private_bytes_raw()
        encoded = base64.b64encode(bytes([self.kind]) + seed).decode()
        return f"PRIVATE+KEY+{self.name}+{self.verifier.id.hex()}+{encoded}"

    @property
    def verifier(self) -> Verifier:
        public = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return Verifier(self.name, self.kind, public)

    def line(self, payload: bytes) -> str:
        return f"{DASH} {self.name} {base64.b64encode(payload).decode()}\n"


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes

    @property
    def body(self) -> str:
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"

    @classmethod
    def parse_body(cls, body: str) -> Checkpoint:
        lines = body.split("\n")
        if len(lines) < 4 or lines[-1] != "" or not lines[1].isdigit():
            raise NoteError("not a checkpoint body (origin, size, root hash)")
        try:
            root = base64.b64decode(lines[2], validate=True)
        except ValueError as exc:
            raise NoteError("the checkpoint's root hash is not base64") from exc
        if len(root) != 32 or str(int(lines[1])) != lines[1]:
            raise NoteError("not a checkpoint body (origin, size, root hash)")
        return cls(lines[0], int(lines[1]), root)


@dataclass(frozen=True)
class Note:
    body: str
    signatures: tuple[tuple[str, bytes], ...]  # (name, key id || signature) in the note's order

    @classmethod
    def parse(cls, text: str) -> Note:
        body, sep, rest = text.partition("\n\n")
        if not sep or not rest.endswith("\n"):
            raise NoteError("not a signed note (body, blank line, signature lines)")
        signatures = []
        for line in rest[:-1].split("\n"):
            dash, _, rest_line = line.partition(" ")
            name, _, encoded = rest_line.partition(" ")
            try:
                raw = base64.b64decode(encoded, validate=True)
            except ValueError as exc:
                raise NoteError("a signature line is not base64") from exc
            if dash != DASH or not _valid_name(name) or len(raw) < 5:
                raise NoteError("not a signature line")
            signatures.append((name, raw))
        return cls(body + "\n", tuple(signatures))

    @property
    def text(self) -> str:
        lines = "".join(f"{DASH} {n} {base64.b64encode(raw).decode()}\n" for n, raw in self.signatures)
        return f"{self.body}\n{lines}"

    def _valid(self, verifier: Verifier, raw: bytes) -> bool:
        if verifier.kind == ED25519:
            return verifier.check(self.body.encode(), raw[4:])
        if verifier.kind == COSIGNATURE_V1 and len(raw) == 76:
            (timestamp,) = struct.unpack(">Q", raw[4:12])
            return verifier.check(cosigned_message(self.body, timestamp), raw[12:])
        return False

    def signers(self, verifiers: Iterable[Verifier]) -> list[Verifier]:
        """Those of ``verifiers`` whose signatures (or cosignatures) the note bears, as Go's
        ``note.Open`` reads it: a line by one of them (its name and key id) that does not verify
        rejects the whole note (``NoteError``), even when another line of that key verifies
        (C2SP signed-note: a forged line makes the note suspect). Lines of unknown keys are ignored."""
        found: list[Verifier] = []
        for verifier in verifiers:
            lines = [raw for name, raw in self.signatures if name == verifier.name and raw[:4] == verifier.id]
            if not all(self._valid(verifier, raw) for raw in lines):
                raise NoteError(f"a signature line of {verifier.name} does not verify: the note is rejected")
            if lines:
                found.append(verifier)
        return found

    def signed_by(self, verifier: Verifier) -> bool:
        """Whether the note bears ``verifier``'s signature (or cosignature) and no line of that key
        that does not verify."""
        try:
            return bool(self.signers([verifier]))
        except NoteError:
            return False


def sign(body: str, signer: Signer) -> str:
    """A signed note: ``body`` with one signature line by the log's key."""
    signature = signer.key.sign(body.encode())
    return f"{body}\n{signer.line(signer.verifier.id + signature)}"


def cosigned_message(body: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n".encode() + body.encode()


def cosign(body: str, signer: Signer, timestamp: int) -> str:
    """A witness's cosignature line on a checkpoint's body, at ``timestamp`` (Unix seconds)."""
    signature = signer.key.sign(cosigned_message(body, timestamp))
    return signer.line(signer.verifier.id + struct.pack(">Q", timestamp) + signature)
