"""Two defects of playing without a camera and of the last turn's line (rules.game_*):

A. the last turn of the American family names the tile it discarded, and a game saved before it did still loads;
"""

from __future__ import annotations

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_state import Action, DrawSource
from rules.game_turns import draw, end_turn, start_game, time_out
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import T


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
    """Sabra has no discards (one sent along is not kept); a time-out ends a turn with none."""
    g, _, _ = end_turn(start_game(["Ann", "Ben"], find_variant("sabra"), 0.0), (), 1.0, discard=Tile.parse("R7"))
    assert g.last.action == "draw" and g.last.discard is None
    g = start_game(["Al", "Bo"], find_variant("american", turn_time_limit=30), 0.0)
    g, _ = time_out(draw(g, DrawSource.POOL), (), 31.0)
    assert g.last.action == "timeout" and g.last.discard is None


def test_a_game_saved_before_the_last_turn_named_its_discard_still_loads():
    g, _, _ = end_turn(american(), (), 1.0, discard=Tile.parse("R7"))
    doc = to_dict(g)
    assert doc["last"]["discard"] == "R7"
    del doc["last"]["discard"]  # as an older version saved it
    old = from_dict(doc)
    assert old.last.discard is None and old.last.action == "discard" and old.seats == g.seats
