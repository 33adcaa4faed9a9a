"""The parts a deployment may switch off (docs/configuration.md), as bench/commands.py --without does."""

from __future__ import annotations

import pytest

from service.config import Settings


def test_every_part_is_on_unless_switched_off() -> None:
    on = Settings.from_env({})
    assert (on.read_models, on.command_log, on.notify_appends) == (True, True, True)
    off = Settings.from_env(
        {"PLAYLOG_READ_MODELS": "off", "PLAYLOG_COMMAND_LOG": "0", "PLAYLOG_NOTIFY_APPENDS": "false"}
    )
    assert (off.read_models, off.command_log, off.notify_appends) == (False, False, False)


def test_a_switch_that_is_neither_on_nor_off_is_refused_at_start() -> None:
    with pytest.raises(ValueError, match="PLAYLOG_READ_MODELS is on or off"):
        Settings.from_env({"PLAYLOG_READ_MODELS": "sometimes"})
