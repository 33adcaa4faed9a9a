"""The transparency log's commands: ``playlog log-keys`` and ``playlog witness``."""

from __future__ import annotations

from pathlib import Path

import click

from service.config import Settings
from service.tools.cli.common import main


@main.command("log-keys")
def log_keys() -> None:
    """Print the transparency log's public keys (signed-note verifier keys), newest first.
    ``playlog deployment rotate-log-key`` signs with a new one."""
    settings = Settings.from_env()
    for verifier in settings.log_identity().verifiers:
        click.echo(verifier.text)


@main.command()
@click.option("--key", "key_file", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--state", "state_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default=None, help="The witness's name, to make a new key when --key does not exist")
@click.option(
    "--log-key",
    "log_keys",
    multiple=True,
    help="A verifier key of a log to witness (its name is the log's origin); also read from STATE/log-keys",
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8090, show_default=True, type=click.IntRange(0, 65535))
@click.option("--prefix", default="", help="The submission prefix's path (default: add-checkpoint at /)")
@click.option("--print-key", is_flag=True, help="Make the key if needed, print its verifier key, exit.")
def witness(
    key_file: Path,
    state_dir: Path,
    name: str | None,
    log_keys: tuple[str, ...],
    host: str,
    port: int,
    prefix: str,
    print_key: bool,
) -> None:
    """Witness transparency logs (C2SP tlog-witness): serve POST PREFIX/add-checkpoint and cosign
    each checkpoint, signed by a known key of its log, that extends the last one cosigned for
    that log; keep a history that does not as evidence in STATE/evidence/."""
    from projections.notes import NoteError, Verifier
    from service.runtime import log as logs
    from service.transparency.witness import WitnessService, app, load_key

    logs.configure(Settings.from_env().log_format)
    pinned = state_dir / "log-keys"
    lines = [*log_keys, *(pinned.read_text().splitlines() if pinned.exists() else [])]
    try:
        signer = load_key(key_file, name)
        keys = [Verifier.parse(line) for line in lines if line.strip() and not line.startswith("#")]
    except NoteError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(f"witness key: {signer.verifier.text}", err=True)
    if print_key:
        return
    if not keys:
        raise click.UsageError("no log to witness: give --log-key (or lines of STATE/log-keys)")
    import uvicorn

    service = WitnessService(signer, state_dir, keys)
    uvicorn.run(app(service, prefix), host=host, port=port, log_level="warning", lifespan="on")
