"""Which requests a lane takes (service/http/fast/lanes.py): only parameters in their plain spelling and
within their schema; anything else is left to Litestar's handler, which answers or refuses it."""

from __future__ import annotations

from typing import Any

import pytest

from service.http.fast.lanes import take_command, take_min_version


def _scope(query: bytes = b"", *headers: tuple[bytes, bytes]) -> Any:
    return {"query_string": query, "headers": [(b"host", b"x"), *headers]}


def test_a_plain_command_request_is_taken_with_the_defaults() -> None:
    assert take_command(_scope()) == {"idempotency_key": None, "expected_version": None, "view": False}


def test_a_command_request_with_every_parameter_is_taken() -> None:
    scope = _scope(b"view=true&expected_version=2147483647", (b"idempotency-key", b"retry-7"))
    assert take_command(scope) == {"idempotency_key": "retry-7", "expected_version": 2**31 - 1, "view": True}


@pytest.mark.parametrize(
    "query",
    [
        b"view=True",
        b"view=1",
        b"view",
        b"expected_version=2147483648",
        b"expected_version=-1",
        b"expected_version=",
        b"expected_version=1e3",
        b"view=true&view=false",
        b"unknown=1",
        b"view=true&",
    ],
)
def test_a_query_litestar_must_judge_is_left_to_it(query: bytes) -> None:
    assert take_command(_scope(query)) is None


@pytest.mark.parametrize("key", [b"", b"with space", b"x" * 201, "\u00e9".encode("latin-1")])
def test_an_idempotency_key_outside_its_schema_is_left_to_litestar(key: bytes) -> None:
    assert take_command(_scope(b"", (b"idempotency-key", key))) is None


def test_a_repeated_idempotency_key_is_left_to_litestar() -> None:
    assert take_command(_scope(b"", (b"idempotency-key", b"a"), (b"idempotency-key", b"b"))) is None


def test_a_view_request_is_taken_without_a_query_or_with_a_plain_min_version_alone() -> None:
    assert take_min_version(_scope()) == {"min_version": 0}
    assert take_min_version(_scope(b"min_version=12")) == {"min_version": 12}
    for query in (
        b"x=1",
        b"min_version=-1",
        b"min_version=",
        b"min_version=2147483648",
        b"min_version=1&x=1",
    ):
        assert take_min_version(_scope(query)) is None, query
