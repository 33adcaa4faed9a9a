"""The deployment's public identity, recorded by the first instance to start (docs/scaling.md).

``deployment_identity``: one row per shared setting (``PLAYLOG_LOG_SIGNING_KEY``,
``PLAYLOG_JWT_SECRET``...) with its public form: the log's verifier keys, its origin, the
witnesses' keys, the JWT keys' ids and fingerprints; never a secret. An instance whose
configuration gives another value refuses to start; ``playlog deployment rotate-log-key`` and
``playlog deployment adopt`` change a recorded value on purpose.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-03
"""

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE deployment_identity (
            setting      text         PRIMARY KEY,
            value        text         NOT NULL,
            recorded_at  timestamptz  NOT NULL DEFAULT now()
        );
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE deployment_identity")
