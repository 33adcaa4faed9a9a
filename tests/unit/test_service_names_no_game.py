"""service/ runs any registered game and names none: no kind, no title, no game's own option,
command or refusal code appears in its source, Python or web page (they live in domain/<game>/
and domain/<game>/page/, reached through the registry and the composed decider)."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from domain import registry

SERVICE = Path(__file__).resolve().parents[2] / "service"
SOURCES = ("*.py", "*.js", "*.html", "*.css")


def shared_options() -> set[str]:
    """The options every game has (players, seed, ...): the service may name those."""
    fields = [{f.name for f in msgspec.structs.fields(d.types.options)} for d in registry.games().values()]
    return set.intersection(*fields)


def game_names() -> set[str]:
    names: set[str] = set()
    shared = shared_options()
    for kind, decider in registry.games().items():
        names.add(kind)
        # Options named by one word ("mode") are ordinary words elsewhere: only compound ones.
        names |= {f.name for f in msgspec.structs.fields(decider.types.options) if "_" in f.name} - shared
        if decider.about is not None:
            names |= {decider.about.title, *decider.about.race_codes}
    return names


def test_no_source_file_under_service_names_a_game() -> None:
    # A command tag ("Leave") only counts quoted: the word itself is ordinary English.
    patterns = {
        name: re.compile(
            rf"['\"`]{re.escape(name)}['\"`]" if name[0].isupper() else rf"\b{re.escape(name)}\b"
        )
        for name in game_names()
    }
    found = [
        f"{path.relative_to(SERVICE.parent)}: {name}"
        for pattern_of_files in SOURCES
        for path in sorted(SERVICE.rglob(pattern_of_files))
        for name, pattern in patterns.items()
        if pattern.search(path.read_text())
    ]
    assert found == []


def test_every_registered_game_has_its_page_outside_service() -> None:
    from pages import games

    assert set(games()) == set(registry.games())
    for page in games().values():
        assert (
            page.script.is_file()
            and f"registerGame({page.kind!r}".replace("'", '"') in page.script.read_text()
        )
