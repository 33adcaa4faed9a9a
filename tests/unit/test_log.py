"""The service's log lines: one JSON object per line, whatever the values."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

SCRIPT = """
import uuid
from service import log
log.configure("json")
log.get_logger("t").info("hello", game_id=uuid.UUID(int=7), n=3, odd=object())
log.get_logger("t").debug("hidden")
"""


def test_json_lines_carry_every_field_and_render_what_json_cannot_as_its_repr() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    lines = out.stderr.splitlines()
    assert len(lines) == 1  # one line per call, debug filtered out at the default level
    line = json.loads(lines[0])
    assert line["event"] == "hello"
    assert line["level"] == "info"
    assert line["game_id"] == str(uuid.UUID(int=7))
    assert line["n"] == 3
    assert line["odd"].startswith("<object object at")
    assert line["timestamp"].endswith("Z")
