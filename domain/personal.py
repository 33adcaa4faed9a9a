"""Personal texts: what a person wrote (a display name, a dispute's reason, a reply), kept out of
the hashed record so that it can be erased without breaking a chain (docs/erasure.md).

The log stores a *seal* where such a text was: ``"sealed:"`` and the hex SHA-256 of
``"playlog/personal/v1\\n" || salt || text`` (UTF-8), the salt 32 bytes kept apart with the text.
The hash chain, the transparency log and the receipts cover the seal, never the text; the text is
shown by opening the seal (the service keeps texts beside the log; an export carries them).
Erasing a person destroys their texts and salts: their seals stay, and open to a pseudonym.

A seat's name is salted with ``SHA-256("playlog/claim/v1\\n" || claim)``, the claim a secret the
seat is given when it joins and the service does not keep: erased or not, whoever holds it can
show that the seat was theirs (``claims``).

Which fields of which events and commands are personal is declared next to them
(``PERSONAL_FIELDS`` in domain/table and domain/disputes) and gathered by the registry. Pure.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, Literal, TypeGuard

PREFIX = "sealed:"
_LABEL = b"playlog/personal/v1\n"
_PSEUDONYM = b"playlog/pseudonym/v1\n"
_CLAIM = b"playlog/claim/v1\n"
SALT_BYTES = 32
ERASED_TEXT = "(erased)"  # what an erased free text shows

Field = Literal["name", "text"]  # a name opens to a pseudonym once erased, a text to ERASED_TEXT
# An event or command tag -> its personal fields and what each is.
Fields = dict[str, dict[str, Field]]


def seal(salt: bytes, text: str) -> str:
    """The seal the log keeps in place of ``text``."""
    return PREFIX + hashlib.sha256(_LABEL + salt + text.encode()).hexdigest()


def is_seal(value: Any) -> TypeGuard[str]:
    return isinstance(value, str) and value.startswith(PREFIX) and len(value) == len(PREFIX) + 64


def opens(sealed: str, salt: bytes, text: str) -> bool:
    """Whether ``salt`` and ``text`` open ``sealed``."""
    return hmac.compare_digest(seal(salt, text), sealed)


def claim_salt(claim: bytes) -> bytes:
    """The salt of a seat's name, from the claim its holder was given."""
    return hashlib.sha256(_CLAIM + claim).digest()


def claim(key: bytes, game_id: bytes, occupancy: str) -> bytes:
    """A seat's claim: the service derives it again for a retried join, never stores it."""
    return hmac.digest(key, _CLAIM + game_id + occupancy.encode(), "sha256")


def claims(sealed: str, claim: bytes, name: str) -> bool:
    """Whether the holder of ``claim`` joined as ``name`` where the log has ``sealed``: how a
    person shows a seat was theirs."""
    return opens(sealed, claim_salt(claim), name)


def pseudonym(subject: str) -> str:
    """The stable name an erased person is shown by: the same in every game they sat in."""
    return "Player " + hashlib.sha256(_PSEUDONYM + subject.encode()).hexdigest()[:4]


def erased(field: Field, subject: str) -> str:
    """What an erased text of ``field`` shows."""
    return pseudonym(subject) if field == "name" else ERASED_TEXT


def sealed_form(data: Any) -> Any:
    """An opened event body back as the log keeps it: each opened field replaced by its seal
    (the body's ``sealed`` member), that member dropped. Receipts and chunks hash this form, so
    that they verify the same before and after an erasure."""
    if not isinstance(data, dict) or not isinstance(seals := data.get("sealed"), dict):
        return data
    body = {k: v for k, v in data.items() if k != "sealed"}
    for field, value in seals.items():
        if field in body:
            body[field] = value
    return body
