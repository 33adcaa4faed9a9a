"""``playlog deployment``: the settings every instance shares, written once, rotated on purpose."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import click

from service.config import Settings, read_deployment_file
from service.deployment import PUBLIC_SECRETS, SHARED
from service.tools.cli.common import friendly, main, on_connection, resolve_database

HEADER = """\
# playlog's shared settings: every instance of one deployment reads this file
# (PLAYLOG_DEPLOYMENT_FILE=<this file>; docs/scaling.md, "Shared settings"). It holds secrets:
# readable by the service only, kept out of version control, kept across redeploys.
"""


@main.group("deployment")
def deployment_group() -> None:
    """The settings every instance of a deployment shares (docs/scaling.md)."""


@deployment_group.command("init")
@click.option("--file", "path", required=True, type=click.Path(dir_okay=False, path_type=Path))
def init(path: Path) -> None:
    """Write the shared secrets into FILE once, for every instance to read (PLAYLOG_DEPLOYMENT_FILE).

    The JWT secret and the log's signing key are this configuration's (the environment's, or
    those a lone instance generated in PLAYLOG_DATA_DIR), else new ones; PLAYLOG_LOG_ORIGIN and
    PLAYLOG_WITNESS_KEYS are the environment's. An existing FILE is kept as it is.
    """
    from projections.notes import Signer
    from service.transparency.identity import KEYS_FILE

    if path.exists():
        click.echo(f"playlog: kept {path} (it exists; nothing written)", err=True)
        return
    env = {k: v for k, v in os.environ.items() if k != "PLAYLOG_DEPLOYMENT_FILE"}
    settings = Settings.from_env(env)
    generated_secret = settings.data_dir / "jwt-secret"
    generated_keys = settings.data_dir / KEYS_FILE
    if settings.jwt_secret:
        secret = settings.jwt_secret
    elif generated_secret.exists():
        secret = generated_secret.read_text().strip()
    else:
        secret = secrets.token_urlsafe(48)
    if secret in PUBLIC_SECRETS:
        raise click.UsageError("PLAYLOG_JWT_SECRET is the example value published with playlog: unset it")
    if settings.log_signing_key or generated_keys.exists():
        log_keys = settings.log_identity().keys
    else:
        log_keys = (Signer.generate(settings.log_origin),)
    lines = {
        "PLAYLOG_JWT_SECRET": secret,
        "PLAYLOG_LOG_ORIGIN": log_keys[0].name,
        "PLAYLOG_LOG_SIGNING_KEY": ",".join(k.text for k in log_keys),
        "PLAYLOG_WITNESS_KEYS": settings.witness_keys,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # O_EXCL: of two inits at once, one writes and the other keeps its file
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        click.echo(f"playlog: kept {path} (it exists; nothing written)", err=True)
        return
    with os.fdopen(fd, "w") as out:
        out.write(HEADER + "".join(f"{name}={value}\n" for name, value in lines.items()))
    click.echo(f"playlog: wrote {path}; give every instance PLAYLOG_DEPLOYMENT_FILE={path}", err=True)


@deployment_group.command("rotate-log-key")
@friendly
def rotate_log_key() -> None:
    """Sign with a new log key: put it first where the keys are kept and record it as the
    deployment's. The old keys stay published (they verify what they signed); restart every
    instance, one at a time, to sign with the new one."""
    from projections.notes import Signer
    from service import deployment
    from service.transparency import identity

    settings = Settings.from_env()
    url = resolve_database(settings)
    keys, current = settings.keyring(), settings.log_identity()
    on_connection(url, lambda conn: deployment.check(conn, settings, current, keys))
    shared = os.environ.get("PLAYLOG_DEPLOYMENT_FILE")
    rotated = identity.Identity((Signer.generate(current.origin), *current.keys))
    value = ",".join(k.text for k in rotated.keys)
    if os.environ.get("PLAYLOG_LOG_SIGNING_KEY"):  # the environment's: the operator sets it there
        click.echo(f"PLAYLOG_LOG_SIGNING_KEY={value}")
        click.echo("playlog: recorded; set PLAYLOG_LOG_SIGNING_KEY above on every instance", err=True)
    elif shared and read_deployment_file(Path(shared)).get("PLAYLOG_LOG_SIGNING_KEY"):
        _rewrite(Path(shared), "PLAYLOG_LOG_SIGNING_KEY", value)
    else:
        rotated = identity.rotate(settings.data_dir, current.origin)  # a lone instance's keys
    on_connection(
        url, lambda conn: deployment.adopt(conn, settings, rotated, keys, ["PLAYLOG_LOG_SIGNING_KEY"])
    )
    if not os.environ.get("PLAYLOG_LOG_SIGNING_KEY"):
        for verifier in rotated.verifiers:
            click.echo(verifier.text)


@deployment_group.command("adopt")
@click.argument("names", nargs=-1, type=click.Choice(list(SHARED)))
@click.option(
    "--drop-log-keys",
    is_flag=True,
    help="Allow log keys that leave out recorded ones (lost keys: a new log to witnesses, new claims).",
)
@friendly
def adopt(names: tuple[str, ...], drop_log_keys: bool) -> None:
    """Record this configuration's NAMES (default: every shared setting) as the deployment's,
    after changing them on purpose (a new JWT key first, a witness added). Instances started
    with the old values are refused from then on: give every instance the new ones."""
    from service import deployment
    from service.store import deployment as record

    settings = Settings.from_env()
    url = resolve_database(settings)
    keys, log = settings.keyring(), settings.log_identity()
    names = names or SHARED
    ours = deployment.public_identity(log, keys, settings.witnesses())
    before = on_connection(url, record.recorded)
    # The recorded log keys stay after any new one: they verify what they signed, the oldest
    # derives the seats' claims (docs/scaling.md).
    kept = before.get("PLAYLOG_LOG_SIGNING_KEY", ("",))[0].split(",")
    dropped = kept != [""] and ours["PLAYLOG_LOG_SIGNING_KEY"].split(",")[-len(kept) :] != kept
    if "PLAYLOG_LOG_SIGNING_KEY" in names and dropped and not drop_log_keys:
        raise click.UsageError(
            "PLAYLOG_LOG_SIGNING_KEY leaves out keys the deployment signed with: keep them after"
            " the new ones (`playlog deployment rotate-log-key` does), or, if they are lost,"
            " pass --drop-log-keys (witnesses then see a new log, and seats' claims change)"
        )
    on_connection(url, lambda conn: deployment.adopt(conn, settings, log, keys, names))
    for name in names:
        old = before.get(name, ("(none)",))[0]
        click.echo(f"{name}: {'unchanged' if old == ours[name] else 'recorded'} {ours[name] or '(none)'}")


def _rewrite(path: Path, name: str, value: str) -> None:
    """``path`` with ``name``'s line set to ``value``, replaced at once (never half written)."""
    old = path.read_text().splitlines()
    lines = [f"{name}={value}" if line.partition("=")[0].strip() == name else line for line in old]
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write("\n".join(lines) + "\n")
    tmp.replace(path)
