"""An import-linter contract type: a framework's internals imported only where that is the job.

import-linter forbids external packages only whole (``litestar``, never ``litestar._asgi``), so
this contract reads each import of the packages it names and finds the private ones: a module
path with a part that starts with ``_`` (``litestar._asgi.utils``), a name imported that does
(``from litestar.x import _y``), or a module the contract names as internal although it has no
underscore (``uvicorn.protocols``). Only the ``allowed`` modules (and those below them) may.
Attribute access (``conn._protocol``) is no import: tests/unit/test_fenced_internals.py scans it.
"""

from __future__ import annotations

import re

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output

_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+(.*)|import\s+(.*))$")


def private(line: str, package: str, internal: list[str]) -> str | None:
    """The private module or name of ``package`` that the import ``line`` reaches, if any."""
    matched = _IMPORT.match(line)
    if matched is None:
        return None
    source, names, plain = matched.groups()
    modules = [source] if source else [m.split(" as ")[0].strip() for m in plain.split(",")]
    for module in modules:
        if module != package and not module.startswith(package + "."):
            continue
        parts = module.split(".")
        if any(p.startswith("_") and not p.startswith("__") for p in parts):
            return module
        if any(module == i or module.startswith(i + ".") for i in internal):
            return module
        imported = re.findall(r"\b(_[A-Za-z]\w*)", names or "")
        if imported:
            return f"{module}.{imported[0]}"
    return None


class FencedInternals(Contract):
    """The ``packages``' private modules and names (and the ``internal`` modules) are imported
    only by the ``allowed`` modules and their descendants."""

    type_name = "fenced_internals"

    packages = fields.ListField(subfield=fields.StringField())
    internal = fields.ListField(subfield=fields.StringField(), required=False)
    allowed = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        allowed = [m.name for m in self.allowed]  # type: ignore[attr-defined]
        internal: list[str] = list(self.internal or [])  # type: ignore[arg-type]
        found: list[tuple[str, int, str]] = []
        for package in self.packages:  # type: ignore[attr-defined]
            for importer in sorted(graph.find_modules_that_directly_import(package)):
                if any(importer == a or importer.startswith(a + ".") for a in allowed):
                    continue
                for detail in graph.get_import_details(importer=importer, imported=package):
                    reached = private(detail["line_contents"], package, internal)
                    if reached is not None:
                        found.append((importer, detail["line_number"], reached))
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, line_number, reached in check.metadata["found"]:
            output.print_error(f"{importer}:{line_number} imports {reached}", bold=False)
