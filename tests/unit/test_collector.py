"""The garbage collector's settings in a served process (service/runtime/collector.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from service.http import asgi
from service.runtime import collector


@pytest.fixture
def restored_collector() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_settle_freezes_what_start_up_made_and_spaces_collections_out(restored_collector: None) -> None:
    # given a started process (this one), nothing frozen
    gc.unfreeze()
    # when it settles
    collector.settle()
    # then what it holds is out of every later collection, and the youngest generation waits longer
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (collector.YOUNG, collector.MIDDLE, collector.OLD)
    assert collector.YOUNG > 700  # the interpreter's default


def test_a_served_app_settles_once_started_and_an_app_built_by_tests_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PLAYLOG_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    monkeypatch.setenv("PLAYLOG_JWT_SECRET", "x" * 40)
    served = asgi.app()  # what uvicorn's workers build
    assert served.on_startup[-1] is collector.settle

    from service.http.app import create_app

    built = create_app(database_url="postgresql://nobody@127.0.0.1:1/none")
    assert collector.settle not in built.on_startup
