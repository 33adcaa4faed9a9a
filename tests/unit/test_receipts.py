"""Receipts as data (projections/receipts.py, docs/receipts.md): their text, their signature,
their commitments, and what they refuse."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import uuid

import msgspec
import pytest

from projections.notes import Checkpoint, Note, NoteError, Signer
from projections.receipts import (
    Receipt,
    ReceiptError,
    ReceiptSigner,
    contradiction,
    events_digest,
    head_commitment,
    verify,
)

KEY = Signer.generate("playlog.test/log")
GAME = uuid.UUID("8f6213b4-3f4f-4fa9-94ec-4c2ce81b3443")
HEAD = bytes(range(32))


class Drawn(msgspec.Struct, tag="CardDrawn", tag_field="type"):
    seat: int
    card: str
    at: float


EVENTS = [(4, "CardDrawn", Drawn(seat=0, card="Skip", at=1.0))]


def signed(**extra: object) -> str:
    return ReceiptSigner([KEY]).sign(GAME, 0, (3, 4), EVENTS, HEAD, fingerprint="ab" * 32, **extra)  # type: ignore[arg-type]


def test_a_receipt_is_a_signed_note_in_the_seat_s_numbering() -> None:
    text = signed(key="k-1")
    body = Note.parse(text).body
    assert body == (
        "playlog/receipt/v2\n"
        f"game {GAME}\n"
        "seat 0\n"
        "versions 3 4\n"
        f"events {base64.b64encode(events_digest(EVENTS)).decode()}\n"
        f"head {base64.b64encode(head_commitment(ReceiptSigner([KEY]).game_key(GAME), HEAD)).decode()}\n"
        f"command {'ab' * 32}\n"
        "key k-1\n"
    )
    checked = verify(text, [KEY.verifier])
    assert checked.key_id == KEY.verifier.id and checked.receipt == Receipt.parse_body(body)
    assert signed(key="k-1") == text  # deterministic: a retry's receipt is the same text


def test_the_events_digest_is_the_same_for_the_server_s_structs_and_the_client_s_json() -> None:
    as_json = msgspec.json.decode(msgspec.json.encode([[n, t, d] for n, t, d in EVENTS]))
    assert events_digest([tuple(e) for e in as_json]) == events_digest(EVENTS)


def test_the_events_digest_hashes_the_canonical_text_another_language_writes_alike() -> None:
    """docs/receipts.md: jsonb's text form, numbers in plain notation with their own digits
    (what examples/typescript/export/canonical.ts writes from the JSON's literals)."""
    events = [(7, "Timed", {"until": 1e16, "tiny": 1.5e-7, "at": 2.0, "é": "a\nb", "n": -0.0})]
    text = (
        '[[7, "Timed", {"n": 0.0, "at": 2.0, "é": "a\\nb", "tiny": 0.00000015, "until": 10000000000000000}]]'
    )
    assert events_digest(events) == hashlib.sha256(text.encode()).digest()


def test_a_version_1_receipt_still_verifies_with_its_own_digest() -> None:
    """Receipts signed before v2 hashed msgspec's sorted compact JSON: they keep verifying."""
    v1 = Receipt(GAME, 0, 3, 4, events_digest(EVENTS, 1), HEAD, version=1)
    assert v1.body.startswith("playlog/receipt/v1\n") and Receipt.parse_body(v1.body) == v1
    assert events_digest(EVENTS, 1) != events_digest(EVENTS)
    answer = {"game_id": GAME, "seat": 0, "version": 4, "events": EVENTS}
    assert contradiction(v1, **answer) is None  # type: ignore[arg-type]
    assert contradiction(dataclasses.replace(v1, version=2), **answer) is not None  # type: ignore[arg-type]


def test_a_receipt_altered_or_signed_by_another_key_is_refused() -> None:
    text = signed()
    with pytest.raises(ReceiptError, match="does not verify: the note is rejected"):
        verify(text.replace("versions 3 4", "versions 2 4"), [KEY.verifier])
    with pytest.raises(ReceiptError, match="no signature"):
        verify(text, [Signer.generate("playlog.test/log").verifier])
    with pytest.raises(ReceiptError, match="not a count"):
        Receipt.parse_body(Note.parse(text).body.replace("seat 0", "seat 00"))
    with pytest.raises(ReceiptError, match="canonical"):
        Receipt.parse_body(Note.parse(text).body.replace("head ", "key k\nhead "))
    with pytest.raises(ReceiptError):
        Receipt.parse_body(Note.parse(text).body.replace("versions 3 4", "versions 5 4"))


def test_a_receipt_never_reads_as_a_checkpoint_and_a_checkpoint_never_as_a_receipt() -> None:
    """One key signs both: the first lines keep them apart."""
    with pytest.raises(NoteError):
        Checkpoint.parse_body(Note.parse(signed()).body)
    with pytest.raises(ReceiptError):
        Receipt.parse_body(Checkpoint("playlog.test/log", 3, HEAD).body)


def test_the_head_commitment_is_keyed_per_game_and_the_same_on_every_instance() -> None:
    one, other = ReceiptSigner([KEY]), ReceiptSigner([Signer.parse(KEY.text)])
    assert one.game_key(GAME) == other.game_key(GAME)  # same keys, same receipts
    assert one.game_key(GAME) != one.game_key(uuid.uuid4())
    assert one.game_keys(GAME) == {KEY.verifier.id.hex(): base64.b64encode(one.game_key(GAME)).decode()}
    assert head_commitment(one.game_key(GAME), HEAD) != HEAD  # the seat never sees the head


def test_a_receipt_is_checked_against_the_answer_it_came_with() -> None:
    receipt = verify(signed(key="k-1"), [KEY.verifier]).receipt
    answer = {
        "game_id": GAME,
        "seat": 0,
        "version": 4,
        "events": EVENTS,
        "fingerprint": "ab" * 32,
        "key": "k-1",
    }
    assert contradiction(receipt, **answer) is None  # type: ignore[arg-type]
    assert contradiction(receipt, **{**answer, "version": 5}) is not None  # type: ignore[arg-type]
    assert contradiction(receipt, **{**answer, "events": []}) is not None  # type: ignore[arg-type]
    assert contradiction(receipt, **{**answer, "key": "k-2"}) == "the receipt names another command"  # type: ignore[arg-type]
