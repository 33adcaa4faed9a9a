"""A copy of the service without what a command's answer does not need: the read-model projector,
the rate limits, the command's log line and counter, and the append's notification. Served with
``PLAYLOG_BENCH_SERVICE_ROOT``, it shows what those parts cost per command (the accounting in
bench/README.md). Never a service to run: the lobby list, the statistics and the other instances
would fall behind.

Run: ``.venv/bin/python bench/stripped.py /tmp/stripped``, then for example
``PLAYLOG_BENCH_SERVICE_ROOT=/tmp/stripped .venv/bin/python bench/commands.py``, interleaved with
runs of the tree as it is (a copy made the same way with ``--remove none``). ``--remove`` takes
one part at a time.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# name: (file, what it says, what the copy says instead); each must be found exactly once.
REMOVALS = {
    "projector": (
        "service/bootstrap.py",
        "    projector.start()\n",
        "    pass  # stripped: no read models\n",
    ),
    "limits": (
        "service/http/limits.py",
        "    return [DefineMiddleware(RateLimits, limits=limits)] if limits else []",
        "    return []  # stripped: no rate limits",
    ),
    "log": (
        "service/app/games.py",
        """            _count_command(kind, outcome)
            log.info(
                "command",
                game_id=str(game_id),
                seat=seat,
                command=command_type,
                outcome=outcome,
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )""",
        "            pass  # stripped: no log line, no counter",
    ),
    "notify": (
        "service/app/games.py",
        """        if self.notifier is not None:
            self.notifier.publish(game_id, new_table.version)""",
        "        # stripped: no notification",
    ),
}


MARK = ".playlog-bench-copy"  # in each copy: only a folder that has it is ever replaced


def copy(destination: Path, removals: list[str]) -> None:
    """The committed tree (``git archive HEAD``) into ``destination``, without ``removals``."""
    if destination.exists() and any(destination.iterdir()):
        if not (destination / MARK).exists():
            raise SystemExit(f"{destination} is not empty and is no copy made by bench/stripped.py")
        shutil.rmtree(destination)
    destination.mkdir(parents=True, exist_ok=True)
    (destination / MARK).touch()
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, check=True, capture_output=True)
    subprocess.run(["tar", "-xf", "-", "-C", str(destination)], input=archive.stdout, check=True)
    for removal in removals:
        name, old, new = REMOVALS[removal]
        path = destination / name
        text = path.read_text()
        if text.count(old) != 1:
            raise SystemExit(f"{name} no longer says what bench/stripped.py removes: update REMOVALS")
        path.write_text(text.replace(old, new))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("destination", type=Path)
    parser.add_argument(
        "--remove",
        default=",".join(REMOVALS),
        help=f"what to remove, comma-separated, of {', '.join(REMOVALS)} (default: all; none: the baseline)",
    )
    args = parser.parse_args()
    removals = [name for name in args.remove.split(",") if name and name != "none"]
    if unknown := set(removals) - set(REMOVALS):
        parser.error(f"nothing called {', '.join(sorted(unknown))} to remove")
    copy(args.destination, removals)
    print(f"{args.destination}: the committed tree without {', '.join(removals) or 'anything'}")


if __name__ == "__main__":
    main()
