"""Webhooks (issue 54): a player's subscriptions and the queue of their deliveries.

``webhook_subscriptions``: one row per URL a player registered, with its secret (HMAC-SHA256 key of
the signature, shown once), its state (``active``, or ``paused`` with the reason its owner reads)
and how its deliveries are going (``failing_since``: the first failure since the last success).

``webhook_deliveries``: one row per message to one subscription, written by the projector in the
transaction that folds the events it tells of (so a message is queued once, never lost), sent by
every instance's delivery loop (rows claimed with ``FOR UPDATE SKIP LOCKED``), retried until
``next_attempt_at`` passes its deadline; ``delivered_at`` or ``gave_up_at`` end it.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE webhook_subscriptions (
            webhook_id     uuid PRIMARY KEY,
            player_id      uuid NOT NULL,
            url            text NOT NULL,
            secret         text NOT NULL,
            created_at     timestamptz NOT NULL DEFAULT now(),
            state          text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'paused')),
            paused_reason  text,
            failing_since  timestamptz,
            last_error     text
        );
        CREATE INDEX webhook_subscriptions_by_player ON webhook_subscriptions (player_id);

        CREATE TABLE webhook_deliveries (
            delivery_id     uuid PRIMARY KEY,
            webhook_id      uuid NOT NULL REFERENCES webhook_subscriptions (webhook_id) ON DELETE CASCADE,
            body            jsonb NOT NULL,
            created_at      timestamptz NOT NULL DEFAULT now(),
            attempts        integer NOT NULL DEFAULT 0,
            next_attempt_at timestamptz NOT NULL DEFAULT now(),
            delivered_at    timestamptz,
            gave_up_at      timestamptz
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
            WHERE delivered_at IS NULL AND gave_up_at IS NULL;
        CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id);
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE webhook_deliveries; DROP TABLE webhook_subscriptions;")
