"""The operator's documents cannot go stale: every setting the code reads is in
docs/configuration.md, every `playlog` command in docs/operations.md, every operation of the
OpenAPI document in docs/routes.md, every page in docs/pages.md, and each lists nothing that is gone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from service.http.web import pages
from service.tools.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SETTING = re.compile(r"\bPLAYLOG_[A-Z0-9_]*[A-Z0-9]\b")
# Where a setting may be read: the service, and the tests' and benches' own switches.
READERS = ("service", "tests", "bench", "docker", "Makefile", ".ci")
SOURCES = {".py", ".yaml", ".cfg", ".sh"}


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _sources(*roots: str) -> str:
    texts = []
    for name in roots:
        path = ROOT / name
        files = (
            [path]
            if path.is_file()
            else [p for p in path.rglob("*") if p.suffix in SOURCES or p.name == "run"]
        )
        texts.extend(_text(p) for p in files if p.is_file() and p != Path(__file__))
    return "\n".join(texts)


def test_every_setting_the_service_reads_is_documented() -> None:
    documented = set(SETTING.findall(_text(DOCS / "configuration.md")))
    read = set(SETTING.findall(_sources("service")))
    missing = read - documented
    assert not missing, f"docs/configuration.md lacks {sorted(missing)}"


def test_every_documented_setting_is_read_somewhere() -> None:
    documented = set(SETTING.findall(_text(DOCS / "configuration.md")))
    read = set(SETTING.findall(_sources(*READERS)))
    gone = documented - read
    assert not gone, f"docs/configuration.md documents settings nothing reads: {sorted(gone)}"


def _commands(group: click.Group, prefix: str = "playlog") -> list[str]:
    names = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            names.extend(_commands(command, f"{prefix} {name}"))
        else:
            names.append(f"{prefix} {name}")
    return names


def test_every_playlog_command_is_in_the_operations_table() -> None:
    table = _text(DOCS / "operations.md")
    listed = {c for c in _commands(main) if f"`{c}" in table or f"/ `{c}" in table}
    missing = set(_commands(main)) - listed
    assert not missing, f"docs/operations.md's table lacks {sorted(missing)}"


def test_the_operations_table_names_no_command_that_is_gone() -> None:
    rows = [line for line in _text(DOCS / "operations.md").splitlines() if line.startswith("| `playlog ")]
    commands = set(_commands(main))
    for row in rows:
        for named in re.findall(r"`(playlog [a-z-]+(?: [a-z-]+)?)", row):
            assert named in commands or named.rsplit(" ", 1)[0] in commands, f"{named} is no command"


def _operation(span: str) -> tuple[str, str] | None:
    match = re.fullmatch(r"(GET|POST|PUT|PATCH|DELETE) (/[^?\s]*)(?:\?.*)?", span)
    return (match.group(1), re.sub(r"\{[^}]*\}", "{}", match.group(2))) if match else None


def test_the_routes_table_lists_every_operation_of_the_document_and_no_other() -> None:
    document = json.loads(_text(ROOT / "openapi" / "openapi.json"))
    served = {
        (method.upper(), re.sub(r"\{[^}]*\}", "{}", path))
        for path, operations in document["paths"].items()
        for method in operations
    }
    rows = [line for line in _text(DOCS / "routes.md").splitlines() if line.startswith("| `")]
    listed = {
        op
        for row in rows
        for span in re.findall(r"`([^`]+)`", row.split(" | ")[0])
        if (op := _operation(span))
    }
    assert served - listed == set(), f"docs/routes.md lacks {sorted(served - listed)}"
    assert listed - served == set(), (
        f"docs/routes.md lists operations that are gone: {sorted(listed - served)}"
    )


def test_every_page_is_in_the_pages_table() -> None:
    table = _text(DOCS / "pages.md")
    paths = re.findall(r'@get\("([^"]+)"', _text(Path(pages.__file__)))
    assert paths, "no page found in service/http/web/pages.py"
    for path in paths:
        if path == "/walkthrough":
            continue  # a document, not a page: pages.md's "Headers" says what it serves
        shown = re.sub(r"\{(\w+):\w+\}", r"{\1}", path)
        assert f"`{shown}`" in table, f"docs/pages.md lacks the page {shown}"


def test_every_release_in_the_changelog_has_an_upgrade_fixture_named_by_its_tag() -> None:
    releases = re.findall(r"^## (v\d+\.\d+\.\d+) — ", _text(ROOT / "CHANGELOG.md"), flags=re.MULTILINE)
    assert releases, "CHANGELOG.md heads no release"
    fixtures = {path.name for path in (ROOT / "tests" / "upgrade" / "fixtures").iterdir()}
    missing = set(releases) - fixtures
    assert not missing, f"no upgrade test starts from {sorted(missing)}: record it (tests/upgrade/record.py)"
