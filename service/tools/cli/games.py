"""A game as a file: ``playlog export``, ``playlog verify`` and ``playlog import``."""

from __future__ import annotations

import asyncio
import base64
import sys
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from projections.export.extend import Later
    from projections.export.format import ExportFile

from service.config import Settings
from service.tools.cli.common import friendly, main, on_connection, resolve_database


@main.command("export")
@click.argument("game_id", type=click.UUID)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Default: stdout")
@friendly
def export_game(game_id: uuid.UUID, output: Path | None) -> None:
    """Write GAME_ID as a portable JSON Lines file (docs/export-format.md), its proofs last."""
    import asyncpg

    from projections.export import format as export_format
    from projections.receipts import ReceiptSigner
    from service import deployment
    from service.store import portable
    from service.transparency.log import TransparencyLog
    from service.transparency.proofs import proof_lines

    settings = Settings.from_env()
    url = resolve_database(settings)
    identity = settings.log_identity()
    # The receipts' game keys it reveals derive from the log's keys: the deployment's only.
    on_connection(url, lambda conn: deployment.check_log_keys(conn, settings, identity))

    async def run() -> list[str]:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=2)
        try:
            lines = [line async for line in portable.export_lines(pool, game_id, now=time.time())]
            events = export_format.read(lines[:1]).header.events
            tlog = TransparencyLog(pool, identity, [])
            return lines + await proof_lines(tlog, ReceiptSigner(identity.keys), game_id, events)
        finally:
            await pool.close()

    try:
        lines = asyncio.run(run())
    except export_format.ExportError as exc:
        click.echo(f"playlog: {exc}", err=True)
        sys.exit(1)
    if output is None:
        sys.stdout.write("".join(lines))
    else:
        output.write_text("".join(lines), encoding="utf-8")
        click.echo(f"exported {len(lines) - 1} records to {output}", err=True)


@main.command("verify")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--all", "every_game", is_flag=True, help="Re-execute every game of the database instead.")
@click.option(
    "--verbose", "-v", is_flag=True, help="With --all: a line for every game, not only divergent ones."
)
@click.option(
    "--trust",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A C2SP tlog-policy file, or verifier keys one a line (the log's and witnesses'): check the"
    " file's proofs, and the receipts against the log's keys",
)
@click.option(
    "--receipts",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A seat's receipts (JSON): check the file holds every receipted append as receipted",
)
@click.option(
    "--extend",
    "log_url",
    metavar="URL",
    help="With --trust: fetch the log's cosigned checkpoint now and a consistency proof from the file's",
)
@click.option(
    "--proof",
    "tlog_proof",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="With --trust: a C2SP tlog-proof (playlog proof FILE) that must prove one of the file's heads",
)
@click.option(
    "--accept-level",
    "accept",
    multiple=True,
    type=click.Choice(["replayed"]),
    help="Accept a log without recorded commands, its events taken as facts (an export made before"
    " commands were recorded); otherwise such a file is UNVERIFIED",
)
def verify_file(
    file: Path | None,
    every_game: bool,
    verbose: bool,
    trust: Path | None,
    receipts: Path | None,
    log_url: str | None,
    tlog_proof: Path | None,
    accept: tuple[str, ...],
) -> None:
    """Check an exported game with no server and no database (chain, shuffles, re-execution,
    seeds; with --trust its proofs, a cosigned checkpoint; with --trust and --receipts a seat's
    receipts; with --extend URL that the log at URL still extends the file's checkpoint), or with
    --all every game of the database under the running code. Exit 0: OK; 1: FAILED (something
    contradicts the file); 3: UNVERIFIED (nothing does, but something asked or needed was not
    checked: receipts without --trust, a log only replayed without --accept-level replayed)."""
    if every_game:
        from service.tools.verify_all import verify_all

        url = resolve_database(Settings.from_env())
        found = on_connection(url, lambda conn: verify_all(conn, every=verbose))
        sys.exit(0 if all(v.ok for v in found) else 1)
    if file is None:
        raise click.UsageError("Give FILE, or --all.")
    from projections.export import format as export_format
    from projections.export import verify as export_verify
    from projections.export.proofs import Trust
    from projections.export.receipted import read_receipts
    from projections.notes import NoteError
    from service.store import portable

    try:
        trusted = Trust.parse(trust.read_text().splitlines()) if trust else None
        kept = read_receipts(receipts.read_text()) if receipts else None
    except (NoteError, ValueError) as exc:
        click.echo(f"playlog: {exc}", err=True)
        sys.exit(2)
    if log_url is not None and trusted is None:
        raise click.UsageError("--extend needs --trust: the keys the log's checkpoint now must bear")
    lines = list(portable.open_lines(file))
    try:
        export = export_format.read(lines)
    except export_format.ExportError:
        export = None  # the report names the line
    later = None
    if export is None:
        report = export_verify.verify_lines(lines)  # names the line
    else:
        if trusted is not None and log_url is not None:
            later = _later(log_url.rstrip("/"), export, cosigned=bool(trusted.witness_keys))
        proof = tlog_proof.read_text() if tlog_proof else None
        report = export_verify.verify(
            export, trust=trusted, receipts=kept, later=later, accept=accept, tlog_proof=proof
        )
    for line in report.lines():
        click.echo(line)
    if any(f.check == "extend" for f in report.findings) and export and export.checkpoint and later:
        click.echo(f"the file's checkpoint:\n{export.checkpoint.note}", err=True)
        click.echo(f"the log's checkpoint now ({log_url}):\n{later.checkpoint}", err=True)
    sys.exit(0 if report.ok else 1 if report.findings else 3)


def _later(url: str, export: ExportFile, *, cosigned: bool) -> Later:
    """The log's checkpoint now (the newest a witness cosigned, when witnesses are trusted) and a
    consistency proof to it from the file's checkpoint; exit 2 if the log cannot be asked."""
    import httpx

    from projections.export.extend import Later, file_checkpoint
    from projections.notes import Checkpoint, Note, NoteError

    old = file_checkpoint(export)
    try:
        with httpx.Client(timeout=10.0) as client:
            answer = client.get(f"{url}/log/checkpoint", params={"cosigned": "true"} if cosigned else {})
            if answer.status_code == 404:  # none (cosigned): the check names it
                return Later("", [])
            answer.raise_for_status()
            proof: list[bytes] = []
            try:
                size = Checkpoint.parse_body(Note.parse(answer.text).body).size
            except NoteError:
                size = 0  # the check names it
            if old is not None and old.size < size:
                asked = client.get(f"{url}/log/consistency", params={"from": old.size, "to": size})
                asked.raise_for_status()
                proof = [base64.b64decode(h) for h in asked.json()["proof"]]
    except (httpx.HTTPError, ValueError, KeyError) as exc:
        click.echo(f"playlog: cannot ask the log at {url}: {exc}", err=True)
        sys.exit(2)
    return Later(answer.text, proof)


@main.command("proof")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), help="Default: stdout")
def proof_of(file: Path, output: Path | None) -> None:
    """Write the C2SP tlog-proof of the exported game's last logged head (its checkpoint, with
    the witnesses' cosignatures, and the inclusion proof), to keep or hand on: checked offline by
    ``playlog verify --trust POLICY --proof PROOF FILE`` and by the TypeScript verifier."""
    from projections.export import format as export_format
    from projections.export.tlogproof import last_head
    from service.store import portable

    try:
        made = last_head(export_format.read(portable.open_lines(file)))
    except export_format.ExportError as exc:
        click.echo(f"playlog: {exc}", err=True)
        sys.exit(1)
    if made is None:
        click.echo(
            "playlog: the file carries no proof of a head (exported before the log signed one)", err=True
        )
        sys.exit(1)
    if output is None:
        sys.stdout.write(made.text)
    else:
        output.write_text(made.text, encoding="utf-8")


@main.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@friendly
def import_file(file: Path) -> None:
    """Load an exported game into this database (refused if it does not verify or exists)."""
    from projections.export import format as export_format
    from service.store import portable

    try:
        export = export_format.read(portable.open_lines(file))
    except export_format.ExportError as exc:
        click.echo(f"playlog: {exc}", err=True)
        sys.exit(1)
    url = resolve_database(Settings.from_env())

    try:
        report = on_connection(url, lambda conn: portable.import_game(conn, export))
    except portable.ImportRefused as exc:
        click.echo(f"playlog: import refused ({exc.code}): {exc}", err=True)
        sys.exit(1)
    click.echo(f"imported game {report.game_id}: {report.events} events, chain verified")
