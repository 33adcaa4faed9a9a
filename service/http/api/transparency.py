"""The transparency log over HTTP (docs/transparency-log.md): its keys, its checkpoint, its tiles
and entry bundles (C2SP tlog-tiles), consistency proofs, and a game's inclusion proofs. Witnesses
are not served here: the sequencer pushes checkpoints to them (service/transparency/push.py).

Everything but a game's proofs is public and cacheable: a full tile never changes, the keys
rarely, the checkpoint every few seconds.
"""

from __future__ import annotations

import base64
import uuid
from typing import Annotated

import msgspec
from litestar import Controller, MediaType, Response
from litestar.datastructures import State
from litestar.params import QueryParameter

from projections.merkle import leaf_data
from service.app.errors import ServiceError
from service.http.api import guards
from service.http.api.problems import BEARER, PARAMS, UNAVAILABLE, UNKNOWN_GAME, Codes, problems
from service.http.fast.routes import get
from service.transparency.log import TILE_WIDTH, TransparencyLog, parse_tile_path

IMMUTABLE = "public, max-age=31536000, immutable"
NO_CHECKPOINT: Codes = {404: ["no_checkpoint"]}


def log_of(state: State) -> TransparencyLog:
    tlog: TransparencyLog = state.transparency
    return tlog


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


class LogPublicKeys(msgspec.Struct, frozen=True):
    origin: Annotated[str, msgspec.Meta(description="The log's name: the first line of its checkpoints")]
    log_keys: Annotated[
        list[str], msgspec.Meta(description="Signed-note verifier keys of the log, newest first")
    ]
    witness_keys: Annotated[
        list[str], msgspec.Meta(description="Verifier keys of the witnesses whose cosignatures it keeps")
    ]


class Consistency(msgspec.Struct, frozen=True):
    from_size: int = msgspec.field(name="from")
    to_size: int = msgspec.field(name="to")
    proof: Annotated[list[str], msgspec.Meta(description="RFC 9162 consistency proof, base64 hashes")]


class LeafProof(msgspec.Struct, frozen=True):
    index: Annotated[int, msgspec.Meta(description="The leaf's index in the log")]
    seq: Annotated[int, msgspec.Meta(description="The game's seq whose head the leaf commits to")]
    head: Annotated[str, msgspec.Meta(description="The game's head hash at that seq, hex")]
    leaf_data: Annotated[
        str,
        msgspec.Meta(
            description="The leaf's data, base64: 'playlog/head/v2' || tag || seq || head"
            " (or, logged before the tags, 'playlog/head/v1' || game id || seq || head)"
        ),
    ]
    proof: Annotated[
        list[str], msgspec.Meta(description="RFC 9162 inclusion proof, base64 hashes, from the leaf up")
    ]
    tag: Annotated[
        str | None,
        msgspec.Meta(description="The game's tag in the log's entries, hex (null for a version-1 leaf)"),
    ] = None


class LogProof(msgspec.Struct, frozen=True):
    size: Annotated[int, msgspec.Meta(description="The tree size of the checkpoint; 0 before the first")]
    checkpoint: Annotated[
        str | None,
        msgspec.Meta(
            description="The log's checkpoint of that size with the cosignatures it has (a signed note)"
        ),
    ]
    leaves: list[LeafProof]


class TransparencyController(Controller):
    path = "/log"
    tags = ["transparency"]

    @get(
        "/keys",
        operation_id="logKeys",
        summary="The log's public keys (old ones stay) and the witnesses it accepts",
        responses=problems(UNAVAILABLE),
    )
    async def keys(self, state: State) -> Response[LogPublicKeys]:
        tlog = log_of(state)
        body = LogPublicKeys(
            origin=tlog.identity.origin,
            log_keys=[v.text for v in await tlog.published_keys()],
            witness_keys=[w.text for w in tlog.witnesses.values()],
        )
        return Response(body, headers={"Cache-Control": "public, max-age=300"})

    @get(
        "/checkpoint",
        operation_id="logCheckpoint",
        summary="The newest signed checkpoint, with the witnesses' cosignatures (C2SP signed note)",
        media_type=MediaType.TEXT,
        responses=problems(UNAVAILABLE, PARAMS, {400: ["invalid_cosigned"]}, NO_CHECKPOINT),
    )
    async def checkpoint(
        self,
        state: State,
        cosigned: Annotated[
            bool,
            QueryParameter(
                name="cosigned", required=False, description="The newest checkpoint a witness cosigned"
            ),
        ] = False,
    ) -> Response[str]:
        text = await log_of(state).checkpoint(cosigned=cosigned)
        if text is None:
            raise ServiceError(404, "no_checkpoint", "The log has no checkpoint yet (or none cosigned).")
        return Response(text, media_type=MediaType.TEXT, headers={"Cache-Control": "public, max-age=1"})

    @get(
        "/tile/{tile:path}",
        operation_id="logTile",
        summary="A tile of the log's hashes (<L>/<N>[.p/<W>]) or an entry bundle (entries/<N>[.p/<W>]),"
        " C2SP tlog-tiles",
        media_type="application/octet-stream",
        responses=problems(UNAVAILABLE, {404: ["no_such_tile"]}),
    )
    async def tile(self, tile: str, state: State) -> Response[bytes]:
        bundle = tile.strip("/").startswith("entries/")
        parsed = parse_tile_path("0/" + tile.strip("/").removeprefix("entries/") if bundle else tile)
        if parsed is None:
            raise ServiceError(404, "no_such_tile", "No such tile or entry bundle.")
        level, index, width = parsed
        tlog = log_of(state)
        body = await (tlog.entries(index, width) if bundle else tlog.tile(level, index, width))
        cache = IMMUTABLE if width == TILE_WIDTH else "public, max-age=3600"
        return Response(body, media_type="application/octet-stream", headers={"Cache-Control": cache})

    @get(
        "/consistency",
        operation_id="logConsistency",
        summary="A consistency proof between two tree sizes (RFC 9162 2.1.4)",
        responses=problems(
            UNAVAILABLE, PARAMS, {400: ["invalid_from_size", "invalid_to_size"], 422: ["bad_tree_sizes"]}
        ),
    )
    async def consistency(
        self,
        state: State,
        from_size: Annotated[int, QueryParameter(name="from", ge=1, le=2**53)],
        to_size: Annotated[int, QueryParameter(name="to", ge=1, le=2**53)],
    ) -> Response[Consistency]:
        proof = await log_of(state).consistency(from_size, to_size)
        body = Consistency(from_size, to_size, [b64(p) for p in proof])
        return Response(body, headers={"Cache-Control": IMMUTABLE})


class GameLogProofController(Controller):
    path = "/games/{game_id:uuid}"
    tags = ["transparency"]

    @get(
        "/log-proof",
        operation_id="gameLogProof",
        summary="The game's heads in the log, with inclusion proofs against a checkpoint",
        guards=[guards.log_reader],
        responses=problems(
            UNAVAILABLE,
            UNKNOWN_GAME,
            PARAMS,
            BEARER,
            {
                400: ["invalid_size"],
                401: ["moderator_only"],
                403: ["moderator_only", "log_proof_hidden"],
                404: ["not_found", "no_such_checkpoint"],
            },
        ),
    )
    async def log_proof(
        self,
        game_id: uuid.UUID,
        state: State,
        size: Annotated[
            int | None,
            QueryParameter(name="size", required=False, ge=1, le=2**53, description="Default: the newest"),
        ] = None,
    ) -> LogProof:
        tlog = log_of(state)
        size = size or await tlog.size()
        if not size:  # nothing signed yet: no proof to give
            return LogProof(size=0, checkpoint=None, leaves=[])
        note = await tlog.cosigned(size)
        leaves = [
            LeafProof(
                index=i.index,
                seq=i.seq,
                head=i.head.hex(),
                leaf_data=b64(leaf_data(game_id, i.seq, i.head, i.tag)),
                proof=[b64(p) for p in i.proof],
                tag=None if i.tag is None else i.tag.hex(),
            )
            for i in await tlog.inclusions(game_id, size)
        ]
        return LogProof(size=size, checkpoint=note, leaves=leaves)
