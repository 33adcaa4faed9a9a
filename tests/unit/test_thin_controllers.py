"""The controllers are thin: under service/http/api/ no store, no pool, no SQL and no fold; each
handler calls a service method (service/app/games.py, service/app/audit.py, service/app/listing.py)."""

from __future__ import annotations

import re
from pathlib import Path

API = Path(__file__).resolve().parents[2] / "service" / "http" / "api"

FORBIDDEN = {
    "asyncpg": re.compile(r"\basyncpg\b(?!\s+refuses)"),  # a comment may say what asyncpg does
    "the event store": re.compile(r"\bservice\.store\b(?!\.database)|(?<!service)\.store\b|\bEventStore\b"),
    "a connection pool": re.compile(r"\.pool\b|\bcreate_pool\b"),
    "SQL": re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|\.fetch(val|row)?\(|\.execute\("),
    "a fold": re.compile(r"\bfold_rows\b|\btables\.step\b|\bevolve\(|\breplay\("),
}


def test_no_controller_touches_the_database_or_folds() -> None:
    found = [
        f"{path.relative_to(API.parents[1])}:{number}: {what}"
        for path in sorted(API.glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        for what, pattern in FORBIDDEN.items()
        if pattern.search(line)
    ]
    assert found == []
