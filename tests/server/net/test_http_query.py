"""A route's whole-number query parameter (``HttpRequest.query_int``): the default when it
is not given, the number within its bounds, None (a 400 for the route) for anything else."""

from __future__ import annotations

import pytest

from server.net.registry import HttpRequest


def request(**query: str) -> HttpRequest:
    return HttpRequest("GET", "/api/x", {}, dict(query), {})


def test_not_given_is_the_default() -> None:
    assert request().query_int("limit", 20, 1, 100) == 20
    assert request(other="5").query_int("limit", 20, 1, 100) == 20


@pytest.mark.parametrize(("text", "value"), [("1", 1), ("100", 100), ("42", 42), (" 7", 7)])
def test_a_number_within_the_bounds_is_taken(text: str, value: int) -> None:
    assert request(limit=text).query_int("limit", 20, 1, 100) == value


@pytest.mark.parametrize("text", ["0", "101", "-1", "x", "", "1.5", "1e2"])
def test_anything_else_is_none(text: str) -> None:
    assert request(limit=text).query_int("limit", 20, 1, 100) is None
