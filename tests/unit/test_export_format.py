"""docs/export-format.md is enough to verify a file: an independent check written from it alone.

Nothing from the service is imported: hashlib and json only, as a verifier in another language
would be written. It runs over every game of the golden corpus.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from decimal import Decimal
from pathlib import Path

import pytest

CORPUS = sorted((Path(__file__).parents[1] / "golden" / "games").glob("*.jsonl.gz"))


def canonical(v: object) -> str:
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(f"{canonical(k)}: {canonical(v[k])}" for k in keys) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(canonical(x) for x in v) + "]"
    if isinstance(v, Decimal):
        return format(v, "f")  # the literal's own digits, plain notation
    return json.dumps(v, ensure_ascii=False)  # strings, integers, true, false, null


def chain_ok(lines: list[str]) -> bool:
    header, *records = (json.loads(line, parse_float=Decimal) for line in lines)
    running = bytes(32)
    events = [r for r in records if r["record"] == "event"]
    for seq, e in enumerate(events, start=1):
        body = {k: e[k] for k in ("seq", "type", "schema_version", "data", "metadata")}
        body |= {"game_id": header["game_id"], "recorded_at": Decimal(e["recorded_at"])}
        digest = hashlib.sha256(running + canonical(body).encode()).digest()
        if e["seq"] != seq or bytes.fromhex(e["prev_hash"]) != running or digest.hex() != e["hash"]:
            return False
        running = digest
    return header["events"] == len(events) and header["last_hash"] == running.hex()


def shuffles_ok(lines: list[str]) -> bool:
    records = [json.loads(line) for line in lines[1:]]
    for s in (r for r in records if r["record"] == "shuffle"):
        order = json.dumps(s["order"], separators=(",", ":"), ensure_ascii=False)
        if hashlib.sha256((s["salt"] + order).encode()).hexdigest() != s["commitment"]:
            return False
    return True


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name.removesuffix(".jsonl.gz"))
def test_the_chain_and_the_shuffles_check_out_with_code_written_from_the_format_document(path: Path) -> None:
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    assert chain_ok(lines)
    assert shuffles_ok(lines)


def test_an_independent_check_catches_one_changed_byte() -> None:
    lines = gzip.decompress(CORPUS[0].read_bytes()).decode().splitlines()
    assert chain_ok(lines)
    lines[3] = lines[3].replace('"data":{', '"data":{"x": 1, ', 1)
    assert not chain_ok(lines)
