"""The fault suite's fixtures: a PostgreSQL server of the test's own, a private directory."""

from tests.faults.conftest import own_postgres, workdir

__all__ = ["own_postgres", "workdir"]
