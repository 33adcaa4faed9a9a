"""The project's own documentation: links that resolve in a fresh clone, an up-to-date catalogue."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from domain import registry
from service.tools import eventdocs

ROOT = Path(__file__).resolve().parents[2]
RULES_DOCUMENTS = [registry.folder(kind) / "rules.md" for kind in registry.games()]  # in each game's folder
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *RULES_DOCUMENTS]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {_slug(h) for h in headings}


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return LINK.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(page: Path) -> None:
    for link in _links(page):
        if re.match(r"^[a-z]+:", link):
            assert page.name != "README.md", f"README.md links outside the repository: {link}"
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.is_relative_to(ROOT), f"{page.name}: {link} points outside the repository"
        assert target.exists(), f"{page.name}: {link} does not exist"
        if anchor and target.suffix == ".md":
            assert anchor in _anchors(target), f"{page.name}: {link} names no heading of {target.name}"


def test_the_docs_exist_that_the_readme_promises() -> None:
    for name in ("architecture.md", "api.md", "events.md", "export-format.md"):
        assert (ROOT / "docs" / name).is_file(), name
    for document in RULES_DOCUMENTS:
        assert document.is_file(), document


def test_the_event_catalogue_is_generated_from_todays_event_types() -> None:
    committed = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    assert committed == eventdocs.render(), "docs/events.md is stale: run `make docs`"


def test_the_rules_index_lists_every_game_s_rules_document() -> None:
    committed = (ROOT / "docs" / "rules" / "README.md").read_text(encoding="utf-8")
    assert committed == eventdocs.rules_index(), "docs/rules/README.md is stale: run `make docs`"
