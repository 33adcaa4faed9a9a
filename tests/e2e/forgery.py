"""Forging an export as a dishonest operator would: change the log, then recompute every hash,
commitment and header fact so that only the rules can tell (docs/export-format.md)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from domain import commitment
from projections.export.format import canonical, parse
from tests.mutations.forge import rechain


class Forged:
    """An export's records, parsed with every number kept as written."""

    def __init__(self, lines: list[str]) -> None:
        self.records: list[dict[str, Any]] = [parse(line) for line in lines if line.strip()]

    @property
    def header(self) -> dict[str, Any]:
        return self.records[0]

    @property
    def events(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r["record"] == "event"]

    @property
    def shuffles(self) -> list[dict[str, Any]]:
        return [r for r in self.records if r["record"] == "shuffle"]

    def event(self, seq: int) -> dict[str, Any]:
        return self.events[seq - 1]

    def first(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        return next(e for e in self.events if test(e))

    def opening(self, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first event that opens a command's group and passes ``test``."""
        at = 0
        events = self.events
        while at < len(events):
            if test(events[at]):
                return events[at]
            at += events[at]["metadata"]["command"]["events"]
        raise LookupError("no such command")

    def insert_after(self, seq: int, events: list[dict[str, Any]]) -> None:
        """New events after ``seq`` (renumbered, the ones after them too)."""
        at = self.records.index(self.event(seq)) + 1
        self.records[at:at] = events
        for number, event in enumerate(self.events, start=1):
            event["seq"] = number

    def truncate_after(self, seq: int) -> None:
        self.records = [r for r in self.records if r["record"] != "event" or r["seq"] <= seq]
        self.records = [r for r in self.records if r["record"] != "shuffle" or r["seq"] <= seq]

    def recommit(self, seq: int, order: list[Any]) -> None:
        """A new order for the shuffle line of ``seq``, with its commitment recomputed in both
        the line and the event."""
        line = next(s for s in self.shuffles if s["seq"] == seq)
        line["order"] = order
        line["commitment"] = self.event(seq)["data"]["commitment"] = commitment.commit(order, line["salt"])

    def lines(self) -> list[str]:
        """The file with its chain and header recomputed."""
        header = self.header
        running = rechain(header["game_id"], self.events)
        header["events"] = len(self.events)
        header["last_hash"] = running.hex()
        return [canonical(record) + "\n" for record in self.records]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
