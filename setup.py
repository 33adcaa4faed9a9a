"""The package's metadata is pyproject.toml's; this adds one step to the build: what the service
reads from the repository's top level goes into the wheel too, so that an installed copy serves
from any directory.

- migrations/ (the Alembic configuration and its revisions) beside the store that runs them
  (service/store/migrations/, service/store/database.py finds it there);
- docs/api.md, the API walk-through the pages link (``/walkthrough``), beside the pages
  (service/http/web/docs/api.md).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# source -> where the package holds it
CARRIED = {"migrations": "service/store/migrations", "docs/api.md": "service/http/web/docs/api.md"}


class build_py_carrying(build_py):
    def run(self) -> None:
        super().run()
        for source, target in CARRIED.items():
            destination = Path(self.build_lib) / target
            destination.parent.mkdir(parents=True, exist_ok=True)
            if (ROOT / source).is_dir():
                shutil.copytree(ROOT / source, destination, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copyfile(ROOT / source, destination)


setup(cmdclass={"build_py": build_py_carrying})
