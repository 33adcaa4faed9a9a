"""What a check of an export found, and what the fold of its log left for the other checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from projections.table import Table


class Finding(msgspec.Struct, frozen=True):
    # chain | personal | shuffles | replay | seeds | format | access | log | receipts | extend | tlog-proof
    check: str
    # an access finding: the record's n; a format finding: the line number; a receipt's: its
    # place among the seat's receipts (0: the receipts as a whole); a log finding: 0 for the
    # checkpoint itself
    seq: int
    reason: str

    def where(self) -> str:
        if self.check == "access":
            return f"access record {self.seq}"
        if self.check == "receipts":
            return f"receipt {self.seq}" if self.seq else "the receipts"
        if self.check == "tlog-proof":
            return "the tlog-proof"
        if self.check == "log" and self.seq == 0:
            return "checkpoint"
        if self.check == "extend":
            return "the log now"
        return f"line {self.seq}" if self.check == "format" else f"seq {self.seq}"


@dataclass
class Replayed:
    table: Table | None
    orders: dict[int, list[Any]]  # seq -> the hidden order right after a committing event
    commitments: dict[int, tuple[str, str | None]]  # seq -> (commitment, salt) of the event
    finding: Finding | None
    # How the log was judged: ``executed`` commands re-run through ``decide``, ``awaiting`` of
    # them applied as facts because their draws need the server seed, not disclosed yet; a log
    # without recorded commands is only replayed (``recorded`` False).
    recorded: bool = False
    executed: int = 0
    awaiting: int = 0
    seeds: list[Finding] = field(default_factory=list)
