"""A finished game's export (JSON Lines), each line read into the generated model of its record.

The document's export answer is ``application/x-ndjson`` with each line an ``ExportLine`` (named
by ``x-playlog-item-schema``): a union on ``record`` of ``ExportHeader``, ``ExportEvent``,
``ExportShuffle``, ``ExportPersonal``, ``ExportAccess`` and, last, the proofs
(``ExportReceiptKeys``, ``ExportProof``, ``ExportCheckpoint``). The generator reads the body as
bytes (its configuration names the media type, which it does not know); this reads each line into
its model. It prints one
line per record (``record`` and, for an event, its seq and type):

    python examples/python/export.py http://127.0.0.1:8000 GAME_ID TOKEN
"""

from __future__ import annotations

import argparse
import json
import random
import uuid
from collections.abc import Iterator

from drops import dropping, retried
from playlog_client import AuthenticatedClient
from playlog_client.api.audit import export_game
from playlog_client.models import (
    ExportAccess,
    ExportCheckpoint,
    ExportEvent,
    ExportHeader,
    ExportPersonal,
    ExportProof,
    ExportReceiptKeys,
    ExportShuffle,
)

ExportLine = (
    ExportHeader
    | ExportEvent
    | ExportShuffle
    | ExportPersonal
    | ExportAccess
    | ExportReceiptKeys
    | ExportProof
    | ExportCheckpoint
)
RECORDS: dict[str, type[ExportLine]] = {
    "header": ExportHeader,
    "event": ExportEvent,
    "shuffle": ExportShuffle,
    "personal": ExportPersonal,
    "access": ExportAccess,
    "receipt_keys": ExportReceiptKeys,
    "proof": ExportProof,
    "checkpoint": ExportCheckpoint,
}


def lines(body: bytes) -> Iterator[ExportLine]:
    for line in body.decode().splitlines():
        data = json.loads(line)
        yield RECORDS[data["record"]].from_dict(data)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("url")
    parser.add_argument("game_id", type=uuid.UUID)
    parser.add_argument("token", help="a token of the game (anyone's, once a public game is over)")
    parser.add_argument("--drop", type=float, default=0.0, help="share of answers to drop (drops.py)")
    args = parser.parse_args(argv)
    httpx_args = dropping(args.drop, random.Random())
    with AuthenticatedClient(base_url=args.url, token=args.token, httpx_args=httpx_args) as client:
        answer = retried(lambda: export_game.sync_detailed(args.game_id, client=client), "export")
    if answer.status_code != 200:
        raise SystemExit(f"export refused: {answer.status_code} {answer.content!r}")
    for line in lines(answer.content):
        if isinstance(line, ExportHeader):
            print("header", line.events, line.status.value, flush=True)
        elif isinstance(line, ExportEvent):
            print("event", line.seq, line.type_, flush=True)
        elif isinstance(line, ExportShuffle | ExportProof):
            print(line.record.value, line.seq, flush=True)
        elif isinstance(line, ExportAccess):
            print(line.record.value, line.n, flush=True)
        elif isinstance(line, ExportPersonal):  # a seal's text, or what it shows once erased
            print(line.record.value, line.field.value, flush=True)
        else:  # the proofs' keys and checkpoint (docs/export-format.md, "Proofs")
            print(line.record.value, "-", flush=True)


if __name__ == "__main__":
    main()
