"""docs/events.md, generated from the msgspec event types: ``make docs`` (a test fails when stale).

For each game, each event type with its schema version, its docstring and its fields. What each
viewer sees is not written by hand: seeded random games are played with the game's own rules
(no I/O), and every event is passed through the game's ``redact`` for every seat and for a
spectator; a field is listed as seen by everyone, by some seats only, or by moderators only from
what ``redact`` actually did.
"""

from __future__ import annotations

import os
import random
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_type_hints

import msgspec

from domain import registry
from domain.decider import About, Concede, Context, Decider
from domain.viewers import SPECTATOR, Seat
from projections import table as tables

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GAMES_PER_SETTING = 12
LEAVE_CHANCE = 0.01  # now and then a seat leaves, so that leaving's events are observed too


def about(kind: str) -> About:
    """The game's title and option samples (domain/<game>/about.py)."""
    decider = registry.get(kind)
    assert decider.about is not None, f"{kind} has no About"
    return decider.about


def rules_page(kind: str, start: Path = ROOT) -> str:
    """The game's rules document (its folder's ``rules.md``), as a path from ``start``."""
    return Path(os.path.relpath(registry.folder(kind) / "rules.md", start)).as_posix()


@dataclass
class Seen:
    """What viewers saw of one event type's fields, over every observed event."""

    observed: int = 0
    hidden_from_spectator: set[str] = field(default_factory=set)
    seen_by_some_seat: set[str] = field(default_factory=set)  # of the fields spectators lose
    partly_seen_by_seats: set[str] = field(default_factory=set)  # a seat saw more than spectators
    not_to_spectators: int = 0
    not_to_some_seats: int = 0


def play(decider: Decider, raw: dict[str, Any], seed: int) -> Iterator[Any]:
    """The events of one random game played with the rules alone."""
    rng = random.Random(seed)
    options = decider.parse_options(raw)
    state = decider.initial_state(options)
    batch = decider.start(state, Context(rng, 0.0, None))
    for moves in range(5000):
        yield from batch
        state = decider.fold(state, batch)
        if decider.outcome(state) is not None:
            return
        leave = moves > 10 and rng.random() < LEAVE_CHANCE
        choices = [
            (seat, command)
            for seat in range(options.players)
            for command in decider.legal_commands(state, seat)
            if leave or type(command) is not Concede
        ]
        if not choices:
            return
        seat, command = rng.choice(choices)
        batch = decider.decide(state, command, Context(rng, 0.0, seat))


def observe(kind: str) -> dict[str, Seen]:
    decider = registry.get(kind)
    seen: dict[str, Seen] = defaultdict(Seen)
    for raw in map(dict, about(kind).option_samples):
        for n in range(GAMES_PER_SETTING):
            for event in play(decider, raw, n):
                entry = seen[tables.event_tag(event)]
                entry.observed += 1
                original = msgspec.to_builtins(event)
                spectator = decider.redact(event, SPECTATOR)
                if spectator is None:
                    entry.not_to_spectators += 1
                    lost = set(original) - {"type"}
                else:
                    shown = msgspec.to_builtins(spectator)
                    lost = {k for k in original if shown.get(k) != original[k]}
                entry.hidden_from_spectator |= lost
                for seat in range(raw["players"]):
                    redacted = decider.redact(event, Seat(seat))
                    if redacted is None:
                        entry.not_to_some_seats += 1
                        continue
                    mine = msgspec.to_builtins(redacted)
                    entry.seen_by_some_seat |= {k for k in lost if mine.get(k) == original[k]}
                    if spectator is not None:
                        entry.partly_seen_by_seats |= {
                            k for k in lost if mine.get(k) not in (original[k], shown.get(k))
                        }
    return seen


def type_name(hint: Any) -> str:
    text = str(hint) if not isinstance(hint, type) else hint.__name__
    text = re.sub(r"\b(?:[a-z_]+\.)+([A-Za-z_]+)", r"\1", text)
    text = text.replace("NoneType", "None").replace("<class '", "").replace("'>", "")
    return text


def describe(doc: str | None) -> str:
    text = " ".join((doc or "").split()).replace("``", "`")
    return text or "(No description in the code: the fields say it.)"


def visibility(name: str, entry: Seen | None) -> str:
    if entry is None:
        return "not observed in the sample games (see the description)"
    if name not in entry.hidden_from_spectator:
        return "everyone"
    if name in entry.partly_seen_by_seats:
        return "each seat its own part only"
    if name in entry.seen_by_some_seat:
        return "the seats concerned only"
    return "moderators only"


def game_section(kind: str) -> list[str]:
    decider = registry.get(kind)
    seen = observe(kind)
    lines = [
        f"## {about(kind).title} (`{kind}`)",
        "",
        f"Rules version {decider.versions.rules}; the rules as enforced: [{rules_page(kind)}]"
        f"({rules_page(kind, DOCS)}).",
        "",
    ]
    for struct in get_args(decider.types.event):
        tag = tables.event_tag_of(struct)
        entry = seen.get(tag)
        version = decider.versions.schemas.get(tag, 1)
        lines += [f"### `{tag}` (schema version {version})", "", describe(struct.__doc__), ""]
        if entry is not None and entry.not_to_spectators:
            shown = "spectators never see it" if entry.not_to_spectators == entry.observed else ""
            if entry.not_to_some_seats:
                shown = "spectators never see it; seats other than the one concerned do not either"
            if shown:
                lines += [f"Shown to: {shown}.", ""]
        lines += ["| field | type | seen by |", "| --- | --- | --- |"]
        for name, hint in get_type_hints(struct).items():
            shown_type = type_name(hint).replace("|", "\\|")
            lines.append(f"| `{name}` | `{shown_type}` | {visibility(name, entry)} |")
        lines.append("")
    return lines


HEADER = """# Event catalogue

Generated from the msgspec event types by `make docs`
([`service/tools/eventdocs.py`](../service/tools/eventdocs.py)); do not edit by hand: a test fails
when this page is stale.

Every stored event holds the whole truth once; what a viewer receives is the game's `redact` of
it (streams, `events`, command results, seat transcripts). Moderators see every field. The
"seen by" column is what `redact` did over seeded sample games: *everyone* (every seat and
spectators, spectators after the spectator delay), *the seats concerned only* (e.g. the drawer,
the giver and receiver; other seats and spectators get the field blanked), *moderators only*
(hidden until an audit or export of the finished game).

## Versions and upcasters

Each event type has a schema version, stored with every event (`schema_version`, 1 unless listed
otherwise below). When a type's shape changes, its version goes up in the game's
`domain/<game>/upcasters.py` (`SCHEMA_VERSIONS`) and an upcaster `UPCASTERS[(type, old)]` turns a
stored body of the old version into the next one; `projections.table.decode` runs the chain
before decoding, so old games replay unchanged (the golden corpus in `tests/golden/` proves it).
Each game also records the rules version it was created under (`lobby.created`'s
`rules_version`, passed to `decide` as `ctx.rules_version`), so that a rules change that would
alter an old game's outcome applies to new games only.

## Lobby events (every game)

Public: every seat and spectator sees them whole.

| type | fields |
| --- | --- |
"""


def render() -> str:
    lines = [HEADER.rstrip("\n")]
    for struct in get_args(tables.LobbyEvents):
        names = ", ".join(f"`{n}`" for n in get_type_hints(struct))
        lines.append(f"| `{tables.event_tag_of(struct)}` | {names} |")
    lines += [
        "",
        "## Dispute events (every game)",
        "",
        "In the game's own log, hash-chained like every move. Who reads what of them is in",
        "`domain/disputes/views.py`: moderators everything; the seat an event is about all of it;",
        "the other seats and spectators the dispute's existence, status and ruling, never a reason",
        "or a note.",
        "",
        "| type | fields |",
        "| --- | --- |",
    ]
    for struct in get_args(tables.DisputeEvents):
        names = ", ".join(f"`{n}`" for n in get_type_hints(struct))
        lines.append(f"| `{tables.event_tag_of(struct)}` | {names} |")
    lines.append("")
    for kind in registry.games():
        lines += game_section(kind)
    return "\n".join(lines).rstrip("\n") + "\n"


def rules_index() -> str:
    """docs/rules/README.md: every registered game's rules document, which lives in its folder."""
    lines = [
        "# The rules as enforced",
        "",
        "One document per game, in the game's own folder next to its code (generated by `make docs`",
        "from the registry: service/tools/eventdocs.py).",
        "",
    ]
    lines += [f"- [{about(kind).title}]({rules_page(kind, DOCS / 'rules')})" for kind in registry.games()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(rules_index() if sys.argv[1:] == ["--rules-index"] else render())
