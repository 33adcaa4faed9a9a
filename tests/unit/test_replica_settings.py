"""The replica and instance settings read from the environment."""

from __future__ import annotations

from service.config import Settings


def test_replica_and_instance_settings_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {
            "PLAYLOG_READ_DATABASE_URL": "postgresql://replica/playlog",
            "PLAYLOG_REPLICA_WAIT": "1.5",
            "PLAYLOG_INSTANCE_ID": "playlog-b",
        }
    )
    assert settings.read_database_url == "postgresql://replica/playlog"
    assert settings.replica_wait == 1.5
    assert settings.instance_id == "playlog-b"


def test_without_them_every_read_is_on_the_primary_and_the_instance_is_named_by_host_and_pid() -> None:
    settings = Settings.from_env({})
    assert settings.read_database_url is None
    assert settings.replica_wait == 0.5
    host, _, pid = settings.instance_id.rpartition(":")
    assert host and pid.isdigit()
