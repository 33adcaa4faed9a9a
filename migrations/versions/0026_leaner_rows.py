"""Rows without what nothing reads: ``events.position`` dropped, a command's fingerprint kept as
its 32 bytes.

- ``events.position`` was an identity (per node under Citus: a hint, no order), written with
  every event (its 8 bytes, and the sequence's own WAL) and read by nothing since the projector
  and ``read_all`` follow ``(game_id, seq)`` (0006, 0007). Dropped, with its sequence. The
  append functions keep their ``position`` column, always null, so that their signatures, and
  the delegation on Citus, stay as they are.
- ``commands.fingerprint`` held the request's SHA-256 as 64 hex characters; it is now the
  digest's 32 bytes. The append functions still take and give back the hex text (the caller
  compares it with its request's), converting at the table. This rewrites the ``commands``
  table once, under its lock.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-04
"""

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0026"
down_revision = "0025"
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


_INDENT = "\n" + " " * 27
_CHANGES = (
    (
        "SELECT e.position, e.seq, e.type, e.schema_version, e.data, e.metadata,"
        + _INDENT
        + "e.recorded_at, e.prev_hash, e.hash, true, prior.fingerprint, k, NULL::text",
        "SELECT NULL::bigint, e.seq, e.type, e.schema_version, e.data, e.metadata, e.recorded_at,"
        + _INDENT
        + "e.prev_hash, e.hash, true, encode(prior.fingerprint, 'hex'), k, NULL::text",
    ),
    (
        "RETURNING e.position, e.seq,",
        "RETURNING NULL::bigint, e.seq,",  # the position: no longer kept (see above)
    ),
    (
        "VALUES (game, p_command_ids[k], p_fingerprints[k], cur_seq - n + 1, cur_seq);",
        "VALUES (game, p_command_ids[k], decode(p_fingerprints[k], 'hex'), cur_seq - n + 1, cur_seq);",
    ),
)


def append_batch() -> str:
    """0025's ``playlog_append_batch`` without the events' position, the fingerprint as bytes."""
    text = str(_revision("0025_wake_times.py").append_batch())
    for old, new in _CHANGES:
        if text.count(old) != 1:
            raise RuntimeError(f"0025's playlog_append_batch changed: {old.splitlines()[0]!r}")
        text = text.replace(old, new)
    return text


def upgrade() -> None:
    op.execute("ALTER TABLE events DROP COLUMN position")
    op.execute("ALTER TABLE commands ALTER COLUMN fingerprint TYPE bytea USING decode(fingerprint, 'hex')")
    op.execute(append_batch())


def downgrade() -> None:
    op.execute("ALTER TABLE commands ALTER COLUMN fingerprint TYPE text USING encode(fingerprint, 'hex')")
    op.execute("ALTER TABLE events ADD COLUMN position bigint GENERATED ALWAYS AS IDENTITY")
    op.execute(str(_revision("0025_wake_times.py").append_batch()))
