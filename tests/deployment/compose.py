"""docker/compose.yaml read as an operator's Docker would, to start its topology on loopback
without Docker: each playlog service's environment (its `environment`, merged anchors included,
its `env_file`s and the `${VAR}` substitutions, from the shell's environment the test gives) and
its command.

Only what cannot hold outside Docker is rewritten, and said here: the database URL (the compose
file names its `postgres` service; the test gives its own server's), the host and port each
instance listens on (one port each on 127.0.0.1 instead of one port each in its own network),
the data directory (one each, as each container has its own), and the container paths of named
volumes: a service's `- name:/container/path[:ro]` makes every value of its environment and
every argument of its command that lies under `/container/path` lie under the test's directory
for the volume `name` instead (the one directory every service mounting the volume shares)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # (no stubs in the test extra)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker" / "compose.yaml"
SUBSTITUTION = re.compile(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}")


@dataclass(frozen=True)
class Service:
    name: str
    environment: dict[str, str]
    command: list[str]

    @property
    def serves(self) -> bool:
        return self.command[:2] == ["playlog", "serve"]


def substitute(value: str, shell: Mapping[str, str]) -> str:
    """Compose's `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}` and `${VAR?error}`."""

    def one(match: re.Match[str]) -> str:
        name, operator, argument = match.group(1), match.group(2) or "", match.group(3) or ""
        value = shell.get(name)
        if operator.endswith("-"):
            return value if value or (value is not None and operator == "-") else argument
        if operator.endswith("?"):
            if value is None or (operator == ":?" and not value):
                raise ValueError(f"compose.yaml requires {name}: {argument}")
            return value
        return value or ""

    return SUBSTITUTION.sub(one, value)


def _env_file(path: Path, shell: Mapping[str, str]) -> dict[str, str]:
    values = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            values[key.strip()] = substitute(value.strip().strip("'\""), shell)
    return values


def _mounts(spec: dict[str, Any], named: Mapping[str, Path]) -> dict[str, Path]:
    """Container path -> host directory, for the service's named volumes."""
    mounts = {}
    for entry in spec.get("volumes") or []:
        if isinstance(entry, dict):
            source, target = entry.get("source", ""), entry["target"]
        else:
            source, target = str(entry).split(":")[:2]
        if source in named:
            mounts[target.rstrip("/")] = named[source]
    return mounts


def _on_host(value: str, mounts: Mapping[str, Path]) -> str:
    for target, directory in mounts.items():
        if value == target or value.startswith(target + "/"):
            return str(directory) + value[len(target) :]
    return value


def services(
    shell: Mapping[str, str], volumes: Mapping[str, Path], compose: Path = COMPOSE
) -> dict[str, Service]:
    """Every service of the compose file that runs a `playlog` command, by name, in the file's
    order; ``volumes`` gives the host directory of each named volume."""
    document: dict[str, Any] = yaml.safe_load(compose.read_text())
    assert set(volumes) <= set(document.get("volumes") or {}), "not volumes of the compose file"
    found = {}
    for name, spec in document["services"].items():
        command = [str(part) for part in spec.get("command") or []]
        if command[:1] != ["playlog"]:
            continue
        mounts = _mounts(spec, volumes)
        environment: dict[str, str] = {}
        env_files = spec.get("env_file") or []
        for entry in [env_files] if isinstance(env_files, (str, dict)) else env_files:
            path = entry["path"] if isinstance(entry, dict) else entry
            environment.update(_env_file(compose.parent / substitute(path, shell), shell))
        declared = spec.get("environment") or {}
        if isinstance(declared, list):
            declared = dict(item.split("=", 1) for item in declared)
        environment.update({k: substitute(str(v), shell) for k, v in declared.items() if v is not None})
        found[name] = Service(
            name,
            {k: _on_host(v, mounts) for k, v in environment.items()},
            [_on_host(substitute(part, shell), mounts) for part in command],
        )
    return found
