"""Two defects of playing without a camera and of the last turn's line (rules.game_*):

A. the last turn of the American family names the tile it discarded, and a game saved before it did still loads;
B. with no camera the table never changes, so the players say what a Sabra turn placed: the count leaves
   the rack, the player has melded, and the turn is logged as not checked;
C. the same in the American family, where the draw is pressed already and the turn ends with a discard.
"""

from __future__ import annotations

import re

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import start_hand
from rules.game_state import Action, DrawSource, GameError, Status, StillHolds, Step
from rules.game_tally import call_rummikub, confirm_tally
from rules.game_turns import draw, end_turn, end_turn_unseen, set_rack, start_game, time_out
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import R, T
from test_game_round2 import holding


def american(rules: str = "american"):
    """Al and Bo; Al has drawn from the pool (the International starter holds 15 and does not draw)."""
    g = start_game(["Al", "Bo"], find_variant(rules), 0.0, trump=Tile.parse("B4"))
    return draw(g, DrawSource.POOL) if g.turn.step.value == "draw" else g


# --- A. the discarded tile is named -------------------------------------------------------

@pytest.mark.parametrize("rules", ["american", "international", "israeli"])
def test_the_last_turn_keeps_the_tile_it_discarded(rules):
    g, rec, _ = end_turn(american(rules), (), 1.0, discard=Tile.parse("R7"))
    assert rec.action is Action.DISCARD
    assert g.last.action == "discard" and g.last.discard == Tile.parse("R7")
    assert from_dict(to_dict(g)).last == g.last
    g, _, _ = end_turn(draw(g, DrawSource.POOL), T("K10 K11 K12 K13 | B13 O13 R13"), 2.0,
                       discard=Tile.parse("J"))
    assert g.last.player == "Bo" and g.last.discard == Tile.parse("J") and len(g.last.verdict.placed) == 7


def test_only_a_discard_is_named():
    """Sabra has no discards (one sent along is not kept); an American time-out ends with the discard."""
    g, _, _ = end_turn(start_game(["Ann", "Ben"], find_variant("sabra"), 0.0), (), 1.0, discard=Tile.parse("R7"))
    assert g.last.action == "draw" and g.last.discard is None
    g = start_game(["Al", "Bo"], find_variant("american", turn_time_limit=30), 0.0)
    g, _ = time_out(draw(g, DrawSource.POOL), (), 31.0)
    g, _, _ = end_turn(g, (), 40.0, discard=Tile.parse("R7"))
    assert g.last.action == "timeout" and g.last.discard == Tile.parse("R7")


def test_a_game_saved_before_the_last_turn_named_its_discard_still_loads():
    g, _, _ = end_turn(american(), (), 1.0, discard=Tile.parse("R7"))
    doc = to_dict(g)
    assert doc["last"]["discard"] == "R7"
    del doc["last"]["discard"]  # as an older version saved it
    old = from_dict(doc)
    assert old.last.discard is None and old.last.action == "discard" and old.seats == g.seats


# --- B. Sabra: the players say what a turn no camera saw placed ----------------------------

def sabra():
    return start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)


def test_a_turn_that_placed_tiles_leaves_them_off_the_rack_and_says_it_was_not_checked():
    g = sabra()
    pool = g.pool
    g, rec = end_turn_unseen(g, 5.0, 3)
    ann = g.seats[0]
    assert ann.rack_count == 11 and ann.has_melded and g.pool == pool  # no tile drawn
    assert g.current.name == "Ben" and g.turn.number == 2 and g.turn.table_before == ()
    assert rec.action is Action.UNCHECKED and rec.unchecked == 3 and rec.player == "Ann"
    assert rec.table_before == rec.table_after == () and rec.verdict.placed == () and rec.ended_at == 5.0
    assert g.last.action == "unchecked" and g.last.unchecked == 3
    assert g.last.note == ("placed 3 tiles (not checked: no camera saw the table; a count cannot show a first "
                           "meld's 30 points)")
    assert from_dict(to_dict(g)) == g
    # Ben drew: End turn on the unchanged table is still a draw
    g, rec, _ = end_turn(g, (), 6.0)
    assert rec.action is Action.DRAW and g.seats[1].rack_count == 15 and not g.seats[1].has_melded


def test_a_game_saved_before_unchecked_turns_still_loads():
    g, _ = end_turn_unseen(sabra(), 5.0, 3)
    doc = to_dict(g)
    del doc["last"]["unchecked"]
    assert from_dict(doc).last.unchecked == 0


def test_tiles_named_leave_a_typed_rack_and_a_count_alone_forgets_it():
    g = set_rack(sabra(), "Ann", R("R10 R11 R12 K1 K2 K3 B9 B9 O4 O8 O12 J K13 R13"))
    named, rec = end_turn_unseen(g, 5.0, tiles=R("R10 R11 R12"))
    assert sorted(named.seats[0].rack) == sorted(R("B9 B9 J K1 K2 K3 K13 O4 O8 O12 R13"))
    assert named.seats[0].rack_count == 11 and rec.unchecked == 3 and rec.verdict.placed == R("R10 R11 R12")
    assert named.last.note == "placed R10 R11 R12 (not checked: no camera saw the table)"
    assert end_turn_unseen(g, 5.0, 3, tiles=R("R10 R11 R12"))[0] == named  # the count may come too
    counted, _ = end_turn_unseen(g, 5.0, 3)
    assert counted.seats[0].rack is None and counted.seats[0].rack_count == 11  # no longer what Ann holds


@pytest.mark.parametrize("placed, tiles, message", [
    (0, "", "no tile placed: that is a draw (Drew a tile)"),
    (-2, "", "no tile placed"),
    (15, "", "Ann holds 14 tiles: 15 cannot have been placed"),
    (14, "", "Ann holds 14 tiles: placing 14 empties the rack, so that is Rummikub!: call it instead"),
    (2, "R5 R6 R7", "2 tiles said to be placed, but 3 named: R5 R6 R7"),
    (None, "R5 R5 R5", "the tiles placed: more copies than the box holds: 3 x R5"),
    (None, "", "no tile placed"),
])
def test_impossible_counts_are_refused(placed, tiles, message):
    g = sabra()
    with pytest.raises(GameError, match="^" + re.escape(message)):
        end_turn_unseen(g, 5.0, placed, tiles=R(tiles) if tiles else ())


def test_tiles_not_on_the_typed_rack_are_refused():
    g = set_rack(sabra(), "Ann", R("R5 R6 R7 K1 K2 K3"))
    with pytest.raises(GameError, match="^not on Ann's typed rack: B9 R5$"):
        end_turn_unseen(g, 5.0, tiles=R("R5 R5 R6 B9"))


def test_refused_while_a_camera_sees_the_table():
    """The camera's judgement stands: the players' word is only for a table nobody sees."""
    with pytest.raises(GameError, match="^a camera sees the table: End turn judges what it sees"):
        end_turn_unseen(sabra(), 5.0, 3, camera=True)


def test_rummikub_checks_the_count_the_players_kept_and_nothing_is_said_outside_a_turn():
    g, _ = end_turn_unseen(holding(sabra(), "Ann", 3), 5.0, 2, count_checked=True)  # she had melded
    assert g.seats[0].rack_count == 1
    with pytest.raises(StillHolds):  # Rummikub! checks the count: Ben holds his 14
        call_rummikub(g, (), 6.0)
    # Ben places his last tiles unseen: the count says one is left, so only with the players' word
    g = holding(g, "Ben", 4)
    with pytest.raises(GameError, match="placing 4 empties the rack, so that is Rummikub!"):
        end_turn_unseen(g, 6.0, 4)
    tally, rec, _ = call_rummikub(g, (), 6.0, count_checked=True)
    assert tally.status is Status.TALLY and rec.action is Action.RUMMIKUB
    with pytest.raises(GameError, match="in its tally"):
        end_turn_unseen(tally, 7.0, 1)
    dealing = confirm_tally(tally, 8.0, {"Ann": R("K5")})
    assert dealing.status is Status.DEALING
    with pytest.raises(GameError, match="the next hand has not started"):
        end_turn_unseen(dealing, 9.0, 1)
    assert end_turn_unseen(start_hand(dealing, 9.0), 10.0, 3)[0].seats[1].rack_count == 11  # Ben starts


# --- C. American and International: tiles placed, then the discard ------------------------

@pytest.mark.parametrize("rules", ["american", "international", "israeli"])
def test_american_a_turn_places_tiles_and_ends_with_its_discard(rules):
    g = american(rules)
    held = g.seats[0].rack_count  # 15: drew one, or the International starter's 15th
    with pytest.raises(GameError, match="discard a tile to end the turn"):
        end_turn_unseen(g, 1.0, 3)
    g, rec = end_turn_unseen(g, 1.0, 3, discard=Tile.parse("K1"))
    al = g.seats[0]
    assert al.rack_count == held - 4 and al.has_melded and al.discard == Tile.parse("K1")
    assert rec.action is Action.UNCHECKED and rec.unchecked == 3
    assert g.last.discard == Tile.parse("K1") and g.last.note == (
        "placed 3 tiles (not checked: no camera saw the table; a count cannot show a first meld's "
        f"{g.options.initial_meld} points)")
    assert g.turn.step is Step.DRAW and g.current.name == "Bo"
    with pytest.raises(GameError, match="draw first"):  # the draw is pressed first, as for End turn
        end_turn_unseen(g, 2.0, 3, discard=Tile.parse("K2"))


def test_american_the_discard_is_kept_out_of_the_count():
    g = holding(american(), "Al", 5)
    with pytest.raises(GameError, match="^Al holds 5 tiles and keeps one to discard: 5 cannot have been placed"):
        end_turn_unseen(g, 1.0, 5, discard=Tile.parse("K1"))
    with pytest.raises(GameError, match="^Al holds 5 tiles: placing 4 and discarding one empties the rack, so that is "
                                        "Rummikub!: call it instead"):
        end_turn_unseen(g, 1.0, 4, discard=Tile.parse("K1"))
    with pytest.raises(GameError, match="^no tile placed: End turn with the discard alone"):
        end_turn_unseen(g, 1.0, 0, discard=Tile.parse("K1"))
    assert end_turn_unseen(g, 1.0, 3, discard=Tile.parse("K1"))[0].seats[0].rack_count == 1
