"""Why a moderator may read a game face up: the reasons an access record names (service/app/access.py
records them, projections/export/verify.py checks them in an export; docs/access-records.md).

While a game runs, a face-up read names an open dispute of the game or gives one of ``REASONS``;
after its end it needs none and is recorded with ``AFTER_END`` (or the reason it gave).
"""

from __future__ import annotations

REASONS: dict[str, str] = {
    "cheating_report": "a report of cheating or collusion outside a dispute",
    "incident": "a technical incident: a game stuck, a bug being diagnosed",
    "legal_request": "a request the operator must answer by law",
    "player_request": "a seat of the game asked for it (support)",
}
DISPUTE = "dispute"  # the read names a dispute of the game
AFTER_END = "after_end"  # a read of an ended game that gave no reason
RECORDED = (*REASONS, DISPUTE, AFTER_END)  # every reason a record may hold
NOTE_LENGTH = 200
