"""The append-only log in PostgreSQL and its adapters: pool, batching, replica, Citus, notifications."""
