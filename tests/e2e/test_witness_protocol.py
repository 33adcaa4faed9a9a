"""``playlog witness`` as C2SP tlog-witness writes it: one request per outcome of
``POST <prefix>/add-checkpoint``, sent to the real process over HTTP, the bodies written from the
spec's text (an ``old`` line, consistency proof lines, a blank line, a checkpoint) for a log that
is not playlog (any origin, any key the witness is given)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from projections import merkle
from projections.notes import COSIGNATURE_V1, Checkpoint, Note, Signer, sign
from tests.e2e.witnesses import witness_process

LOG = Signer.generate("example.com/behind-the-sofa")
IMPOSTOR = Signer.generate("example.com/behind-the-sofa")  # the same origin, another key
STRANGER = Signer.generate("example.org/unknown-log")
WITNESS = Signer.generate("witness.example/w1", COSIGNATURE_V1)

LEAVES = [merkle.leaf_hash(hashlib.sha256(str(n).encode()).digest()) for n in range(40)]
NODES = merkle.appended({}, 0, LEAVES)


def checkpoint(size: int, signer: Signer = LOG, root: bytes | None = None) -> str:
    body = Checkpoint(signer.name, size, root or merkle.root(size, NODES)).body
    return sign(body, signer)


def proof(old: int, new: int) -> list[bytes]:
    return [merkle.range_hash(lo, hi, NODES) for lo, hi in merkle.consistency_ranges(old, new)]


def request(old: int, hashes: list[bytes], note: str) -> bytes:
    lines = "".join(base64.b64encode(h).decode() + "\n" for h in hashes)
    return f"old {old}\n{lines}\n{note}".encode()


@pytest.fixture
async def witness(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    key = tmp_path / "witness.key"
    key.write_text(WITNESS.text + "\n")
    async with (
        witness_process(key, tmp_path / "state", [LOG.verifier, STRANGER.verifier]) as url,
        httpx.AsyncClient(base_url=url) as client,
    ):
        yield client


async def add(client: httpx.AsyncClient, body: bytes) -> httpx.Response:
    return await client.post("/add-checkpoint", content=body)


async def test_every_outcome_of_add_checkpoint(witness: httpx.AsyncClient, tmp_path: Path) -> None:
    # 200: the first checkpoint of a log, from old size 0 with an empty proof. The answer is
    # one signature line, a cosignature (cosignature/v1) of the witness on that checkpoint.
    first = checkpoint(5)
    response = await add(witness, request(0, [], first))
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text.startswith("\u2014 witness.example/w1 ") and response.text.count("\n") == 1
    assert Note.parse(first + response.text).signed_by(WITNESS.verifier)

    # 409: old does not match the size it last cosigned; the body is that size, text/x.tlog.size.
    second = checkpoint(12)
    response = await add(witness, request(0, [], second))
    assert response.status_code == 409
    assert response.headers["content-type"] == "text/x.tlog.size"
    assert response.text == "5\n"

    # 422: the right old size, a consistency proof that does not verify.
    wrong = [hashlib.sha256(h).digest() for h in proof(5, 12)]
    response = await add(witness, request(5, wrong, second))
    assert response.status_code == 422

    # 200 again with the proof from 5 to 12 (more signatures on the note are fine, other keys
    # are ignored); then 409 with 12.
    also_signed = second + sign(Note.parse(second).body, STRANGER).split("\n\n")[1]
    response = await add(witness, request(5, proof(5, 12), also_signed))
    assert response.status_code == 200, response.text
    assert Note.parse(second + response.text).signed_by(WITNESS.verifier)
    response = await add(witness, request(5, proof(5, 12), second))
    assert (response.status_code, response.text) == (409, "12\n")

    # 409: the same size with another root (a fork), and the witness keeps it as evidence.
    fork = checkpoint(12, root=bytes(32))
    response = await add(witness, request(12, [], fork))
    assert response.status_code == 409 and response.text == "12\n"
    # (the failed proof above was kept too: the log's signature was valid)
    proof_failed, evidence = sorted(
        (tmp_path / "state" / "evidence" / "example.com%2Fbehind-the-sofa").iterdir()
    )
    assert "does not extend" in (proof_failed / "refusal.json").read_text()
    assert (evidence / "shown.checkpoint").read_text() == fork
    assert (evidence / "cosigned.checkpoint").read_text() == second

    # 403: the log's origin, but no signature by a key the witness trusts for it.
    response = await add(witness, request(12, proof(12, 20), checkpoint(20, IMPOSTOR)))
    assert response.status_code == 403

    # 404: an origin the witness does not know.
    unknown = sign(Checkpoint("example.net/nobody", 3, bytes(32)).body, Signer.generate("example.net/nobody"))
    response = await add(witness, request(0, [], unknown))
    assert response.status_code == 404

    # 400: malformed bodies: no old line, a proof line that is not base64, no blank line, an old
    # size with a leading zero, an old size larger than the checkpoint's, and more than 63 proof
    # lines (the client MUST NOT send more).
    newest = checkpoint(20)
    for body in (
        f"\n{newest}".encode(),
        f"old 12\nnot base64!\n\n{newest}".encode(),
        f"old 12\n{newest}".encode(),
        request(12, [], newest).replace(b"old 12", b"old 012"),
        request(25, [], newest),
        request(12, [bytes(32)] * 64, newest),
        b"\xff\xfe",
    ):
        response = await add(witness, body)
        assert response.status_code == 400, (body, response.text)

    # The state still holds 12: the proof from 12 to 20 is cosigned. And a second log, known to
    # the witness, is witnessed on its own.
    response = await add(witness, request(12, proof(12, 20), newest))
    assert response.status_code == 200, response.text
    other = sign(Checkpoint(STRANGER.name, 1, LEAVES[0]).body, STRANGER)
    response = await add(witness, request(0, [], other))
    assert response.status_code == 200 and Note.parse(other + response.text).signed_by(WITNESS.verifier)

    # 63 proof lines are allowed by the spec: such a request is judged on its proof (422 here).
    response = await add(witness, request(20, [bytes(32)] * 63, checkpoint(30)))
    assert response.status_code == 422
    assert (await witness.get("/add-checkpoint")).status_code == 405
