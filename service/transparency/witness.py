"""A witness of transparency logs (C2SP tlog-witness): a process of its own, with its own key and
its own storage, that any log speaking C2SP checkpoints can push to.

``POST <prefix>/add-checkpoint`` takes ``old <size>``, the consistency proof's lines (base64
hashes), a blank line and the checkpoint (a C2SP signed note). The witness cosigns (C2SP
tlog-cosignature, ``cosignature/v1``) only a checkpoint that a key it trusts for the checkpoint's
origin signed and that extends the last one it cosigned for that origin; it answers, as the spec
says: 200 with its cosignature line, 400 for a malformed body, 403 when no trusted key signed it,
404 for an origin it does not witness, 409 (``text/x.tlog.size``: the size it last cosigned)
when ``old`` is not that size, 409 too for the same size with another root, 422 when the proof
does not verify.

Per origin the state directory holds ``logs/<origin>/checkpoint`` (the last checkpoint cosigned,
as the log signed it). A fork (409 for the same size with another root, 422) also writes the
request and what it contradicts into ``evidence/<origin>/<time>/`` and logs ``witness_refused``:
the log's own signatures on both are the proof.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import os
import time
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from projections import merkle
from projections.notes import COSIGNATURE_V1, Checkpoint, Note, NoteError, Signer, Verifier, cosign
from service.runtime.log import get_logger

log = get_logger("playlog.witness")

MAX_PROOF_LINES = 63  # C2SP tlog-witness: a client MUST NOT send more
MAX_BODY = 64 * 1024
SIZE_TYPE = "text/x.tlog.size"
TEXT_TYPE = "text/plain; charset=utf-8"


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
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


@dataclass(frozen=True)
class Answer:
    status: int
    body: str
    content_type: str = TEXT_TYPE


@dataclass(frozen=True)
class Request:
    old: int
    proof: list[bytes]
    note: Note
    checkpoint: Checkpoint
    text: str  # as received, kept as evidence


class Malformed(ValueError):
    pass


def parse_request(body: bytes) -> Request:
    """The ``add-checkpoint`` body, or ``Malformed``."""
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise Malformed("the body is not UTF-8") from None
    head, sep, note_text = text.partition("\n\n")
    if not sep:
        raise Malformed("no blank line between the proof and the checkpoint")
    lines = head.split("\n")
    first, _, size = lines[0].partition(" ")
    if first != "old" or not size.isdigit() or str(int(size)) != size:
        raise Malformed("the first line is not 'old <size>'")
    if len(lines) - 1 > MAX_PROOF_LINES:
        raise Malformed(f"more than {MAX_PROOF_LINES} consistency proof lines")
    proof = []
    for line in lines[1:]:
        try:
            hash_ = base64.b64decode(line, validate=True)
        except binascii.Error:
            raise Malformed("a proof line is not base64") from None
        if len(hash_) != 32:
            raise Malformed("a proof line is not a SHA-256 hash")
        proof.append(hash_)
    try:
        note = Note.parse(note_text)
        checkpoint = Checkpoint.parse_body(note.body)
    except NoteError as exc:
        raise Malformed(str(exc)) from None
    return Request(int(size), proof, note, checkpoint, text)


class WitnessService:
    """The witness's checks and state (see the module docstring); ``app`` serves it over HTTP."""

    def __init__(self, key: Signer, state: Path, log_keys: Sequence[Verifier]) -> None:
        self.key = key
        self.state = state
        self.logs: dict[str, list[Verifier]] = {}
        for verifier in log_keys:
            self.logs.setdefault(verifier.name, []).append(verifier)
        # Checking `old` against the state and writing the new state happen under one lock: two
        # requests at once must not roll the state back (the spec's race).
        self._lock = asyncio.Lock()

    def _dir(self, origin: str) -> Path:
        return self.state / "logs" / urllib.parse.quote(origin, safe="")

    def last(self, origin: str) -> tuple[Note, Checkpoint] | None:
        """The last checkpoint cosigned for ``origin``, if any."""
        path = self._dir(origin) / "checkpoint"
        if not path.exists():
            return None
        note = Note.parse(path.read_text())
        return note, Checkpoint.parse_body(note.body)

    async def add_checkpoint(self, body: bytes) -> Answer:
        try:
            request = parse_request(body)
        except Malformed as exc:
            return Answer(400, f"{exc}\n")
        checkpoint = request.checkpoint
        keys = self.logs.get(checkpoint.origin)
        if keys is None:
            return Answer(404, "unknown log origin\n")
        if not any(request.note.signed_by(k) for k in keys):  # lines of other keys are ignored
            return Answer(403, "no signature by a known key of this log\n")
        if request.old > checkpoint.size:
            return Answer(400, "old size is larger than the checkpoint's\n")
        async with self._lock:
            last = self.last(checkpoint.origin)
            last_size = 0 if last is None else last[1].size
            if request.old != last_size:
                return Answer(409, f"{last_size}\n", SIZE_TYPE)
            if last is None:
                if request.proof:
                    return Answer(422, "the proof from size 0 must be empty\n")
            elif checkpoint.size == last_size:
                if checkpoint.root != last[1].root:
                    reason = "two trees of the same size with different roots"
                    return self._refuse(reason, 409, request, last[0])
            elif not merkle.verify_consistency(
                last_size, checkpoint.size, last[1].root, checkpoint.root, request.proof
            ):
                return self._refuse("the checkpoint does not extend the one cosigned", 422, request, last[0])
            # Remembered before it is answered: once out, this witness is bound to it.
            signatures = tuple(s for s in request.note.signatures if s[0] == checkpoint.origin)
            log_signed = Note(request.note.body, signatures)
            _write(self._dir(checkpoint.origin) / "checkpoint", log_signed.text)
        log.info("witness_cosigned", origin=checkpoint.origin, size=checkpoint.size)
        return Answer(200, cosign(checkpoint.body, self.key, int(time.time())))

    def _refuse(self, reason: str, status: int, request: Request, cosigned: Note) -> Answer:
        origin = request.checkpoint.origin
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{time.time_ns() % 10**9:09d}"
        evidence = self.state / "evidence" / urllib.parse.quote(origin, safe="") / stamp
        evidence.mkdir(parents=True, exist_ok=True)
        (evidence / "cosigned.checkpoint").write_text(cosigned.text)
        (evidence / "shown.checkpoint").write_text(request.note.text)
        (evidence / "request.txt").write_text(request.text)
        (evidence / "refusal.json").write_text(
            json.dumps({"reason": reason, "origin": origin, "status": status, "at": time.time()}, indent=2)
        )
        log.error("witness_refused", origin=origin, reason=reason, evidence=str(evidence))
        if status == 409:
            return Answer(409, f"{cosigned_size(cosigned)}\n", SIZE_TYPE)
        return Answer(status, f"{reason}\n")


def cosigned_size(note: Note) -> int:
    return Checkpoint.parse_body(note.body).size


Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Scope]]
Send = Callable[[Scope], Awaitable[None]]


ASGI = Callable[[Scope, Receive, Send], Awaitable[None]]


def app(service: WitnessService, prefix: str = "") -> ASGI:
    """The witness as an ASGI application: ``POST <prefix>/add-checkpoint``, nothing else."""
    path = prefix.rstrip("/") + "/add-checkpoint"

    async def respond(send: Send, answer: Answer) -> None:
        headers = [(b"content-type", answer.content_type.encode())]
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": answer.body.encode()})

    async def asgi(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # nothing to start or stop
            while True:
                event = (await receive())["type"].removeprefix("lifespan.")
                await send({"type": f"lifespan.{event}.complete"})
                if event == "shutdown":
                    return
        if scope["type"] != "http":
            return
        if scope["path"] != path:
            return await respond(send, Answer(404, "not found\n"))
        if scope["method"] != "POST":
            return await respond(send, Answer(405, "POST only\n"))
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                return await respond(send, Answer(400, "the body is too large\n"))
            if not message.get("more_body"):
                break
        await respond(send, await service.add_checkpoint(bytes(body)))

    return asgi
