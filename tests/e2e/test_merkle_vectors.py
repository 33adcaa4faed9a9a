"""Both verifiers' RFC 9162 proof checks (projections/merkle.py and examples/typescript/export/
merkle.ts) agree with every inclusion and consistency case of transparency-dev/merkle's test
vectors: each valid proof accepted, each ``wantErr`` one refused.

The vectors are data kept outside the repository, in ``shared/vectors/merkle/`` beside it (CI's
clone has ``../shared``; a worktree finds it beside a farther parent), the way the Citus source
is found (tests/citus/cluster.py): one copy for every checkout, unchanged from upstream with its
LICENSE. Their ``subtreeinclusion`` and ``subtreeconsistency`` folders test proofs over subtrees
(Merkle Tree Certificates), which playlog neither makes nor checks: not read here.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from projections import merkle
from tests.e2e.test_clients import typescript_build  # noqa: F401  (the fixture: npm ci, tsc)

ROOT = Path(__file__).resolve().parents[2]


def vectors_dir() -> Path:
    """``shared/vectors/merkle`` beside the repository's root, or beside a farther parent."""
    for parent in ROOT.parents:
        found = parent / "shared" / "vectors" / "merkle"
        if found.is_dir():
            return found
    raise FileNotFoundError(
        "no shared/vectors/merkle beside the repository (transparency-dev/merkle's testdata)"
    )


def cases() -> list[tuple[str, dict[str, Any]]]:
    top = vectors_dir()
    return [
        (str(path.relative_to(top)), json.loads(path.read_text()))
        for kind in ("inclusion", "consistency")
        for path in sorted((top / kind).glob("**/*.json"))
    ]


def _hash(text: str | None) -> bytes:
    return base64.b64decode(text or "")


def python_accepts(name: str, case: dict[str, Any]) -> bool:
    proof = [_hash(h) for h in case["proof"] or []]
    if name.startswith("inclusion/"):
        leaf, root = _hash(case["leafHash"]), _hash(case["root"])
        return merkle.verify_inclusion(leaf, case["leafIdx"], case["treeSize"], proof, root)
    old, new = _hash(case["root1"]), _hash(case["root2"])
    return merkle.verify_consistency(case["size1"], case["size2"], old, new, proof)


# Reads the cases (name and JSON, one a line) on stdin; prints one 0/1 a line: accepted.
TYPESCRIPT_RUNNER = """
import { readFileSync } from "node:fs";
import { verifyConsistency, verifyInclusion } from "./export/merkle.js";
const b = (s) => Buffer.from(s ?? "", "base64");
for (const line of readFileSync(0, "utf8").split("\\n").filter(Boolean)) {
  const [name, c] = JSON.parse(line);
  const proof = (c.proof ?? []).map(b);
  const ok = name.startsWith("inclusion/")
    ? verifyInclusion(b(c.leafHash), c.leafIdx, c.treeSize, proof, b(c.root))
    : verifyConsistency(c.size1, c.size2, b(c.root1), b(c.root2), proof);
  console.log(ok ? 1 : 0);
}
"""


def test_there_are_inclusion_and_consistency_cases_valid_and_invalid() -> None:
    every = cases()
    assert {name.split("/")[0] for name, _ in every} == {"inclusion", "consistency"}
    assert len(every) >= 190 and {case["wantErr"] for _, case in every} == {True, False}


def test_the_python_verifier_agrees_with_every_vector() -> None:
    disagreements = [
        f"{name}: wantErr {case['wantErr']}"
        for name, case in cases()
        if python_accepts(name, case) == case["wantErr"]
    ]
    assert not disagreements, disagreements


def test_the_typescript_verifier_agrees_with_every_vector(typescript_build: Path) -> None:  # noqa: F811
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed for the TypeScript verifier")
    every = cases()
    runner = typescript_build / "merkle_vectors.mjs"
    runner.write_text(TYPESCRIPT_RUNNER)
    done = subprocess.run(
        [node, str(runner)],
        input="\n".join(json.dumps([name, case]) for name, case in every),
        capture_output=True,
        text=True,
        check=True,
    )
    accepted = done.stdout.split()
    assert len(accepted) == len(every), done.stderr
    disagreements = [
        f"{name}: wantErr {case['wantErr']}"
        for (name, case), ok in zip(every, accepted, strict=True)
        if (ok == "1") == case["wantErr"]
    ]
    assert not disagreements, disagreements
