"""service/ runs any registered game and names none: no kind, no title, no game's own option,
command or refusal code appears in its source (they live in domain/<game>/, reached through the
registry and the composed decider)."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec

from domain import registry

SERVICE = Path(__file__).resolve().parents[2] / "service"
SHARED_OPTIONS = {"players", "seed"}  # every game's options have them


def game_names() -> set[str]:
    names: set[str] = set()
    for kind, decider in registry.games().items():
        names.add(kind)
        # Options named by one word ("mode") are ordinary words elsewhere: only compound ones.
        names |= {
            f.name for f in msgspec.structs.fields(decider.options_type) if "_" in f.name
        } - SHARED_OPTIONS
        if decider.concede is not None:
            names.add(str(decider.concede().__struct_config__.tag))
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
        for path in sorted(SERVICE.rglob("*.py"))
        for name, pattern in patterns.items()
        if pattern.search(path.read_text())
    ]
    assert found == []
