"""``playlog verify-trace``: check a seat's match trace against the game's export
(projections/traces.py): the export verified first, then the trace the export gives the seat
computed and compared line by line."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from service.tools.cli.common import main


@main.command("verify-trace")
@click.argument("export_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("trace_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def verify_trace(export_file: Path, trace_file: Path) -> None:
    """Check that TRACE_FILE is exactly what EXPORT_FILE's game showed the trace's seat: every
    event in its numbering, every observation and every move list (exit 1 naming the first line
    that differs; 2 if a file cannot be read)."""
    from projections import traces
    from projections.export import format as export_format
    from projections.export import verify as export_verify
    from projections.export.opened import opened
    from service.store import portable

    try:
        kept = [json.loads(line) for line in trace_file.read_text().splitlines() if line.strip()]
        header = kept[0]
        if header.get("trace") != traces.FORMAT or not isinstance(header.get("seat"), int):
            raise ValueError(f"not a {traces.FORMAT} trace")
        export = export_format.read(list(portable.open_lines(export_file)))
    except (ValueError, IndexError, export_format.ExportError) as exc:
        click.echo(f"playlog: {exc}", err=True)
        sys.exit(2)
    report = export_verify.verify(export)
    if not report.ok:
        for line in report.lines():
            click.echo(line)
        click.echo("the export does not verify: the trace cannot be checked against it")
        sys.exit(1)
    events = opened(export, seals=True).events  # as the service's event lists show them
    computed = traces.from_export_events(export.header.game_id, events, header["seat"])
    difference = traces.first_difference(kept, computed)
    if difference is not None:
        click.echo(f"trace: {difference}")
        sys.exit(1)
    click.echo(f"trace: ok ({len(kept) - 1} steps of seat {header['seat']}, as the export shows them)")
