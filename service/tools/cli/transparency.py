"""The transparency log's commands: ``playlog log-keys`` and ``playlog witness``."""

from __future__ import annotations

import asyncio
import sys
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
@click.option("--log", "log_url", required=True, help="The log's base URL (https://playlog.example)")
@click.option("--key", "key_file", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--state", "state_dir", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default=None, help="The witness's name, to make a new key when --key does not exist")
@click.option(
    "--log-key", "log_key", multiple=True, help="A verifier key of the log (default: pinned on first contact)"
)
@click.option("--interval", default=5.0, show_default=True, type=click.FloatRange(min=0.01))
@click.option("--once", is_flag=True, help="Look once, then exit.")
def witness(
    log_url: str,
    key_file: Path,
    state_dir: Path,
    name: str | None,
    log_key: tuple[str, ...],
    interval: float,
    once: bool,
) -> None:
    """Witness a playlog transparency log: cosign each checkpoint that extends the last one cosigned;
    refuse (exit 3, evidence in STATE/evidence/) a history that does not."""
    import httpx

    from projections.notes import NoteError, Verifier
    from service.runtime import log as logs
    from service.transparency.witness import Refused, Witness, load_key

    logs.configure(Settings.from_env().log_format)
    log = logs.get_logger("playlog.witness")
    try:
        signer = load_key(key_file, name)
        keys = [Verifier.parse(k) for k in log_key] or None
    except NoteError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(f"witness key: {signer.verifier.text}", err=True)
    watcher = Witness(log_url.rstrip("/"), signer, state_dir, keys)

    async def run() -> int:
        async with httpx.AsyncClient(timeout=10.0) as client:
            while True:
                try:
                    outcome = await watcher.round(client)
                    log.info("witness_round", outcome=outcome, log=log_url)
                except Refused as exc:
                    log.error("witness_refused", reason=exc.reason, evidence=str(exc.evidence), log=log_url)
                    click.echo(f"playlog witness: REFUSED: {exc}", err=True)
                    return 3
                except (httpx.HTTPError, ValueError) as exc:
                    log.warning("witness_round_failed", error=str(exc), log=log_url)
                    if once:
                        return 1
                if once:
                    return 0
                await asyncio.sleep(interval)

    sys.exit(asyncio.run(run()))
