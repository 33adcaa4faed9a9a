"""The delayed public view as immutable chunks and a head, for HTTP caches (service/views/chunks.py)."""

from __future__ import annotations

import re
import uuid
from typing import Annotated

from litestar import Controller, Response, get
from litestar.datastructures import State
from litestar.enums import MediaType
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import HeaderParameter, Parameter

from service.http.api.problems import PARAMS, UNAVAILABLE, UNKNOWN_GAME, Codes, problems
from service.views.chunks import (
    HEAD_CACHE,
    IMMUTABLE,
    SpectatorChunk,
    SpectatorHead,
    no_chunk,
    within_this_second,
)

NOT_PUBLISHED: Codes = {404: ["not_published"]}
_SPAN = re.compile(r"([0-9]{1,10})-([0-9]{1,10})")

Span = Annotated[
    str,
    Parameter(
        pattern=r"^[0-9]{1,10}-[0-9]{1,10}$",
        description="The chunk's first and last numbers (spectators' numbering), e.g. 1-16",
    ),
]
IfNoneMatch = Annotated[
    str, HeaderParameter(name="If-None-Match", required=False, description="The head's ETag last read")
]


class SpectatorChunksController(Controller):
    path = "/games/{game_id:uuid}/spectate"
    tags = ["spectate"]

    @get(
        "/head",
        operation_id="getSpectatorHead",
        summary="What of the delayed public view is released: full chunks, the tail, the chain's head",
        description=(
            "Cacheable for a second (`Cache-Control: public, max-age=1`) with an `ETag`; 304 when"
            " `If-None-Match` names it. A private game, an unknown one and a game nothing is"
            " published of yet answer alike: 404 not_published (`Cache-Control: public, max-age=1`)."
        ),
        responses={
            200: ResponseSpec(data_container=SpectatorHead, description="The head", generate_examples=False),
            304: ResponseSpec(data_container=None, description="Unchanged since the ETag sent"),
            **problems(PARAMS, UNKNOWN_GAME, NOT_PUBLISHED, UNAVAILABLE),
        },
    )
    async def head(
        self, game_id: uuid.UUID, state: State, if_none_match: IfNoneMatch = ""
    ) -> Response[bytes]:
        published = await state.chunks.head(game_id)
        headers = {"Cache-Control": HEAD_CACHE, "ETag": published.etag, **within_this_second()}
        if published.etag in (tag.strip() for tag in if_none_match.split(",")):
            return Response(b"", status_code=304, headers=headers)
        return Response(published.body, media_type=MediaType.JSON, headers=headers)

    @get(
        "/chunks/{span:str}",
        operation_id="getSpectatorChunk",
        summary="One full, released chunk of the delayed public view (immutable)",
        description=(
            "`span` is `start-end`, a range the head names (chunk k: k * chunk_events + 1 to"
            " (k + 1) * chunk_events). It exists once every event in it is released and never"
            " changes: `Cache-Control: public, max-age=31536000, immutable`. Before that, or for any"
            " other range, a private or unknown game: 404 not_published (`Cache-Control: public, max-age=1`)."
        ),
        responses={
            200: ResponseSpec(
                data_container=SpectatorChunk, description="The chunk", generate_examples=False
            ),
            **problems(PARAMS, {400: ["invalid_span"]}, UNKNOWN_GAME, NOT_PUBLISHED, UNAVAILABLE),
        },
    )
    async def chunk(self, game_id: uuid.UUID, span: Span, state: State) -> Response[bytes]:
        matched = _SPAN.fullmatch(span)
        if matched is None:
            raise no_chunk()
        body = await state.chunks.chunk(game_id, int(matched[1]), int(matched[2]))
        return Response(body, media_type=MediaType.JSON, headers={"Cache-Control": IMMUTABLE})
