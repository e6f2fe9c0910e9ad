"""Tile notation and the two boxes (rules/tiles.py); cases from 004_* 'Contents'."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.tiles import (
    ALL_FACES, JOKER, STANDARD, XP, Color, NotationError, RuleError, Tile,
    format_table, format_tiles, parse_table, parse_tiles,
)


@pytest.mark.parametrize(
    "code, colour, number",
    [("R5", Color.RED, 5), ("k13", Color.BLACK, 13), ("B1", Color.BLUE, 1),
     ("O7", Color.ORANGE, 7), ("y7", Color.ORANGE, 7), (" r10 ", Color.RED, 10)],
)
def test_parse_codes(code, colour, number):
    assert Tile.parse(code) == Tile(colour, number)


@pytest.mark.parametrize("code", ["j", "J"])
def test_parse_joker(code):
    assert Tile.parse(code) is JOKER or Tile.parse(code) == JOKER
    assert Tile.parse(code).is_joker


@pytest.mark.parametrize("bad", ["R14", "X3", "R0", "", "R", "5", "JJ", "R5R6", "K-1"])
def test_bad_codes_name_the_token(bad):
    with pytest.raises(NotationError) as err:
        Tile.parse(bad)
    assert repr(bad) in str(err.value)


def test_parse_tiles_spaces_and_commas():
    assert parse_tiles("R5 R6,J") == [Tile(Color.RED, 5), Tile(Color.RED, 6), JOKER]
    assert parse_tiles(["K1", "j"]) == [Tile(Color.BLACK, 1), JOKER]


def test_parse_tiles_takes_bars_and_names_every_code_that_is_no_tile():
    assert parse_tiles("R5 R6 | J,K1") == [Tile(Color.RED, 5), Tile(Color.RED, 6), JOKER, Tile(Color.BLACK, 1)]
    with pytest.raises(ValueError, match=r"^'x9' is not a tile$"):
        parse_tiles("R5 x9 R6")
    with pytest.raises(ValueError, match=r"^'x9', 'b14' and 'R0' are not tiles$"):
        parse_tiles("R5 x9 b14 R6 R0")


def test_parse_table_separators():
    table = parse_table("R1 R2 R3, K5 B5 O5")
    assert format_table(table) == "R1 R2 R3 | K5 B5 O5"
    assert parse_table("R1,R2,R3 | K5 B5 O5") == table
    assert parse_table("") == []


def test_boxes_hold_106_and_160_tiles():
    # 004_*: "106 tiles (8 sets of tiles 1-13 in four colours, and 2 joker tiles)"; XP 160 with 4 jokers
    assert STANDARD.size == len(STANDARD.all_tiles()) == 106
    assert XP.size == len(XP.all_tiles()) == 160
    assert STANDARD.all_tiles().count(JOKER) == 2 and XP.all_tiles().count(JOKER) == 4


def test_check_counts_names_the_extra_copies():
    with pytest.raises(RuleError, match="3 x R5"):
        STANDARD.check_counts(parse_tiles("R5 R5 R5"))
    XP.check_counts(parse_tiles("R5 R5 R5 J J J"))


def test_index_round_trip():
    assert [Tile.from_index(t.index) for t in ALL_FACES] == list(ALL_FACES)
    with pytest.raises(NotationError):
        Tile.from_index(53)


faces = st.sampled_from(ALL_FACES)


@given(st.lists(faces, max_size=20))
def test_format_parse_round_trip(tiles):
    assert parse_tiles(format_tiles(tiles)) == tiles


@given(st.lists(st.lists(faces, min_size=1, max_size=6), max_size=6))
def test_table_round_trip(table):
    assert parse_table(format_table(table)) == table


@given(faces)
def test_lower_case_parses_the_same(tile):
    assert Tile.parse(tile.code.lower()) == tile
