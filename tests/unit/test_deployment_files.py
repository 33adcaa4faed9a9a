"""No Docker engine runs here: check that the deployment files name only what exists."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from click.testing import CliRunner

from service.tools.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"


def test_compose_file_parses_and_runs_three_instances_against_postgres() -> None:
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    instances = [s for name, s in services.items() if name.startswith("playlog")]
    assert "postgres" in services
    assert len(instances) == 3
    assert len({s["environment"]["PLAYLOG_INSTANCE_ID"] for s in instances}) == 3
    for service in instances:
        build = service["build"]
        context = (DOCKER / build["context"]).resolve()
        assert context == ROOT
        assert (context / build["dockerfile"]).is_file()
        env = service["environment"]
        assert env["PLAYLOG_DATABASE_URL"].startswith("postgresql://")


def test_compose_shares_one_identity_written_once_and_holds_no_secret() -> None:
    text = (DOCKER / "compose.yaml").read_text()
    compose = yaml.safe_load(text)
    services = compose["services"]
    assert "change-me" not in text and "SECRET" not in text and "SIGNING_KEY" not in text
    init = services["deployment-init"]
    shared = init["command"][init["command"].index("--file") + 1]
    assert init["command"][:3] == ["playlog", "deployment", "init"]
    volume = next(v.split(":")[0] for v in init["volumes"] if v.split(":")[1] == str(Path(shared).parent))
    assert volume in compose["volumes"]  # a named volume: it survives a redeploy
    for name, service in services.items():
        if name.startswith("playlog"):
            assert service["environment"]["PLAYLOG_DEPLOYMENT_FILE"] == shared
            assert f"{volume}:{Path(shared).parent}:ro" in service["volumes"]
            assert service["depends_on"]["deployment-init"]["condition"] == "service_completed_successfully"
    dockerfile = (DOCKER / "Dockerfile").read_text()
    assert f"mkdir {Path(shared).parent} && chown playlog {Path(shared).parent}" in dockerfile


def test_haproxy_in_compose_balances_every_instance_with_health_checks_on_readyz() -> None:
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    haproxy = services["haproxy"]
    mounted, target = haproxy["volumes"][0].split(":")[:2]
    assert (DOCKER / mounted).resolve() == DOCKER / "haproxy.cfg"
    assert target == "/usr/local/etc/haproxy/haproxy.cfg"
    config = (DOCKER / "haproxy.cfg").read_text()
    servers = re.findall(r"^\s*server (\S+) (\S+):8000$", config, re.M)
    instances = sorted(name for name in services if name.startswith("playlog"))
    assert sorted(host for _, host in servers) == instances
    assert set(haproxy["depends_on"]) == set(instances)
    assert "option httpchk GET /readyz" in config
    # SSE: the inactivity timeouts outlast the instances' 15 s keep-alive comments.
    for timeout in re.findall(r"^\s*timeout (?:client|server) (\d+)s", config, re.M):
        assert int(timeout) > 15


def test_compose_and_dockerfile_commands_exist_in_the_cli() -> None:
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    dockerfile = (DOCKER / "Dockerfile").read_text()
    commands = [s["command"] for s in compose["services"].values() if "command" in s]
    cmd = re.search(r"^CMD (\[.*\])$", dockerfile, re.M)
    assert cmd is not None
    commands.append(yaml.safe_load(cmd.group(1)))
    for command in commands:
        assert command[0] == "playlog"
        result = CliRunner().invoke(main, [*command[1:2], "--help"])
        assert result.exit_code == 0, result.output


def test_dockerfile_copies_only_existing_paths_and_runs_as_non_root() -> None:
    dockerfile = (DOCKER / "Dockerfile").read_text()
    for line in dockerfile.splitlines():
        if line.startswith("COPY") and "--from" not in line:
            *sources, _dest = line.split()[1:]
            for source in sources:
                assert (ROOT / source).exists(), source
    assert re.search(r"^USER (?!root)\w+", dockerfile, re.M)
    assert dockerfile.count("FROM ") >= 2
