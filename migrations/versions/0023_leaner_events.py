"""Leaner events: a command's record once per command, and no column the metadata repeats.

- Every event of one append carried the same metadata, the recorded command (its body, its clock
  and how many events it produced) included, so a command of three events stored its record three
  times and hashed it three times. ``playlog_append_batch`` now writes the item's metadata whole
  on its first event and without ``command`` on the others; the group is still delimited by the
  first event's ``command.events``, and every event still carries ``actor`` and ``command_id``
  (docs/export-format.md, "Recorded commands"). Events written before keep their copies: the
  verifiers accept a group's later events with the first's metadata or with it less ``command``.
- ``events.command_id`` repeated ``metadata.command_id`` on every event and nothing read it (the
  table ``commands`` answers a retried command): dropped.

The function's signature is unchanged, so its delegation on Citus is too.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-04
"""

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0023"
down_revision = "0022"
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


_WHOLE = """h := playlog_event_digest(cur_hash, game, cur_seq, p_types[i], p_versions[i],
                                      p_data[i], p_metadata[k], ts);"""
_ONCE = """h := playlog_event_digest(cur_hash, game, cur_seq, p_types[i], p_versions[i],
                                      p_data[i], meta, ts);"""
_LOOP = """        FOR i IN offsets[k] + 1 .. offsets[k] + n LOOP
            cur_seq := cur_seq + 1;"""
_LOOP_ONCE = """        meta := p_metadata[k];  -- whole on the item's first event, less its command after
        FOR i IN offsets[k] + 1 .. offsets[k] + n LOOP
            cur_seq := cur_seq + 1;
            IF i = offsets[k] + 2 THEN
                meta := p_metadata[k] - 'command';
            END IF;"""
_INSERT = """                INSERT INTO events AS e (game_id, seq, type, schema_version, data, metadata,
                                         command_id, recorded_at, prev_hash, hash)
                VALUES (game, cur_seq, p_types[i], p_versions[i], p_data[i], p_metadata[k],
                        p_command_ids[k], ts, cur_hash, h)"""
_INSERT_ONCE = """                INSERT INTO events AS e (game_id, seq, type, schema_version, data, metadata,
                                         recorded_at, prev_hash, hash)
                VALUES (game, cur_seq, p_types[i], p_versions[i], p_data[i], meta,
                        ts, cur_hash, h)"""
_DECLARE = """    i        integer;
BEGIN"""
_DECLARE_ONCE = """    i        integer;
    meta     jsonb;
BEGIN"""


def append_batch() -> str:
    """0012's ``playlog_append_batch`` with each item's command recorded on its first event only."""
    text = str(_revision("0012_durable_appends.py").APPEND_BATCH)
    for old, new in (
        (_WHOLE, _ONCE),
        (_INSERT, _INSERT_ONCE),
        (_LOOP, _LOOP_ONCE),
        (_DECLARE, _DECLARE_ONCE),
    ):
        if text.count(old) != 1:
            raise RuntimeError(f"0012's playlog_append_batch changed: {old.splitlines()[0]!r}")
        text = text.replace(old, new)
    return text


def upgrade() -> None:
    op.execute(append_batch())
    op.execute("ALTER TABLE events DROP COLUMN command_id")


def downgrade() -> None:
    op.execute("ALTER TABLE events ADD COLUMN command_id text")
    op.execute("UPDATE events SET command_id = metadata->>'command_id'")
    op.execute(str(_revision("0012_durable_appends.py").APPEND_BATCH))
