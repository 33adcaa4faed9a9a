"""The scheduler finds games by a wake time that a move leaves alone, so a move's update of its
game's ``streams`` row touches no index.

``streams.due_at`` (when the game next needs the server: a reaction window, a decision timeout)
changes with nearly every move of a clocked game, and it was indexed for the scheduler: every
append rewrote the row with a new entry in both of the table's indexes (a non-HOT update, about
150 WAL bytes a command and an index that bloats). The index now covers ``wake_at``, a time at
which the scheduler looks at the game, never after its deadline:

- an append sets it to the new deadline when that is earlier than it (or it is unset) and
  clears it with the deadline; a deadline moved later (the usual move: a turn's clock starts
  again) leaves it where it is, so the update is HOT (``fillfactor`` leaves each page room for
  the row's next version);
- the scheduler (``EventStore.due_games``) takes the games whose wake time has passed: those
  whose deadline has passed too are due; the others' wake time is moved to their deadline, in
  one ``UPDATE`` that rereads the row under its lock (an append in flight is waited for, and its
  deadline is the one taken).

So a game's deadline is never missed (``wake_at <= due_at`` whenever there is a deadline) and a
clocked game costs the scheduler at most one extra update per deadline it outlives.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-04
"""

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0025"
down_revision = "0024"
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


_DUE = """due_at = to_timestamp(p_due_at[k])
         WHERE s.game_id = game;"""
_DUE_AND_WAKE = """due_at = to_timestamp(p_due_at[k]),
                             -- never after the deadline; where it was when the deadline moves later
                             wake_at = CASE WHEN p_due_at[k] IS NULL THEN NULL
                                            WHEN s.wake_at <= to_timestamp(p_due_at[k]) THEN s.wake_at
                                            ELSE to_timestamp(p_due_at[k]) END
         WHERE s.game_id = game;"""


def append_batch() -> str:
    """0024's ``playlog_append_batch`` keeping each game's wake time with its deadline."""
    text = str(_revision("0024_group_members_without_command_id.py").append_batch())
    if text.count(_DUE) != 1:
        raise RuntimeError("0024's playlog_append_batch changed: its update of streams")
    return text.replace(_DUE, _DUE_AND_WAKE)


def upgrade() -> None:
    op.execute("ALTER TABLE streams ADD COLUMN wake_at timestamptz")
    op.execute("UPDATE streams SET wake_at = due_at WHERE due_at IS NOT NULL")
    op.execute("CREATE INDEX streams_wake ON streams (wake_at) WHERE wake_at IS NOT NULL")
    op.execute("DROP INDEX streams_due")
    # Every move updates its game's row: room on each page for the next version keeps it HOT.
    op.execute("ALTER TABLE streams SET (fillfactor = 70)")
    op.execute(append_batch())


def downgrade() -> None:
    op.execute(str(_revision("0024_group_members_without_command_id.py").append_batch()))
    op.execute("ALTER TABLE streams RESET (fillfactor)")
    op.execute("CREATE INDEX streams_due ON streams (due_at) WHERE due_at IS NOT NULL")
    op.execute("DROP INDEX streams_wake")
    op.execute("ALTER TABLE streams DROP COLUMN wake_at")
