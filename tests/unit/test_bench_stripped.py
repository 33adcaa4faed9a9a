"""bench/stripped.py removes parts of the service by their text: each must still be there, once,
or the accounting in bench/README.md could no longer be reproduced."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _stripped() -> object:
    spec = importlib.util.spec_from_file_location("bench_stripped", ROOT / "bench" / "stripped.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REMOVALS: dict[str, tuple[str, str, str]] = _stripped().REMOVALS  # type: ignore[attr-defined]


@pytest.mark.parametrize("removal", sorted(REMOVALS))
def test_each_part_the_stripped_copy_removes_is_still_in_the_tree_once(removal: str) -> None:
    name, old, _ = REMOVALS[removal]
    assert (ROOT / name).read_text().count(old) == 1
