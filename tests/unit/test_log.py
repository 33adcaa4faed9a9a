"""The service's log lines: one JSON object per line, whatever the values."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

SCRIPT = """
import uuid
from service.runtime import log
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


BURST = """
import asyncio, io, sys
from service.runtime import log


class Counted(io.TextIOWrapper):  # stderr, counting the writes that reach it
    writes = 0


class CountedBuffer(io.BufferedWriter):
    def write(self, data):
        Counted.writes += 1
        return super().write(data)


real = sys.stderr
sys.stderr = Counted(CountedBuffer(io.FileIO(real.fileno(), "w", closefd=False)))
log.configure("json")
log.write_by_turn()
logger = log.get_logger("t")

async def main():
    for n in range(3):
        logger.info("in_a_turn", n=n)
    await asyncio.sleep(0)  # the turn ends: its lines go out
    logger.info("next_turn")
    await asyncio.sleep(0)

asyncio.run(main())
logger.info("after_the_loop")  # no loop: written at once


def stopped_in_its_turn(name):
    loop = asyncio.new_event_loop()

    def turn():
        logger.info(name)
        loop.stop()  # the loop ends with this turn: its end never comes

    loop.call_soon(turn)
    loop.run_forever()
    loop.close()


stopped_in_its_turn("stopped_turn")
asyncio.run(main())  # a new loop writes what the closed one held first
stopped_in_its_turn("last_turn")  # written at exit
print(Counted.writes)
"""


def test_the_lines_of_one_turn_of_the_loop_are_written_together_in_order_and_none_is_lost() -> None:
    out = subprocess.run([sys.executable, "-c", BURST], capture_output=True, text=True, check=True)
    events = [json.loads(line)["event"] for line in out.stderr.splitlines()]
    first = ["in_a_turn"] * 3 + ["next_turn"]
    assert events == [*first, "after_the_loop", "stopped_turn", *first, "last_turn"]
    # One write per turn: the three lines of the first together (two runs of main: 2 + 2 writes).
    assert out.stdout.split() == ["6"]
