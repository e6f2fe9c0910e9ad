"""A camera that drops out and comes back, in the pure game (rules.game_*): after turns no camera saw,
the table it finds on its return is taken as where the turn on started (``table_found``), so the tiles
placed meanwhile are not counted as that player's."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import start_hand
from rules.game_state import NOT_JUDGED, Action, Status
from rules.game_tally import call_rummikub, confirm_tally
from rules.game_found import FoundDoubt, table_found
from rules.game_turns import end_turn, end_turn_unseen, judge, start_game, time_out
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import R, T


def sabra(limit: int | None = None):
    opts = find_variant("sabra") if limit is None else find_variant("sabra", turn_time_limit=limit)
    return start_game(["Ann", "Ben"], opts, 0.0)


def unseen_then_ben():
    """Ann placed 3 tiles no camera saw (R10 R11 R12, as it turns out): Ben's turn, its table not known."""
    g, _ = end_turn_unseen(sabra(), 5.0, 3)
    return g


def test_a_turn_after_one_no_camera_saw_has_an_unseen_table():
    g = unseen_then_ben()
    assert g.current.name == "Ben" and g.turn.unseen and g.turn.table_before == () and g.turn.found is None


def test_without_the_found_table_the_first_turn_judged_counts_the_unseen_tiles_as_its_own():
    """The defect: judged against the table the game knows, Ann's unseen tiles are Ben's placement."""
    v = judge(unseen_then_ben(), T("R10 R11 R12"))
    assert v.changed and len(v.placed) == 3  # Ben "placed" Ann's run: wrong rack count, wrong meld


def test_the_table_found_is_where_the_turn_started():
    g = unseen_then_ben()
    g2, rec = table_found(g, T("R10 R11 R12"), 9.0)
    assert g2.turn.table_before == T("R10 R11 R12") and not g2.turn.unseen
    assert g2.turn.found == tuple(Tile.parse(c) for c in ("R10", "R11", "R12"))
    assert g2.turn.clock == g.turn.clock and g2.turn.number == g.turn.number and g2.current.name == "Ben"
    assert g2.seats == g.seats and g2.pool == g.pool  # nobody's rack changes
    assert rec.action is Action.TABLE_FOUND and rec.action in NOT_JUDGED and rec.player == "Ben"
    assert rec.table_before == () and rec.table_after == T("R10 R11 R12") and rec.verdict.placed == g2.turn.found
    assert rec.started_at == rec.ended_at == 9.0
    # Ben's turn is judged from there: an unchanged table is a draw, not three tiles placed
    g3, rec3, v = end_turn(g2, T("R10 R11 R12"), 12.0)
    assert not v.changed and rec3.action is Action.DRAW and g3.seats[1].rack_count == 15
    assert not g3.seats[1].has_melded and not g3.turn.unseen and g3.turn.found is None


def test_tiles_the_player_laid_before_the_camera_came_back_count_as_on_the_table():
    """They cannot be told apart from the unseen turns' tiles: not this turn's, they leave no rack."""
    found = T("R10 R11 R12 | K5 B5 O5")  # Ben's group laid meanwhile: 6 tiles found, 3 said, so it is asked
    with pytest.raises(FoundDoubt, match="tiles Ben laid this turn before it came back would be among them"):
        table_found(unseen_then_ben(), found, 9.0)
    g, _ = table_found(unseen_then_ben(), found, 9.0, confirmed=True)  # the players say it is right
    assert len(g.turn.found) == 6 and g.seats[1].rack_count == 14 and not g.seats[1].has_melded
    # what he lays after it counts (his first meld, 33 points: the group laid before does not count to it)
    g, _, v = end_turn(g, T("R10 R11 R12 | K5 B5 O5 | B10 B11 B12"), 12.0)
    assert v.legal and len(v.placed) == 3 and g.seats[1].rack_count == 11 and g.seats[1].has_melded


def test_the_table_stays_unseen_through_more_turns_until_a_camera_finds_it():
    g = unseen_then_ben()
    g, _, v = end_turn(g, (), 7.0)  # Ben: "Drew a tile" (the game's own table: nothing judged)
    assert not v.changed and g.current.name == "Ann" and g.turn.unseen
    g, _ = end_turn_unseen(g, 9.0, 4)
    assert g.turn.unseen
    g, rec = table_found(g, T("R10 R11 R12 | K1 K2 K3 K4"), 11.0)
    assert not g.turn.unseen and len(rec.verdict.placed) == 7


def test_a_refused_end_turn_s_verdict_is_dropped_with_the_old_table():
    g = unseen_then_ben()
    g = replace(g, turn=replace(g.turn, attempt=judge(g, T("R10 R11"))))
    g, _ = table_found(g, T("R10 R11 R12"), 9.0)
    assert g.turn.attempt is None


def test_a_turn_whose_table_a_camera_saw_is_never_taken_again():
    """A camera out during part of a turn that began seen: what it finds on its return is that turn's."""
    g = sabra()
    assert table_found(g, T("R10 R11 R12"), 5.0) is None
    v = judge(g, T("R10 R11 R12"))
    assert v.legal and len(v.placed) == 3


def test_nothing_is_taken_outside_play_or_while_a_table_is_put_back():
    g = unseen_then_ben()
    g2, _, _ = call_rummikub(g, (), 6.0, count_checked=True)
    assert g2.status is Status.TALLY and table_found(g2, T("R10 R11 R12"), 7.0) is None
    g3 = replace(g, restore=object())  # the clock waits for the table as the picture shows it
    assert table_found(g3, T("R10 R11 R12"), 7.0) is None
    assert table_found(None, (), 7.0) is None


def test_a_time_out_no_camera_saw_waits_for_the_players_to_say_what_the_turn_did():
    """Nobody knows whether the timed-out turn laid tiles: the clock stops and the players say; tiles they
    say were placed leave the next turn's table unseen."""
    g, rec = time_out(sabra(limit=30), (), 31.0)
    assert rec.action is Action.TIMEOUT and g.current.name == "Ben" and not g.turn.unseen
    g, rec = time_out(sabra(limit=30), (), 31.0, seen=False)
    assert rec is None and g.current.name == "Ann" and g.turn.time_up is not None and g.turn.clock.paused
    g, rec = end_turn_unseen(g, 40.0, 3)
    assert rec.action is Action.UNCHECKED and g.current.name == "Ben" and g.turn.unseen


def test_the_next_hand_starts_from_a_known_empty_table():
    g, _, _ = call_rummikub(unseen_then_ben(), (), 6.0, count_checked=True)
    g = confirm_tally(g, 7.0, {"Ann": R("K1")})
    assert g.status is Status.DEALING and not g.turn.unseen
    assert not start_hand(g, 8.0).turn.unseen


def test_the_unseen_table_and_the_tiles_found_are_stored():
    g = unseen_then_ben()
    assert from_dict(to_dict(g)) == g
    found, _ = table_found(g, T("R10 R11 R12"), 9.0)
    assert from_dict(to_dict(found)) == found and to_dict(found)["turn"]["found"] == ["R10", "R11", "R12"]
    doc = to_dict(g)
    del doc["turn"]["unseen"], doc["turn"]["found"]  # as an older version saved it
    old = from_dict(doc)
    assert not old.turn.unseen and old.turn.found is None
