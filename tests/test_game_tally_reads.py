"""A rack read by the camera is checked against the game's count (rules.game_reads): kept as read, but
questioned when its number of tiles is not what the player holds or it puts a copy more in view than the
box holds, and the confirm asks the question again unless the players overrule the count."""

from __future__ import annotations

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_reads import read_doubts
from rules.game_state import CountDoubt, DrawSource, GameError, table_of
from rules.game_tally import call_rummikub, confirm_tally, read_rack, set_tally_rack, undo_last_hand
from rules.game_turns import draw, start_game
from rules.options import find_variant
from rules.tiles import Tile, parse_table, parse_tiles

FINAL = "R10 R11 R12"  # Ann's 33-point meld, with which she went out (the count overruled)
FOURTEEN = "K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B1"


def R(text: str):
    return tuple(parse_tiles(text))


def T(text: str):
    return table_of(parse_table(text))


def counting(players=("Ann", "Ben"), rules="sabra"):
    g = start_game(list(players), find_variant(rules), 0.0)
    extra = {}
    if g.options.flow.draw_then_discard:
        g, extra = draw(g, DrawSource.POOL), {"discard": Tile.parse("K1")}
    g, _, _ = call_rummikub(g, T(FINAL), 1.0, count_checked=True, **extra)
    return g


def read(g, name: str, rack: str):
    """``name`` lays ``rack`` out beside the final table and presses Read."""
    return read_rack(g, name, T(f"{FINAL} | {rack}"))


def test_a_read_of_as_many_tiles_as_the_count_says_is_not_questioned():
    g = read(counting(), "Ben", FOURTEEN)
    assert g.tally.read == (False, True) and read_doubts(g) == {}
    assert confirm_tally(g, 2.0).hands[-1].racks[1] == R(FOURTEEN)


def test_a_rack_turned_to_the_camera_is_read_from_its_rack_rows_with_tiles_laid_flat_beside_it():
    """The camera leaves rack rows out of the table (never judged as melds): Read takes them, as it takes
    tiles laid flat beyond the final table; the final table's own tiles stay out."""
    g = counting()
    rows = T("K1 K2 K3 K4 K5 K6 K7 | K8 K9 K10 K11 K12 K13")
    g = read_rack(g, "Ben", T(f"{FINAL} | B1"), rows)  # one tile fell off the rack onto the table
    assert g.tally.racks[1] == R(FOURTEEN) and g.tally.read[1] and read_doubts(g) == {}
    with pytest.raises(GameError, match="turn it to the camera"):
        read_rack(counting(), "Ben", T(FINAL), ())


def test_a_read_of_other_than_the_tiles_held_is_kept_but_questioned_and_the_confirm_asks():
    g = read(counting(), "Ben", "K1 K2 K3 K4 K5 K6 K7 K8 K9")  # a hand hid five tiles
    assert g.tally.racks[1] == R("K1 K2 K3 K4 K5 K6 K7 K8 K9") and g.tally.read[1]
    assert read_doubts(g) == {"Ben": "the camera read 9 tiles; Ben should hold 14: read again or type the rack"}
    with pytest.raises(CountDoubt) as asked:
        confirm_tally(g, 2.0)
    assert str(asked.value).startswith("the camera's reading is in doubt (Ben: the camera read 9 tiles; Ben "
                                       "should hold 14): read again or type the rack")
    assert asked.value.details == {"ask": {"question": "The camera's reading does not match the count (Ben: the "
                                                       "camera read 9 tiles; Ben should hold 14). Score the rack as "
                                                       "read?", "send": {"count_checked": True}}}
    # the players say the count is wrong: scored as read
    assert confirm_tally(g, 2.0, count_checked=True).hands[-1].scores == (45, -45)
    more = read(g, "Ben", FOURTEEN + " B2")
    assert read_doubts(more) == {"Ben": "the camera read 15 tiles; Ben should hold 14: read again or type the rack"}


def test_read_again_or_typed_the_question_goes():
    g = read(counting(), "Ben", "K1 K2")
    assert read_doubts(read(g, "Ben", FOURTEEN)) == {}
    typed = set_tally_rack(g, "Ben", R("K1 K2"))  # typed: the players looked at it (fewer tiles are theirs to say)
    assert not typed.tally.read[1] and read_doubts(typed) == {}
    assert confirm_tally(typed, 2.0).hands[-1].scores == (3, -3)


def test_a_copy_more_than_the_box_holds_is_questioned_naming_where_the_others_lie():
    g = set_tally_rack(counting(("Ann", "Ben", "Cid")), "Cid", R("R10"))
    # the camera read R11 as R10: a third R10 with the table's and Cid's
    g = read(g, "Ben", "R10 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B1")
    assert read_doubts(g) == {"Ben": "the camera read a third R10 (the standard 106-tile box holds 2: 1 on the table, "
                                     "1 on Ben's rack, 1 on Cid's rack): read again or type the rack"}
    with pytest.raises(CountDoubt, match="a third R10"):
        confirm_tally(g, 2.0)
    # both the count and the box: one question, each part said
    g = read(g, "Ben", "R10 R10")
    assert read_doubts(g)["Ben"] == ("the camera read 2 tiles; Ben should hold 14; the camera read a fourth R10 (the "
                                     "standard 106-tile box holds 2: 1 on the table, 2 on Ben's rack, 1 on Cid's "
                                     "rack): read again or type the rack")


def test_a_read_rack_the_box_cannot_hold_is_kept_to_be_corrected_but_never_scored():
    g = read(counting(), "Ben", "R5 R5 R5")
    assert g.tally.racks[1] == R("R5 R5 R5") and "a third R5" in read_doubts(g)["Ben"]
    with pytest.raises(GameError, match=r"more copies than the box holds: 3 x R5 \(Ben 3\)"):
        confirm_tally(g, 2.0, count_checked=True)


def test_the_final_discard_and_the_discard_piles_count_as_tiles_in_view():
    g = read(counting(rules="american"), "Ben", "K1 K1")  # Ann's final discard was K1
    assert "a third K1 (the standard 106-tile box holds 2: 2 on Ben's rack, 1 face up (discards, trump))" \
        in read_doubts(g)["Ben"]


def test_the_question_is_the_counts_own_so_it_survives_a_restart_and_a_hand_taken_back():
    g = read(counting(), "Ben", "K1 K2")
    again = from_dict(to_dict(g))
    assert read_doubts(again) == read_doubts(g) != {}
    scored = confirm_tally(again, 2.0, count_checked=True)
    assert read_doubts(undo_last_hand(scored, 3.0)) == read_doubts(g)
    assert read_doubts(scored) == {}  # no count open


def test_the_same_tiles_read_for_two_players_are_questioned_under_both_racks():
    """Read pressed for Ben with Ann's rack still laid out: within the box's two copies, so only the
    sameness shows it."""
    g = counting(("Ann", "Ben", "Cy"))
    g = read(g, "Ben", FOURTEEN)
    g = read(g, "Cy", FOURTEEN)
    doubts = read_doubts(g)
    assert doubts["Cy"] == ("it read the very tiles it read for Ben's rack (was Cy's rack in view?): "
                            "read again or type the rack")
    assert doubts["Ben"].startswith("it read the very tiles it read for Cy's rack")
    with pytest.raises(CountDoubt):
        confirm_tally(g, 2.0)
    g = set_tally_rack(g, "Cy", R("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 O1"))  # typed: looked at
    assert read_doubts(g) == {}


def test_typed_racks_that_with_the_table_hold_a_copy_more_than_the_box_are_asked_about():
    """R10 lies on the final table; Ben's and Cid's typed racks each hold one more: three R10s of a box of
    two, a typo (R10 for R1, say) or the table misread. The confirm asks, naming where each lies; the
    players may score it anyway."""
    g = counting(("Ann", "Ben", "Cid"))
    g = set_tally_rack(g, "Ben", R("R10 K5"))
    g = set_tally_rack(g, "Cid", R("R10"))
    with pytest.raises(CountDoubt) as asked:
        confirm_tally(g, 2.0)
    assert str(asked.value) == (
        "more copies than the standard 106-tile box holds (2 of each number tile): 3 x R10 (1 on the table, 1 on "
        "Ben's rack, 1 on Cid's rack): correct the rack typed wrong, or, if the table was misread, confirm anyway")
    assert asked.value.question.startswith("The racks typed, the table and the tiles face up hold more copies")
    assert confirm_tally(g, 2.0, count_checked=True).hands[-1].scores[1:] == (-15, -10)
    fixed = set_tally_rack(g, "Cid", R("R1"))
    assert confirm_tally(fixed, 2.0).hands[-1].scores[1:] == (-15, -1)
