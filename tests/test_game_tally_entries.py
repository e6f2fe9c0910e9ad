"""The tally's entries live in the game (rules.game_tally): racks typed or read and the "has melded"
corrections are kept in the Tally, stored with the game, and scored by the confirm."""

from __future__ import annotations

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_state import DrawSource, GameError, Status, table_of
from rules.game_tally import call_rummikub, confirm_tally, read_rack, set_tally_melded, set_tally_rack, undo_last_hand
from rules.game_win import has_melded
from rules.game_turns import draw, start_game
from rules.options import find_variant
from rules.tiles import Tile, parse_table, parse_tiles


def R(text: str):
    return tuple(parse_tiles(text))


def tally(players=("Ann", "Ben", "Cid"), rules="sabra"):
    """Ann went out on the first turn (the count overruled); the American family draws and discards first."""
    g = start_game(list(players), find_variant(rules), 0.0)
    extra = {}
    if g.options.flow.draw_then_discard:
        g, extra = draw(g, DrawSource.POOL), {"discard": Tile.parse("K1")}
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True, **extra)
    assert g.status is Status.TALLY
    return g


def test_typed_racks_are_kept_in_the_tally_and_scored_without_being_sent_again():
    g = set_tally_rack(set_tally_rack(tally(), "Ben", R("R5 K7")), "Cid", R("J"))
    assert g.tally.racks == ((), R("R5 K7"), R("J"))
    done = confirm_tally(g, 2.0)
    assert done.hands[-1].scores == (12 + 30, -12, -30)


def test_a_rack_given_with_the_confirm_replaces_the_entered_one_a_blank_one_leaves_it():
    g = set_tally_rack(set_tally_rack(tally(), "Ben", R("R5 K7")), "Cid", R("J"))
    # a client that never saw Cid's rack sends it blank: the entered one counts
    done = confirm_tally(g, 2.0, {"Ben": R("R1"), "Cid": None})
    assert done.hands[-1].racks == ((), R("R1"), R("J"))
    assert confirm_tally(g, 2.0, {"Ben": (), "Cid": R("K2")}).hands[-1].racks == ((), R("R5 K7"), R("K2"))


def test_a_cleared_rack_is_not_given_again():
    g = set_tally_rack(set_tally_rack(tally(), "Ben", R("R5 K7")), "Cid", R("J"))
    g = set_tally_rack(g, "Ben", None)
    assert g.tally.racks[1] is None
    with pytest.raises(GameError, match="rack not given for Ben"):
        confirm_tally(g, 2.0)


def test_the_winners_rack_stays_empty_whatever_is_entered():
    g = tally()
    with pytest.raises(GameError, match="Ann went out, so that rack is empty"):
        set_tally_rack(g, "Ann", R("R5"))
    assert set_tally_rack(g, "Ann", None).tally.racks[0] == ()  # clearing it does not make it "not given"


def test_a_typed_rack_replaces_one_the_camera_read_and_is_no_longer_marked_read():
    g = read_rack(tally(), "Ben", table_of(parse_table("K9")))
    assert g.tally.racks[1] == R("K9") and g.tally.read == (False, True, False)
    g = set_tally_rack(g, "Ben", R("K8"))
    assert g.tally.racks[1] == R("K8") and g.tally.read == (False, False, False)


def test_melded_corrections_are_kept_in_the_tally_and_counted_by_the_confirm():
    g = tally(rules="israeli")  # minus scoring: a player who never melded counts +100
    g = set_tally_rack(set_tally_rack(g, "Ben", R("R5")), "Cid", R("K2 K3"))
    assert not has_melded(g, "Ben") and has_melded(g, "Ann")  # the winner has melded
    g = set_tally_melded(g, "Ben", True)
    assert g.tally.melded == (None, True, None) and has_melded(g, "Ben")
    assert confirm_tally(g, 2.0).hands[-1].scores == (-100, 5, 100)
    # the confirm's own "melded" wins over the tally's correction
    assert confirm_tally(g, 2.0, melded={"Ben": False}).hands[-1].scores == (-200, 100, 100)
    assert set_tally_melded(g, "Ben", None).tally.melded == (None, None, None)  # back to what the game knows


def test_melded_corrections_are_refused_in_words():
    g = tally()
    with pytest.raises(GameError, match="Ann went out, so has melded"):
        set_tally_melded(g, "Ann", False)
    with pytest.raises(GameError, match="has Ben melded\\? say true or false, not 'yes'"):
        set_tally_melded(g, "Ben", "yes")
    with pytest.raises(GameError, match="'Dee' is not playing"):
        set_tally_melded(g, "Dee", True)


def test_entries_survive_a_restart_and_the_take_back():
    g = set_tally_melded(set_tally_rack(tally(rules="israeli"), "Ben", R("R5 J")), "Cid", True)
    back = from_dict(to_dict(g))
    assert back == g and back.tally.melded == (None, None, True) and back.tally.racks[1] == R("R5 J")
    scored = confirm_tally(set_tally_rack(g, "Cid", R("K1")), 2.0)
    again = undo_last_hand(from_dict(to_dict(scored)), 3.0)  # the tally opens again as it was left
    assert again.tally.melded == (None, None, True) and again.tally.racks == ((), R("R5 J"), R("K1"))


def test_a_game_stored_before_the_corrections_were_kept_still_loads():
    g = set_tally_rack(tally(), "Ben", R("R5"))
    doc = to_dict(g)
    del doc["tally"]["melded"]
    old = from_dict(doc)
    assert old.tally.melded == (None, None, None) and old.tally.racks == g.tally.racks
    assert set_tally_melded(old, "Cid", True).tally.melded == (None, None, True)
