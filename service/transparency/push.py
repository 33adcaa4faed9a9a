"""The log asks its witnesses for cosignatures (C2SP tlog-witness ``add-checkpoint``).

After each sequencer round, for every configured witness (``PLAYLOG_WITNESS_URLS``: submission
prefixes) that has not cosigned the newest checkpoint yet, the sequencer sends ``old <size>``,
the consistency proof from that size, a blank line and the checkpoint. ``<size>`` is what the
witness last cosigned as far as this process knows (0 at start); a 409 answer names the
witness's size, and the request is sent again once from there. The cosignature lines of a 200
answer are kept when they verify under a key of ``PLAYLOG_WITNESS_KEYS`` (lines of other keys
are ignored, as the spec says), and served with the checkpoint.

A witness that refuses (403, 404, 422, or 409 again after the resend: a fork, a rollback or an
unknown log) is asked nothing more until the process restarts; what was sent and what it
answered go into ``log_witness_refusals`` and an error line ``witness_refused``. An unreachable
witness is asked again next round.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from projections.notes import Checkpoint, Note, NoteError, Verifier
from service.runtime.log import get_logger

log = get_logger("playlog.transparency")

SIZE_TYPE = "text/x.tlog.size"


@dataclass
class WitnessPeer:
    url: str  # the submission prefix
    cosigned: int = 0  # the size it last cosigned, as far as this process knows
    note: str = ""  # the checkpoint it cosigned last for this process
    refused: bool = False


@dataclass
class Pusher:
    urls: Sequence[str]
    witnesses: Sequence[Verifier]  # the keys whose cosignatures are kept
    client: httpx.AsyncClient | None = None  # made on first use when None
    timeout: float = 5.0
    peers: list[WitnessPeer] = field(init=False)

    def __post_init__(self) -> None:
        self.peers = [WitnessPeer(url.rstrip("/")) for url in self.urls]

    async def close(self) -> None:
        if self.client is not None:
            await self.client.aclose()
            self.client = None

    async def push(self, conn: Any) -> dict[str, str]:
        """One push of the newest checkpoint to every witness that lacks it: ``url -> outcome``
        (``cosigned``, ``current``, ``refused``, ``unreachable``, or ``empty`` with no checkpoint)."""
        if not self.peers:
            return {}
        row = await conn.fetchrow("SELECT size, note FROM log_checkpoints ORDER BY size DESC LIMIT 1")
        if row is None:
            return {p.url: "empty" for p in self.peers}
        if self.client is None:
            self.client = httpx.AsyncClient(timeout=self.timeout)
        outcomes = {}
        for peer in self.peers:
            if peer.refused:
                outcomes[peer.url] = "refused"
            elif peer.note == row["note"]:
                outcomes[peer.url] = "current"
            else:
                try:
                    outcomes[peer.url] = await self._push(conn, peer, int(row["size"]), str(row["note"]))
                except httpx.HTTPError as exc:
                    log.warning("witness_unreachable", witness=peer.url, error=str(exc))
                    outcomes[peer.url] = "unreachable"
        return outcomes

    async def _push(self, conn: Any, peer: WitnessPeer, size: int, note: str) -> str:
        from service.transparency.log import consistency_proof

        assert self.client is not None
        for attempt in range(2):
            old = peer.cosigned
            proof = await consistency_proof(conn, old, size) if 0 < old < size else []
            lines = "".join(base64.b64encode(p).decode() + "\n" for p in proof)
            request = f"old {old}\n{lines}\n{note}"
            response = await self.client.post(f"{peer.url}/add-checkpoint", content=request.encode())
            if response.status_code == 200:
                kept = await self._keep(conn, note, size, response.text)
                peer.cosigned, peer.note = size, note
                if kept:
                    log.info("witness_cosigned", witness=peer.url, size=size)
                else:  # its key is not in PLAYLOG_WITNESS_KEYS, or its lines do not verify
                    log.warning("witness_cosignature_not_kept", witness=peer.url, size=size)
                return "cosigned"
            named = _named_size(response)
            if attempt == 0 and named is not None and named != old and named <= size:
                peer.cosigned = named  # the witness says where it is: prove from there
                continue
            break
        peer.refused = True
        await conn.execute(
            "INSERT INTO log_witness_refusals (witness, size, request, status, answer)"
            " VALUES ($1, $2, $3, $4, $5)",
            peer.url,
            size,
            request,
            response.status_code,
            response.text[:4096],
        )
        log.error(
            "witness_refused",
            witness=peer.url,
            size=size,
            status=response.status_code,
            answer=response.text[:200],
        )
        return "refused"

    async def _keep(self, conn: Any, note: str, size: int, lines: str) -> int:
        """Keep the answer's cosignatures by known witnesses; the number kept."""
        try:
            answered = Note.parse(note + lines)
        except NoteError:
            log.warning("witness_answer_malformed", size=size)
            return 0
        body = Checkpoint.parse_body(answered.body).body
        kept = 0
        for witness in self.witnesses:
            for name, raw in answered.signatures:
                line = Note(body, ((name, raw),))
                if name == witness.name and raw[:4] == witness.id and line.signed_by(witness):
                    await conn.execute(
                        "INSERT INTO log_cosignatures (size, witness, line) VALUES ($1, $2, $3)"
                        " ON CONFLICT (size, witness) DO NOTHING",
                        size,
                        witness.text,
                        line.text.removeprefix(body + "\n"),  # the signature line alone
                    )
                    kept += 1
                    break
        return kept


def _named_size(response: httpx.Response) -> int | None:
    """The size a 409 answer names (``text/x.tlog.size``), else None."""
    if response.status_code != 409 or not response.headers.get("content-type", "").startswith(SIZE_TYPE):
        return None
    text = response.text.strip()
    return int(text) if text.isdigit() else None
