"""An export held as its lines, each known by its record and place, for the mutation corpus.

A ``Mutant`` is a tampered copy of a real export with where a verifier must name the damage:
one of ``where`` (``"seq N"``, ``"line N"``, ``"access record N"``; a verifier may name either
the line or the record the line held). ``rules`` marks a mutant that only a verifier holding
the rules can refuse (``playlog verify``, not one working from docs/export-format.md alone).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class Mutant:
    kind: str  # the class of tampering, e.g. "byte flip", "forged: seat not on turn"
    name: str  # base file and what was done, for a failure message
    lines: list[bytes]
    where: frozenset[str]
    rules: bool = False  # only a replay of the rules can catch it


@dataclass
class Line:
    number: int  # 1-based, in the file
    raw: bytes
    record: dict[str, Any] = field(repr=False)

    @property
    def kind(self) -> str:
        return str(self.record.get("record"))

    def places(self) -> set[str]:
        """Where a verifier may name damage to this line."""
        out = {f"line {self.number}"}
        if self.kind in ("event", "shuffle"):
            out.add(f"seq {self.record['seq']}")
        elif self.kind == "access":
            out.add(f"access record {self.record['n']}")
        return out


# The proofs at an export's end (docs/export-format.md, "Proofs") are checked only against keys a
# verifier trusts (``playlog verify --trust``, tests/e2e/test_dishonest_operator.py): a plain
# verify cannot refuse damage to them, so the corpus's bases leave them out.
PROOF_RECORDS = frozenset({"receipt_keys", "proof", "checkpoint"})


@dataclass
class Base:
    """A real export (without its proofs): its name and lines."""

    name: str
    raw: list[bytes]

    def __post_init__(self) -> None:
        self.raw = [raw for raw in self.raw if json.loads(raw).get("record") not in PROOF_RECORDS]

    @cached_property
    def lines(self) -> list[Line]:
        return [Line(n, raw, json.loads(raw)) for n, raw in enumerate(self.raw, start=1)]

    def of(self, kind: str) -> list[Line]:
        return [line for line in self.lines if line.kind == kind]

    @property
    def header(self) -> dict[str, Any]:
        header: dict[str, Any] = json.loads(self.raw[0])
        return header

    @property
    def events(self) -> int:
        return len(self.of("event"))

    @cached_property
    def openers(self) -> dict[int, int]:
        """Each seq -> the seq that opens its recorded command's group (itself in a game recorded
        before commands were): re-execution judges a group whole, so it may name its opener."""
        out: dict[int, int] = {}
        opener, left = 0, 0
        for line in self.of("event"):
            seq, metadata = line.record["seq"], line.record["metadata"]
            command = metadata.get("command") if isinstance(metadata, dict) else None
            if left == 0:
                opener, left = seq, int(command["events"]) if self.recorded and command else 1
            out[seq] = opener
            left -= 1
        return out

    @cached_property
    def recorded(self) -> bool:
        """Whether the game recorded its commands (so re-execution can judge its moves)."""
        events = self.of("event")
        return bool(events) and "command" in events[0].record["metadata"]

    def widened(self, mutant: Mutant) -> Mutant:
        """``mutant`` with the opener of every seq it may be named by also allowed, and, where
        the server seed's disclosure is damaged, the end it follows (a game that ended without
        disclosing its seed is named where it ended)."""
        seqs = [int(w.removeprefix("seq ")) for w in mutant.where if w.startswith("seq ")]
        openers = {f"seq {self.openers[s]}" for s in seqs if s in self.openers}
        disclosed = [
            line.record["seq"] for line in self.of("event") if line.record["type"] == "lobby.seed_disclosed"
        ]
        ends = {f"seq {s - 1}" for s in seqs if s in disclosed}
        return replace(mutant, where=mutant.where | openers | ends)
