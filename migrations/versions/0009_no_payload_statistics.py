"""No planner statistics on the events' payload columns.

ANALYZE samples up to 30,000 rows of a table and builds statistics for every column. On
``events`` most of that work went to the payloads: the ``data`` and ``metadata`` documents and
the two 32-byte hashes, which no query filters, joins or sorts on (the log is read by its key,
``(game_id, seq)``; the one expression index on ``data`` keeps its own statistics). Measured on a
41,000-event log: ANALYZE of ``events`` took 514 ms of CPU, 128 ms without those four columns.
Autovacuum runs it every time the table grows by a tenth, on the same cores as the service: in
bench/latency.py it stalled commands for half a second (bench/README.md).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

PAYLOADS = ("data", "metadata", "prev_hash", "hash")


def _statistics(target: int) -> None:
    columns = ", ".join(f"ALTER COLUMN {column} SET STATISTICS {target}" for column in PAYLOADS)
    op.execute(f"ALTER TABLE events {columns}")


def upgrade() -> None:
    _statistics(0)


def downgrade() -> None:
    _statistics(-1)  # back to default_statistics_target
