"""Fixtures of the fault suite."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A private temporary directory: pytest's ``tmp_path`` lives under a base directory that
    other pytest runs on the machine prune, data directories of running servers included."""
    path = Path(tempfile.mkdtemp(prefix="playlog-faults-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
