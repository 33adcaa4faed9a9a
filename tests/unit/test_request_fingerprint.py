"""A request's fingerprint is docs/receipts.md's construction, byte for byte: hex SHA-256 of
``"sendCommand" 0x00 game id 0x00 seat 0x00 body``."""

from __future__ import annotations

import hashlib
import uuid

from service.app.idempotency import fingerprint

GAME = uuid.UUID("8f6213b4-3f4f-4fa9-94ec-4c2ce81b3443")


def test_a_fingerprint_is_sha256_of_the_operation_the_resources_and_the_body() -> None:
    body = b'{"type":"DrawCard"}'
    text = b"sendCommand\x00" + str(GAME).encode() + b"\x00" + b"3\x00" + body
    assert fingerprint("sendCommand", [GAME, 3], body) == hashlib.sha256(text).hexdigest()
