"""Game codes and the SH1 deal (RULES.md, "The deal", "Game codes")."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.engine import Board, CodeError, GameCode, card_name, format_code, parse_code, shuffle
from server.engine.codes import MAX_DEAL
from tests import ROOT

VECTORS = json.loads((ROOT / "tests" / "data" / "deal_vectors.json").read_text())


def test_there_are_at_least_twenty_vectors_covering_every_cell_count() -> None:
    assert len(VECTORS) >= 20
    assert {v["code"][4:6] for v in VECTORS} == {"C4", "C2", "C1"}


@pytest.mark.parametrize("vector", VECTORS, ids=[v["code"] for v in VECTORS])
def test_code_gives_the_documented_layout(vector: dict[str, object]) -> None:
    board = Board.from_code(str(vector["code"]))
    expected = {k: vector[k] for k in ("code", "cells", "columns", "foundations")}
    assert board.to_json() == expected
    assert [card_name(c) for c in shuffle(int(str(vector["deal"])))] == vector["order"]
    assert parse_code(str(vector["code"])).deal == vector["deal"]


def test_documented_example_is_deal_314() -> None:
    assert parse_code("SH1-C4-AAAAAJ2") == GameCode(314, 4)
    assert format_code(314, 4) == "SH1-C4-AAAAAJ2"
    assert format_code(0, 1) == "SH1-C1-AAAAAAA"
    assert format_code(MAX_DEAL, 2) == "SH1-C2-7777777"
    assert MAX_DEAL == 2**35 - 1


def test_input_is_trimmed_and_upper_cased() -> None:
    assert parse_code("  sh1-c2-aaaaaj2\n") == GameCode(314, 2)


@pytest.mark.parametrize(
    ("text", "reason", "words"),
    [
        ("SH2-C4-AAAAAJ2", "unknown_version", "SH2"),
        ("XX1-C4-AAAAAJ2", "unknown_version", "XX1"),
        ("SH1-C3-AAAAAJ2", "bad_cells", "C3"),
        ("SH1-C8-AAAAAJ2", "bad_cells", "C8"),
        ("SH1-4-AAAAAJ2", "bad_cells", "'4'"),
        ("SH1-C4-AAAAJ2", "bad_length", "6 characters"),
        ("SH1-C4-AAAAAAJ2", "bad_length", "8 characters"),
        ("SH1-C4-AAAAA12", "bad_character", "'1' at position 6"),
        ("SH1-C4-AAAA8AA", "bad_character", "'8' at position 5"),
        ("SH1-C4-AAAAA?A", "bad_character", "'?'"),
        ("SH1C4AAAAAJ2", "malformed", "three parts"),
        ("", "malformed", "three parts"),
        ("SH1-C4-AAA-AJ2", "malformed", "three parts"),
    ],
)
def test_bad_codes_are_refused_naming_the_fault(text: str, reason: str, words: str) -> None:
    with pytest.raises(CodeError) as info:
        parse_code(text)
    assert info.value.reason == reason
    assert words in str(info.value)


def test_out_of_range_numbers_and_cells_are_refused() -> None:
    with pytest.raises(CodeError):
        format_code(2**35, 4)
    with pytest.raises(CodeError):
        format_code(-1, 4)
    with pytest.raises(CodeError):
        format_code(5, 3)


@given(st.integers(0, MAX_DEAL), st.sampled_from([4, 2, 1]))
def test_round_trip_number_code_number(deal: int, cells: int) -> None:
    code = format_code(deal, cells)
    assert parse_code(code) == GameCode(deal, cells)
    assert format_code(parse_code(code).deal, cells) == code


@given(st.integers(0, MAX_DEAL))
def test_every_deal_is_a_permutation_of_the_deck(deal: int) -> None:
    assert sorted(shuffle(deal)) == list(range(52))


@given(st.integers(0, MAX_DEAL))
def test_layouts_for_each_cell_count(deal: int) -> None:
    order = shuffle(deal)
    four, two, one = (Board.deal(deal, n) for n in (4, 2, 1))
    for board in (four, two, one):
        assert board.foundations == [0, 0, 0, 0]
        for k in range(50):  # five rounds, left to right, bottom first
            assert board.columns[k % 10][k // 10] == order[k]
    # 4 cells: cards 51 and 52 in cells 1 and 2, cells 3 and 4 free.
    assert four.cells == [order[50], order[51], None, None]
    assert all(len(col) == 5 for col in four.columns)
    # 2 cells: both hold cards 51 and 52, no cell free.
    assert two.cells == [order[50], order[51]]
    assert two.free_cells() == 0
    # 1 cell: card 51 in the cell, card 52 on top of column 2, which holds 6 cards.
    assert one.cells == [order[50]]
    assert one.columns[1] == [*four.columns[1], order[51]]
    assert [len(c) for c in one.columns] == [5, 6, 5, 5, 5, 5, 5, 5, 5, 5]


def test_shuffle_does_not_use_pythons_random() -> None:
    source = (ROOT / "server" / "engine" / "codes.py").read_text()
    assert "import random" not in source and "from random" not in source
    assert shuffle(314) != shuffle(315)
