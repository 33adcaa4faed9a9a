"""The package's metadata is pyproject.toml's; this adds one step to the build.

The pages link the API walk-through (``/walkthrough``), which is docs/api.md: the wheel carries a
copy beside the pages (service/http/web/docs/api.md), so an installed copy serves it too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DOCUMENTS = {"docs/api.md": "service/http/web/docs/api.md"}  # source -> where the package holds it


class build_py_with_documents(build_py):
    def run(self) -> None:
        super().run()
        for source, target in DOCUMENTS.items():
            destination = Path(self.build_lib) / target
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / source, destination)


setup(cmdclass={"build_py": build_py_with_documents})
