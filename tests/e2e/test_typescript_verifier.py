"""The second-language verifier (examples/typescript/verify.ts, written from docs/export-format.md
alone) agrees with ``playlog verify`` on every file of the mutation corpus it can judge: the
chain, the commitments, the seeds, the structure; not the rules, which are not on the page.

Agreement: both refuse or both accept; a chain or format finding names the same place in both;
and where ``playlog verify`` finds nothing only the rules can (a move; that the game ended
without disclosing its server seed), both name the same first seq (or
line), and an access record verify.ts refuses is the one ``playlog verify`` refuses (whose checks
of the records go further: the game's end, its disputes).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from litestar import Litestar
from litestar.testing import AsyncTestClient

from projections.export import verify as export_verify
from service.config import Settings
from service.tools.client import PlaylogClient
from tests.e2e.test_clients import typescript_build  # noqa: F401  (the fixture: npm ci, tsc)
from tests.e2e.test_disputes import moderator_headers
from tests.mutations import corpus
from tests.mutations.files import Base, Mutant

FINDING = re.compile(r"^  (line|seq|access record) (\d+) \((\w+)\): ")


def _findings(lines: list[str]) -> dict[str, str]:
    """Each check's first finding's place, from a report's lines."""
    out: dict[str, str] = {}
    for line in lines:
        if match := FINDING.match(line):
            out.setdefault(match[3], f"{match[1]} {match[2]}")
    return out


def _disagreement(mutant: Mutant, python: export_verify.VerifyReport, typescript: list[str]) -> str | None:
    ours, theirs = python.lines(), typescript
    if (ours[-1] == "OK") != (theirs[-1] == "OK"):
        return f"{mutant.name}: playlog verify says {ours[-1]!r}, verify.ts {theirs[-1]!r}"
    found, found_ts = _findings(ours), _findings(theirs)
    for check in ("chain", "format"):
        if found.get(check) != found_ts.get(check):
            ours_at, theirs_at = found.get(check), found_ts.get(check)
            return f"{mutant.name}: {check} at {ours_at} in playlog verify, {theirs_at} in verify.ts"
    if "replay" in found or found.get("seeds") != found_ts.get("seeds"):
        return None  # the rules found something (a move, the game's end): not on the page
    if _first(ours) != _first(theirs):
        return f"{mutant.name}: {ours[-1]!r} against {theirs[-1]!r}"
    access, access_ts = found.get("access"), found_ts.get("access")
    if access_ts is not None and access_ts != access:  # the page's own checks of the records
        return f"{mutant.name}: access at {access} in playlog verify, {access_ts} in verify.ts"
    return None


def _first(report: list[str]) -> str:
    """The first bad seq or line of a report's last line (its access records aside)."""
    return report[-1].split(", first bad access record")[0]


def _run(node: str, script: Path, files: list[Path]) -> dict[str, list[str]]:
    """verify.ts over ``files`` in one process: each file's report after a ``== PATH`` line."""
    done = subprocess.run(
        [node, str(script), *map(str, files)], capture_output=True, text=True, timeout=600, check=False
    )
    assert not done.stderr, done.stderr
    reports: dict[str, list[str]] = {}
    for block in done.stdout.split("== ")[1:]:
        path, *lines = block.rstrip("\n").split("\n")
        reports[path] = lines
    return reports


async def test_the_typescript_verifier_agrees_with_playlog_verify_on_the_corpus(
    typescript_build: Path,  # noqa: F811
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    settings: Settings,
    database_url: str,
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    assert node is not None
    bases: list[Base] = await corpus.bases(api, http, moderator_headers(settings), database_url)
    sound = [Mutant("sound", base.name, base.raw, frozenset()) for base in bases]
    judged = sound + [m for m in corpus.mutants(bases) if not m.rules]
    files = []
    for n, mutant in enumerate(judged):
        files.append(tmp_path / f"{n}.jsonl")
        files[-1].write_bytes(b"".join(mutant.lines))
    reports = _run(node, typescript_build / "verify.js", files)
    assert all(reports[str(f)][-1] == "OK" for f in files[: len(sound)])  # real exports verify
    disagreements = [
        problem
        for mutant, file in zip(judged, files, strict=True)
        if (problem := _disagreement(mutant, corpus.verified(mutant), reports[str(file)]))
    ]
    assert not disagreements, disagreements[:10]
    assert len(judged) >= 1000


def test_the_typescript_verifier_reads_a_gzipped_export_and_names_a_torn_line(
    typescript_build: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    assert node is not None
    golden = corpus.GOLDEN / "ek-2022-combos-3p-1.jsonl.gz"
    whole = subprocess.run(
        [node, str(typescript_build / "verify.js"), str(golden)], capture_output=True, text=True, check=False
    )
    assert whole.returncode == 0 and whole.stdout.splitlines()[-1] == "OK", whole.stdout
    torn = tmp_path / "torn.jsonl"
    lines = corpus.golden("ek-2022-combos-3p-1").raw
    torn.write_bytes(b"".join(lines[:40]) + lines[40][:25])
    cut = subprocess.run(
        [node, str(typescript_build / "verify.js"), str(torn)], capture_output=True, text=True, check=False
    )
    assert cut.returncode == 1
    assert (
        cut.stdout.splitlines()[-1]
        == "FAILED: first bad line 41"
        == export_verify.verify_lines([*lines[:40], lines[40][:25]]).lines()[-1]
    )
