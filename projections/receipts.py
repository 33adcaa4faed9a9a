"""Signed receipts: what the service told a seat, signed with the log's key (docs/receipts.md).

A receipt is a C2SP signed note whose body is::

    playlog/receipt/v2
    game <game id>
    seat <seat>
    versions <before> <after>
    events <base64 SHA-256 of the seat's events numbered before+1..after>
    head <base64 commitment to the game's head>
    command <fingerprint, hex>        (a command's receipt; a read's has neither line)
    key <Idempotency-Key>             (when the command was sent with one)

Everything in it is in the seat's own numbering (RULES 3): no seq, no count of hidden events.
``events`` hashes ``[[number, type, data], ...]``, the events exactly as the seat was given
them (a person's words sealed, as the log keeps them: docs/erasure.md), in the canonical text
of docs/export-format.md (jsonb's: keys by byte length then bytes, numbers in plain notation
with their own digits) so that any language reproduces it byte for byte. A
``playlog/receipt/v1`` receipt (signed before) hashed msgspec's compact JSON with sorted keys
instead, whose float text other languages do not write alike; it still verifies. ``head`` is
``HMAC-SHA256(game key, head hash)``: the seat cannot test a guess of the hidden events against
it, because the game key is the service's secret until an export reveals it (``receipt_keys``).
The game key is ``HMAC-SHA256(secret, "playlog/receipt-head/v1" || game id)``, the secret
``HMAC-SHA256(signing key's seed, "playlog/receipt-secret/v1")``: one per signing key, so every
instance with the same keys makes the same receipts. A receipt is deterministic (Ed25519 is):
the same answer gets the same receipt, a retry's included.

The first line keeps a receipt from ever parsing as a checkpoint (whose second line is a size),
though both are signed by one key. Pure: no I/O.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.personal import sealed_form
from projections.export.canonical import canonical
from projections.notes import DASH, ED25519, Note, NoteError, Signer, Verifier

RECEIPT = "playlog/receipt/v"  # + the version: 2 signed now, 1 still verified
VERSIONS = (1, 2)
_SECRET_LABEL = b"playlog/receipt-secret/v1"
_GAME_LABEL = b"playlog/receipt-head/v1"
_sorted = msgspec.json.Encoder(order="sorted")


class ReceiptError(ValueError):
    """A receipt that is malformed or whose signature does not verify."""


def events_digest(events: Iterable[tuple[int, str, Any]], version: int = 2) -> bytes:
    """The digest of ``(number, type, data)`` triples as the seat was given them: SHA-256 of their
    canonical text (``version`` 1: of msgspec's sorted compact JSON). Each body is hashed as the
    log keeps it, its personal texts sealed (domain/personal.py's ``sealed_form``): a receipt
    verifies the same once a person in it is erased."""
    triples = [[n, t, sealed_form(msgspec.to_builtins(d))] for n, t, d in events]
    if version == 1:
        return hashlib.sha256(_sorted.encode(triples)).digest()
    return hashlib.sha256(canonical(triples).encode()).digest()  # builtins already, above


def head_commitment(game_key: bytes, head: bytes) -> bytes:
    return hmac.digest(game_key, head, "sha256")


@dataclass(frozen=True)
class Receipt:
    game_id: uuid.UUID
    seat: int
    before: int  # the seat's number of the event before the first receipted one
    after: int  # the seat's version right after
    events: bytes
    head: bytes
    fingerprint: str | None = None  # a command's request fingerprint (service/app/idempotency.py)
    key: str | None = None  # its Idempotency-Key
    version: int = 2  # of the note's first line: how ``events`` was hashed

    @property
    def body(self) -> str:
        lines = [
            f"{RECEIPT}{self.version}",
            f"game {self.game_id}",
            f"seat {self.seat}",
            f"versions {self.before} {self.after}",
            f"events {base64.b64encode(self.events).decode()}",
            f"head {base64.b64encode(self.head).decode()}",
        ]
        if self.fingerprint is not None:
            lines.append(f"command {self.fingerprint}")
            if self.key is not None:
                lines.append(f"key {self.key}")
        return "\n".join(lines) + "\n"

    @classmethod
    def parse_body(cls, body: str) -> Receipt:
        lines = body.split("\n")
        versions = {f"{RECEIPT}{v}": v for v in VERSIONS}
        if lines[0] not in versions or lines[-1] != "" or not 7 <= len(lines) <= 9:
            raise ReceiptError("not a playlog receipt")
        fields = dict(line.partition(" ")[::2] for line in lines[1:-1])
        needed = {"game", "seat", "versions", "events", "head"}
        if len(fields) != len(lines) - 2 or not needed <= fields.keys():
            raise ReceiptError("a receipt's lines are game, seat, versions, events, head [command [key]]")
        try:
            before, after = (_count(v) for v in fields["versions"].split(" "))
            receipt = cls(
                game_id=uuid.UUID(fields["game"]),
                seat=_count(fields["seat"]),
                before=before,
                after=after,
                events=_digest(fields["events"]),
                head=_digest(fields["head"]),
                fingerprint=fields.get("command"),
                key=fields.get("key"),
                version=versions[lines[0]],
            )
        except ValueError as exc:
            raise ReceiptError(f"a malformed receipt: {exc}") from None
        if receipt.body != body or before > after:
            raise ReceiptError("a receipt not in its canonical form")
        return receipt


def _count(text: str) -> int:
    if not text.isdigit() or str(int(text)) != text:
        raise ValueError(f"not a count: {text!r}")
    return int(text)


def _digest(text: str) -> bytes:
    raw = base64.b64decode(text, validate=True)
    if len(raw) != 32:
        raise ValueError("a digest is 32 bytes")
    return raw


@dataclass(frozen=True)
class Signed:
    """A receipt that verified, and the key id that signed it."""

    receipt: Receipt
    key_id: bytes
    text: str


def verify(text: str, verifiers: Sequence[Verifier]) -> Signed:
    """The receipt in ``text`` if one of ``verifiers`` signed it; else ``ReceiptError``."""
    try:
        note = Note.parse(text)
    except NoteError as exc:
        raise ReceiptError(str(exc)) from None
    receipt = Receipt.parse_body(note.body)
    try:
        signers = note.signers(v for v in verifiers if v.kind == ED25519)
    except NoteError as exc:
        raise ReceiptError(str(exc)) from None
    if not signers:
        raise ReceiptError("no signature by a key this verifier trusts")
    return Signed(receipt, signers[0].id, text)


class ReceiptSigner:
    """Signs receipts with the log's newest key; knows every key's game keys (for exports)."""

    def __init__(self, keys: Sequence[Signer]) -> None:
        self.keys = tuple(keys)  # newest first: the first signs
        self._secrets = {k.verifier.id: _secret(k) for k in keys}
        # Worked out once: the signing key's id and its signature line's opening (the command path).
        self._key_id = self.signer.verifier.id
        self._line = f"{DASH} {self.signer.name} "

    @property
    def signer(self) -> Signer:
        return self.keys[0]

    def game_key(self, game_id: uuid.UUID, key_id: bytes | None = None) -> bytes:
        secret = self._secrets[key_id or self._key_id]
        return hmac.digest(secret, _GAME_LABEL + game_id.bytes, "sha256")

    def game_keys(self, game_id: uuid.UUID) -> dict[str, str]:
        """Every key's game key for ``game_id`` (key id hex -> base64), as an export reveals them."""
        return {kid.hex(): base64.b64encode(self.game_key(game_id, kid)).decode() for kid in self._secrets}

    def sign(
        self,
        game_id: uuid.UUID,
        seat: int,
        versions: tuple[int, int],
        events: Sequence[tuple[int, str, Any]],
        head: bytes,
        *,
        fingerprint: str | None = None,
        key: str | None = None,
    ) -> str:
        """The signed receipt for ``events`` (the seat's numbers ``before + 1`` to ``after``,
        ``versions``) at the game's ``head``."""
        receipt = Receipt(
            game_id=game_id,
            seat=seat,
            before=versions[0],
            after=versions[1],
            events=events_digest(events),
            head=head_commitment(self.game_key(game_id), head),
            fingerprint=fingerprint,
            key=key,
        )
        body = receipt.body
        signature = base64.b64encode(self._key_id + self.signer.key.sign(body.encode())).decode()
        return f"{body}\n{self._line}{signature}\n"  # a signed note (projections/notes.py)


def _secret(key: Signer) -> bytes:
    return hmac.digest(key.key.private_bytes_raw(), _SECRET_LABEL, "sha256")


def contradiction(
    receipt: Receipt,
    *,
    game_id: uuid.UUID,
    seat: int,
    version: int,
    events: Sequence[tuple[int, str, Any]],
    fingerprint: str | None = None,
    key: str | None = None,
) -> str | None:
    """Why ``receipt`` is not the receipt of this answer (None: it is): the answer's game, seat,
    version and events, and (a command's) the request's fingerprint and key."""
    if receipt.game_id != game_id or receipt.seat != seat:
        return "the receipt names another game or seat"
    if receipt.after != version or (events and not receipt.before < events[0][0]):
        return f"the receipt's versions {receipt.before}..{receipt.after} are not the answer's"
    if receipt.events != events_digest(events, receipt.version):
        return "the receipt's events are not the answer's"
    if (receipt.fingerprint, receipt.key) != (fingerprint, key):
        return "the receipt names another command"
    return None
