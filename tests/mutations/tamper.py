"""Blind damage to an export, each with where a verifier must name it: byte flips, deleted,
reordered, duplicated lines, truncations, and header facts changed (docs/export-format.md says
what each check finds where)."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable

from tests.mutations.files import Base, Line, Mutant

_ALNUM = (string.ascii_letters + string.digits).encode()
_HEX = b"0123456789abcdef"


def _places_after(raw: bytes, line: Line) -> set[str]:
    """Where a changed line may be named: its line, its record, and the record it now claims."""
    out = line.places()
    try:
        record = json.loads(raw)
    except ValueError:
        return out
    if isinstance(record, dict) and isinstance(record.get("seq"), int):
        out.add(f"seq {record['seq']}")
    return out


def byte_flip(base: Base, rng: random.Random) -> Mutant:
    """One letter or digit of an event, shuffle or access line replaced by another byte (now and
    then one that is not UTF-8, or a hex digit in upper case)."""
    line = rng.choice([line for line in base.lines if line.kind in ("event", "shuffle", "access")])
    raw = bytearray(line.raw)
    at = rng.choice([i for i in range(len(raw) - 1) if raw[i] in _ALNUM])
    roll = rng.random()
    if roll < 0.05:
        new = 0xFF
    elif roll < 0.15 and raw[at] in b"abcdef":
        new = raw[at] - 32  # the same hex digit, upper case
    else:
        new = rng.choice([c for c in _ALNUM if c != raw[at]])
    raw[at] = new
    lines = list(base.raw)
    lines[line.number - 1] = bytes(raw)
    where = _places_after(bytes(raw), line)
    return Mutant("byte flip", f"{base.name}: line {line.number} byte {at}", lines, frozenset(where))


def header_flip(base: Base, rng: random.Random) -> Mutant:
    """One character of a header fact the checks cover: the game id (every hash), the event count
    and last hash (the chain's end), the kind (lobby.created), the format version."""
    fact = rng.choice(["game_id", "events", "last_hash", "kind", "format_version"])
    raw = bytearray(base.raw[0])
    key = f'"{fact}":'.encode()
    start = raw.index(key) + len(key)
    end = start
    while raw[end] not in b",}":
        end += 1
    at = rng.choice([i for i in range(start, end) if raw[i] in _ALNUM])
    alphabet = b"0123456789" if fact in ("events", "format_version") else _ALNUM
    raw[at] = rng.choice([c for c in alphabet if c != raw[at]])
    end_of_chain = f"seq {base.events + 1}"
    where = {
        "game_id": {"seq 1", "line 1"},  # "line 1": no longer a UUID
        "events": {end_of_chain, "line 1"},  # "line 1": a leading zero is not JSON
        "last_hash": {end_of_chain},
        "kind": {"seq 1"},
        "format_version": {"line 1"},
    }[fact]
    lines = [bytes(raw), *base.raw[1:]]
    return Mutant("header changed", f"{base.name}: header {fact}", lines, frozenset(where))


def delete_line(base: Base, rng: random.Random) -> Mutant:
    """One line removed: the header, an event, a reveal, or an access record before the last
    (a file may hold fewer access records than the game: an export to a non-moderator has none)."""
    access = base.of("access")
    candidates = [line for line in base.lines if line.kind in ("header", "event", "shuffle")] + access[:-1]
    line = rng.choice(candidates)
    lines = base.raw[: line.number - 1] + base.raw[line.number :]
    where = {"line 1"} if line.kind == "header" else line.places() - {f"line {line.number}"}
    return Mutant("line deleted", f"{base.name}: line {line.number}", lines, frozenset(where))


def reorder(base: Base, rng: random.Random) -> Mutant:
    """Two events (or two access records) swapped, or an event moved to the end of the file."""
    events, access = base.of("event"), base.of("access")
    roll = rng.random()
    lines = list(base.raw)
    if roll < 0.2 and len(access) >= 2:
        first, second = sorted(rng.sample(access, 2), key=lambda line: line.number)
    elif roll < 0.4:
        first = rng.choice(events[:-1])  # (the last one moved after the reveals keeps its place)
        del lines[first.number - 1]
        lines.append(first.raw)
        # After the file's other lines, it breaks the stated order where it lands; in a file of
        # events alone, the chain where it left.
        others = any(line.kind not in ("header", "event") for line in base.lines)
        where = frozenset({f"line {len(lines)}"} if others else {f"seq {first.record['seq']}"})
        return Mutant("lines reordered", f"{base.name}: line {first.number} to the end", lines, where)
    else:
        first, second = sorted(rng.sample(events, 2), key=lambda line: line.number)
    lines[first.number - 1], lines[second.number - 1] = second.raw, first.raw
    where = frozenset(first.places() - {f"line {first.number}"})
    return Mutant("lines reordered", f"{base.name}: lines {first.number}, {second.number}", lines, where)


def truncate(base: Base, rng: random.Random) -> Mutant:
    """The file cut short: inside a line (a torn line), or after an event before the last (or
    after the last, losing the reveals)."""
    events, shuffles = base.of("event"), base.of("shuffle")
    if rng.random() < 0.5:
        line = rng.choice([line for line in base.lines if line.kind != "header"])
        cut = rng.randrange(1, len(line.raw) - 2)
        lines = [*base.raw[: line.number - 1], line.raw[:cut]]
        return Mutant(
            "truncated", f"{base.name}: in line {line.number}", lines, frozenset({f"line {line.number}"})
        )
    ends = events[:-1] + (events[-1:] if shuffles else [])
    line = rng.choice(ends)
    seq = line.record["seq"]
    # The first seq the cut file gets wrong: a commitment whose reveal was cut off, or the end.
    lost = [s.record["seq"] for s in shuffles if s.record["seq"] <= seq] + [seq + 1]
    where = frozenset({f"seq {min(lost)}"})
    return Mutant("truncated", f"{base.name}: after line {line.number}", base.raw[: line.number], where)


def duplicate(base: Base, rng: random.Random) -> Mutant:
    """A line repeated right after itself: an event, a reveal, an access record, or the header (a
    personal line repeated is the same record again: docs/export-format.md, "Personal lines")."""
    line = rng.choice([line for line in base.lines if line.kind in ("header", "event", "shuffle", "access")])
    lines = [*base.raw[: line.number], line.raw, *base.raw[line.number :]]
    if line.kind == "header":
        where = {"line 2"}
    elif line.kind == "shuffle":  # not above the seq of the shuffle line before it: the order
        where = {f"line {line.number + 1}"}
    elif line.kind == "access":
        where = {f"access record {line.record['n'] + 1}"}
    else:  # the chain names the copy's place; a replay may stumble on the copy itself first
        where = {f"seq {line.record['seq'] + 1}", f"seq {line.record['seq']}"}
    return Mutant("line duplicated", f"{base.name}: line {line.number}", lines, frozenset(where))


# How many of each per base file.
STRUCTURAL: list[tuple[Callable[[Base, random.Random], Mutant], int]] = [
    (byte_flip, 40),
    (header_flip, 6),
    (delete_line, 8),
    (reorder, 8),
    (truncate, 8),
    (duplicate, 6),
]


def structural(base: Base, seed: int) -> list[Mutant]:
    rng = random.Random(seed)
    return [make(base, rng) for make, count in STRUCTURAL for _ in range(count)]
