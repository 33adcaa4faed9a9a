"""A command's later events without its ``command_id``; the ``commands`` rows without a date.

- Since 0023 a command's first event carries its metadata whole (``actor``, ``command_id`` and
  the recorded ``command``) and its later events the same less ``command``. Those later events
  also repeated the first's ``command_id``: the group is delimited by the first event's
  ``command.events``, so the id is known for each of its events without it. They now carry the
  first's metadata less ``command`` and ``command_id`` (``actor`` stays: a moderator reading one
  event sees who acted). Logs written before verify as they did (docs/export-format.md,
  "Recorded commands").
- ``commands.recorded_at`` was written with every command and read by nothing (the event's
  ``recorded_at`` dates it): dropped.

The function's signature is unchanged, so its delegation on Citus is too.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-04
"""

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def _revision(name: str) -> ModuleType:
    """An earlier migration's module (a module whose name no import takes)."""
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location(f"playlog_migration_{name[:4]}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_LESS_COMMAND = "meta := p_metadata[k] - 'command';"
_LESS_COMMAND_AND_ID = "meta := p_metadata[k] - 'command' - 'command_id';"
_COMMENT = "-- whole on the item's first event, less its command after"
_COMMENT_AND_ID = "-- whole on the item's first event, less its command and command_id after"


def append_batch() -> str:
    """0023's ``playlog_append_batch`` with a group's later events carrying no ``command_id``."""
    text = str(_revision("0023_leaner_events.py").append_batch())
    for old, new in ((_LESS_COMMAND, _LESS_COMMAND_AND_ID), (_COMMENT, _COMMENT_AND_ID)):
        if text.count(old) != 1:
            raise RuntimeError(f"0023's playlog_append_batch changed: {old!r}")
        text = text.replace(old, new)
    return text


def upgrade() -> None:
    op.execute(append_batch())
    op.execute("ALTER TABLE commands DROP COLUMN recorded_at")


def downgrade() -> None:
    op.execute("ALTER TABLE commands ADD COLUMN recorded_at timestamptz NOT NULL DEFAULT now()")
    op.execute(str(_revision("0023_leaner_events.py").append_batch()))
