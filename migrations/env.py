"""Alembic environment: plain SQL revisions run through SQLAlchemy on psycopg2.

The URL is taken from the Alembic config (set by ``service.migrate``) or PLAYLOG_DATABASE_URL.
"""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool, text

config = context.config


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("PLAYLOG_DATABASE_URL", "")
    if not url:
        raise RuntimeError("No database URL: set PLAYLOG_DATABASE_URL.")
    return url.replace("postgresql://", "postgresql+psycopg2://", 1).replace(
        "postgres://", "postgresql+psycopg2://", 1
    )


def run_migrations_offline() -> None:
    context.configure(url=_url(), literal_binds=True, transaction_per_migration=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(_url(), poolclass=pool.NullPool)
    with engine.connect() as connection:
        # Instances starting together migrate one at a time; the others then find nothing to do.
        connection.execute(text("SELECT pg_advisory_lock(hashtext('playlog-migrations'))"))
        connection.commit()
        context.configure(connection=connection, transaction_per_migration=True)
        with context.begin_transaction():
            context.run_migrations()
        connection.execute(text("SELECT pg_advisory_unlock(hashtext('playlog-migrations'))"))
        connection.commit()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
