"""The table a camera finds on its return, checked against what the game knows (rules.game_found): a table
that disagrees with the tiles the players said were placed, with the table the game knew, the discards
or the box is asked about, never taken by itself."""

from __future__ import annotations

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_found import FoundDoubt, check_found, table_found
from rules.game_state import DrawSource
from rules.game_turns import draw, end_turn, end_turn_unseen, start_game
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import R, T


def sabra():
    return start_game(["Ann", "Ben", "Cid"], find_variant("sabra"), 0.0)


def american():
    """Al, Bo and Cy, trump B4 face up: Al discards K3, Bo R4 (cameras saw both turns), then the camera
    goes out and Cy says he placed K10 K11 K12 and discarded O2: Al's turn waits for a table."""
    g = start_game(["Al", "Bo", "Cy"], find_variant("american"), 0.0, trump=Tile.parse("B4"))
    for t, discard in ((1.0, "K3"), (2.0, "R4")):
        g = draw(g, DrawSource.POOL)
        g, _, v = end_turn(g, (), t, discard=Tile.parse(discard))
        assert v.legal
    g = draw(g, DrawSource.POOL)
    g, _ = end_turn_unseen(g, 3.0, 3, tiles=R("K10 K11 K12"), discard=Tile.parse("O2"))
    return g


def test_the_game_counts_the_tiles_said_placed_until_a_camera_finds_the_table():
    g, _ = end_turn_unseen(sabra(), 1.0, 3)
    assert g.turn.unseen and g.turn.said == 3 and g.turn.said_tiles == ()
    g, _, _ = end_turn(g, (), 2.0)  # Ben: "Drew a tile"
    assert g.turn.said == 3
    g, _ = end_turn_unseen(g, 3.0, 4, tiles=R("K1 K2 K3 K4"), count_checked=True)
    assert g.turn.said == 7 and g.turn.said_tiles == R("K1 K2 K3 K4")
    assert from_dict(to_dict(g)).turn == g.turn  # stored with the game: a restart asks the same
    g, _ = table_found(g, T("R10 R11 R12 | K1 K2 K3 K4"), 4.0)  # 7 tiles, as said: taken by itself
    assert not g.turn.unseen and g.turn.said == 0 and g.turn.said_tiles == ()


def test_a_table_found_with_more_tiles_than_said_is_asked_about_and_logged_when_taken():
    g, _ = end_turn_unseen(sabra(), 1.0, 3)  # Ann "placed 3"
    found = T("R10 R11 R12 | K5 K6 K7 K8 | O1 O2 O3 O4 O5 O6 O7 O8 O9 O10")  # 17 tiles
    check = check_found(g, found)
    assert check.player == "Ben" and len(check.found) == 17 and check.said == 3
    assert check.doubts == ("the players said 3 tiles were placed while no camera saw (tiles Ben laid this turn "
                            "before it came back would be among them)",)
    with pytest.raises(FoundDoubt) as refused:
        table_found(g, found, 5.0)
    assert refused.value.check == check
    assert str(refused.value).startswith("The camera is back and sees 17 tiles beyond the table the game knew, "
                                         "but the players said 3 tiles were placed while no camera saw")
    assert "Take the table it sees as where Ben's turn started?" in str(refused.value)
    g2, rec = table_found(g, found, 5.0, confirmed=True)
    assert len(g2.turn.found) == 17 and not g2.turn.unseen
    assert [(p.code, p.message) for p in rec.verdict.problems] == [
        ("table_found_doubted", "the players took it, but " + check.doubts[0])]


def test_fewer_tiles_tiles_named_and_tiles_of_the_known_table_missing_are_asked_about():
    g, _, _ = end_turn(sabra(), T("R10 R11 R12"), 1.0)  # Ann's meld, seen
    g, _ = end_turn_unseen(g, 2.0, 3, tiles=R("B7 B8 B9"), count_checked=True)
    doubts = check_found(g, T("R10 R11 | B7 B8"))
    assert doubts.doubts == (
        "the players said 3 tiles were placed while no camera saw",
        "R12 is missing from it, though on the table the game knew (tiles never leave the table)",
        "B9 is not on it, though said to be placed",
    )
    assert check_found(g, T("R10 R11 R12 | B7 B8 B9")).doubts == ()


def test_discards_the_face_up_trump_and_more_copies_than_the_box_are_asked_about():
    """The defect: back during a turn, the camera took K3 and R4, discarded this hand, as on the table."""
    g = american()
    assert g.current.name == "Al" and g.turn.said == 3 and g.turn.said_tiles == R("K10 K11 K12")
    doubts = check_found(g, T("K10 K11 K12 | K3 K4 K5 | R4 R5 R6 | B4 B5 B6")).doubts
    assert doubts == (
        "the players said 3 tiles were placed while no camera saw (tiles Al laid this turn before it came back "
        "would be among them)",
        "K3 R4 were discarded this hand (are the discards in view?)",
        "B4 is the face-up trump (is it in view?)",
    )
    assert check_found(g, T("K10 K11 K12")).doubts == ()
    crowded = check_found(g, T("K10 K11 K12 | R1 R1 R1")).doubts[-1]
    assert crowded.startswith("it holds more copies than the box holds") and "R1" in crowded


def test_a_game_saved_before_the_count_was_kept_asks_nothing_of_it():
    g, _ = end_turn_unseen(sabra(), 1.0, 3)
    doc = to_dict(g)
    del doc["turn"]["said"], doc["turn"]["said_tiles"]
    old = from_dict(doc)
    assert old.turn.unseen and old.turn.said is None
    assert check_found(old, T("R10 R11 R12 | K1 K2 K3")).doubts == ()  # how many were said is not known
    g2, _ = end_turn_unseen(old, 2.0, 2, count_checked=True)
    assert g2.turn.said is None
    seen = to_dict(sabra())
    del seen["turn"]["said"], seen["turn"]["said_tiles"]
    assert from_dict(seen).turn.said == 0  # a turn whose table was known: nothing said since


def test_a_turn_that_waits_for_nothing_has_no_check():
    assert check_found(sabra(), T("R10 R11 R12")) is None
