"""Defects found by playing American, International and Sabra games on phones (rules.game_*), one
section each."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import set_trump, start_hand
from rules.game_state import Action, DrawSource, GameError, PoolLeft, Status, Step
from rules.game_tally import call_rummikub, cancel_tally, confirm_tally, undo_last_hand
from rules.game_turns import change_rules, draw, end_turn, end_turn_unseen, start_game, time_out, undo_draw
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import T

R7, K3 = Tile.parse("R7"), Tile.parse("K3")


def al_and_bo(rules: str = "american", trump: Tile | None = None, **options):
    return start_game(["Al", "Bo"], find_variant(rules, **options), 0.0, trump=trump)


# --- the trump is taken only once it is known which tile it is -----------------------------

@pytest.mark.parametrize("rules", ["american", "international"])
def test_the_trump_cannot_be_taken_before_it_is_entered(rules):
    """A trump draw with no tile named put nobody-knows-what in the rack and the hand's record."""
    g = al_and_bo(rules)
    if g.turn.step is Step.MELD:  # the International starter holds a 15th tile: Bo draws first
        g = replace(g, turn=replace(g.turn, step=Step.DRAW))
    with pytest.raises(GameError, match="^which tile is the trump\\? It was not entered: type it in Set trump"):
        draw(g, DrawSource.TRUMP)
    took = draw(set_trump(g, R7), DrawSource.TRUMP)
    assert took.turn.drew.tile == R7 and not took.trump_up
    assert from_dict(to_dict(took)) == took


# --- Pool empty is asked about while the pool holds tiles by the count -----------------------

@pytest.mark.parametrize("rules", ["sabra", "american", "international"])
def test_pool_empty_with_tiles_in_the_pool_is_asked_about(rules):
    g = al_and_bo(rules, trump=R7)
    ending = {"discard": K3} if g.turn.step is Step.MELD else {}  # the International starter's turn ends
    with pytest.raises(PoolLeft, match=f"^by the count {g.pool} tiles are still in the pool: if the count is "
                                       "wrong, call Pool empty anyway$") as asked:
        call_rummikub(g, (), 1.0, pool_empty=True, **ending)
    assert asked.value.details == {"pool_left": {"tiles": g.pool}}
    assert call_rummikub(g, (), 1.0, pool_empty=True, count_checked=True, **ending)[0].status is Status.TALLY


def test_pool_empty_at_the_draw_of_an_empty_pool_is_not_asked_about():
    g = replace(al_and_bo(trump=R7), pool=0)
    with pytest.raises(GameError, match="^the pool is empty: press Pool empty to end the hand$"):
        draw(g, DrawSource.POOL)
    out, rec, _ = call_rummikub(g, (), 1.0, pool_empty=True)
    assert out.status is Status.TALLY and out.tally.pool_empty and rec is None
    assert str(PoolLeft(1)).startswith("by the count 1 tile is still in the pool")


# --- a discard the box cannot hold is refused ---------------------------------------------

K13 = Tile.parse("K13")


def turn_of(g, discard: Tile, table=(), source=DrawSource.POOL):
    """One American turn: a draw from ``source``, then ``discard``."""
    if g.turn.step is Step.DRAW:
        g = draw(g, source)
    return end_turn(g, table, g.turn.clock.since + 1, discard=discard)[0]


def test_a_third_k13_discard_is_refused_naming_it():
    g = turn_of(turn_of(al_and_bo(trump=R7), K13), K13)
    assert g.discards == (K13, K13)
    g = draw(g, DrawSource.POOL)
    with pytest.raises(GameError, match="^K13 cannot be discarded: the standard 106-tile box holds 2 of each "
                                        "tile, and 2 lie face up already \\(2 in the discard piles\\): type the "
                                        "tile discarded again$"):
        end_turn(g, (), 5.0, discard=K13)
    with pytest.raises(GameError, match="K13 cannot be discarded"):
        call_rummikub(g, (), 5.0, discard=K13, count_checked=True)  # the winner's final discard too
    assert from_dict(to_dict(g)) == g


def test_a_discard_taken_leaves_the_pile_and_may_be_discarded_again():
    al_melded, both_melded = T("R10 R11 R12"), T("R10 R11 R12 | B10 O10 K10")  # each on his first turn
    g = turn_of(turn_of(turn_of(al_and_bo(trump=R7), K3, al_melded), K13, both_melded), K13, both_melded,
                source=DrawSource.DISCARD)
    assert g.discards == (K3, K13) and g.seats[0].discard == K13  # Al took Bo's K13 and discarded it
    taken_back = undo_draw(draw(g, DrawSource.DISCARD))
    assert taken_back == g


@pytest.mark.parametrize("table, trump, where", [
    ("K11 K12 K13 | B13 O13 K13", R7, "2 on the table"),
    ("K11 K12 K13", K13, "1 on the table, 1 as the trump"),
])
def test_the_table_and_the_face_up_trump_count_too(table, trump, where):
    g = draw(al_and_bo(trump=trump), DrawSource.POOL)
    with pytest.raises(GameError, match=f"and 2 lie face up already \\({where}\\)"):
        end_turn(replace(g, turn=replace(g.turn, table_before=T(table))), T(table), 1.0, discard=K13)


def test_a_game_saved_before_the_discards_were_kept_still_loads():
    g = turn_of(al_and_bo(trump=R7), K13)
    doc = to_dict(g)
    del doc["discards"]
    assert from_dict(doc) == replace(g, discards=())


# --- rules saved while the next hand waits for its start apply to it --------------------------

def test_rules_saved_while_hand_2_waits_apply_to_hand_2_and_survive_a_take_back():
    g = al_and_bo(trump=R7)
    g = draw(g, DrawSource.POOL)
    g, _, _ = call_rummikub(g, (), 1.0, discard=K3, count_checked=True)
    dealt = confirm_tally(g, 2.0, {"Bo": (K13,)})
    assert dealt.status is Status.DEALING and dealt.options.initial_meld == 21
    ruled = change_rules(dealt, dealt.options.replace(initial_meld=30, turn_time_limit=90))
    assert ruled.options.initial_meld == 30 and ruled.pending is None and ruled.turn.clock.limit == 90
    started = start_hand(ruled, 3.0)
    assert started.options.initial_meld == 30 and started.turn.clock.remaining(3.0) == 90
    # taken back and confirmed again: the same rules (as before the fix, only this way took them)
    again = confirm_tally(undo_last_hand(ruled, 4.0), 5.0, {"Bo": (K13,)})
    assert again.options == ruled.options and again.pending is None
    assert from_dict(to_dict(ruled)) == ruled


def test_a_game_switched_while_its_next_hand_waits_is_dealt_again_by_the_new_game():
    """Sabra and American score alike: hand 2 of a Sabra game switched to American is dealt as one,
    with a trump face up, and International's starter would hold 15."""
    g = start_game(["Al", "Bo"], find_variant("sabra"), 0.0)
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True)
    dealt = confirm_tally(g, 2.0, {"Bo": (K13,)})
    american = change_rules(dealt, find_variant("american"))
    assert american.options.game == "american" and american.trump_up and american.turn.step is Step.DRAW
    assert american.pool == dealt.pool - 1 and [s.rack_count for s in american.seats] == [14, 14]
    assert american.tiles_out(()) == 106 and american.hands == dealt.hands and american.undo == dealt.undo


# --- a time-out in the draw-then-discard games: the draw settled, the turn ends with a discard ---

def test_a_trump_taken_goes_back_face_up_at_the_time_out_and_the_turn_waits_for_its_discard():
    g = al_and_bo(trump=R7, turn_time_limit=60)
    pool = g.pool
    took = draw(g, DrawSource.TRUMP)
    out, rec = time_out(took, (), 61.0)
    assert rec is None and out.current.name == "Al" and out.turn.clock.paused
    assert out.trump_up and out.pool == pool - 1 and out.current.rack_count == 15
    assert out.turn.step is Step.MELD and out.turn.drew.source is DrawSource.POOL
    assert out.turn.time_up.note == "the trump went back face up and a tile was drawn from the pool instead"
    assert time_out(out, (), 500.0) is None and from_dict(to_dict(out)) == out
    for again in (DrawSource.TRUMP, DrawSource.DISCARD):
        with pytest.raises(GameError, match="^time is up: the draw stands; discard a tile to end the turn$"):
            draw(out, again)
    with pytest.raises(GameError, match="time is up: the draw stands"):
        undo_draw(out)
    with pytest.raises(GameError, match="discard a tile to end the turn"):
        end_turn(out, (), 70.0)
    done, rec, _ = end_turn(out, (), 70.0, discard=K3)
    assert rec.action is Action.TIMEOUT and done.last.action == "timeout" and done.last.discard == K3
    assert done.last.note == "time is up (the trump went back face up and a tile was drawn from the pool instead)"
    assert done.seats[0].rack_count == 14 and done.current.name == "Bo" and not done.turn.clock.paused
    assert draw(set_trump(done, R7), DrawSource.TRUMP).turn.drew.tile == R7  # face up for Bo


def test_international_racks_keep_their_size_through_time_outs():
    """The starter (15 tiles, no draw) and Bo (draws first) each run out of time: each discards."""
    g = al_and_bo("international", trump=R7, turn_time_limit=10)
    g, rec = time_out(g, (), 11.0)
    assert rec is None and g.turn.time_up.note == "" and g.current.rack_count == 15
    g, _, _ = end_turn(g, (), 12.0, discard=K3)
    g, rec = time_out(g, (), 23.0)
    assert rec is None and g.current.name == "Bo" and g.current.rack_count == 15
    g, _, _ = end_turn(g, (), 24.0, discard=K13)
    assert [s.rack_count for s in g.seats] == [14, 14] and g.last.note == "time is up (a tile was drawn from the pool)"
    assert g.tiles_out(()) == 106


def test_tiles_laid_before_the_time_out_stand_and_none_may_be_laid_after():
    g = draw(al_and_bo(trump=R7, turn_time_limit=60), DrawSource.POOL)
    meld = T("K10 K11 K12")
    out, _ = time_out(g, meld, 61.0)
    assert out.turn.time_up.table == meld
    with pytest.raises(GameError, match="^time is up: K13 placed after the clock ran out: take them back"):
        end_turn(out, T("K10 K11 K12 K13"), 62.0, discard=K3)
    with pytest.raises(GameError, match="time is up: K13 placed after"):
        call_rummikub(out, T("K10 K11 K12 K13"), 62.0, discard=K3, count_checked=True)
    done, _, _ = end_turn(out, meld, 62.0, discard=K3)
    assert done.seats[0].rack_count == 15 - 3 - 1 and done.seats[0].has_melded
    assert done.last.note == "time is up: placed K10 K11 K12"


def test_an_unfinished_table_goes_back_with_the_penalty_which_ends_the_turn():
    g = draw(al_and_bo(trump=R7, turn_time_limit=60), DrawSource.POOL)
    out, rec = time_out(g, T("K10 K11"), 61.0)
    assert rec.penalty == 3 and out.restore is not None and out.current.name == "Bo" and out.turn.clock.paused
    assert out.seats[0].rack_count == 15 + 3
    # the trump taken to win, tiles laid, time up: the move could not be completed
    took = draw(al_and_bo(trump=R7, turn_time_limit=60), DrawSource.TRUMP)
    out, rec = time_out(took, T("R7 R8 R9"), 61.0)
    assert out.restore is not None and out.trump_up and out.seats[0].rack_count == 14 + 3
    assert rec.penalty == 3 and "with the trump taken, which may be taken only to win at once" in out.last.note


def test_a_time_out_at_the_draw_of_an_empty_pool_waits_for_pool_empty():
    g = replace(al_and_bo(trump=R7, turn_time_limit=60), pool=0)
    out, rec = time_out(g, (), 61.0)
    assert rec is None and out.turn.step is Step.DRAW and out.turn.time_up.note == "the pool is empty"
    with pytest.raises(GameError, match="^time is up and the pool is empty: press Pool empty to end the hand$"):
        end_turn(out, (), 62.0, discard=K3)
    assert call_rummikub(out, (), 62.0, pool_empty=True)[0].status is Status.TALLY


# --- with no camera a time-out asks what the turn did -------------------------------------

def test_with_no_camera_the_time_out_waits_for_the_players_word():
    g = start_game(["Ann", "Ben"], find_variant("sabra", turn_time_limit=30), 0.0)
    out, rec = time_out(g, (), 31.0, seen=False)
    assert rec is None and out.current.name == "Ann" and out.pool == g.pool and out.seats == g.seats
    assert out.turn.time_up.table is None and out.turn.clock.paused and from_dict(to_dict(out)) == out
    drew, rec, _ = end_turn(out, (), 40.0)
    assert rec.action is Action.TIMEOUT and drew.seats[0].rack_count == 15 and not drew.turn.unseen
    assert drew.last.note == "time is up with nothing placed: draws a tile"
    laid, rec = end_turn_unseen(out, 40.0, 3)
    assert rec.action is Action.UNCHECKED and laid.seats[0].rack_count == 11 and laid.turn.unseen
    assert laid.last.note == ("time is up: placed 3 tiles (not checked: no camera saw the table; a count cannot show a first meld's 30 points)")
    # "Rummikub!" pressed by mistake meanwhile: back to the game, the clock still stopped
    back = cancel_tally(call_rummikub(out, (), 41.0, count_checked=True)[0], 42.0)
    assert back.turn.time_up is not None and back.turn.clock.paused


def test_with_no_camera_an_american_time_out_settles_the_draw_and_asks():
    g = al_and_bo(trump=R7, turn_time_limit=30)
    out, rec = time_out(g, (), 31.0, seen=False)
    assert rec is None and out.turn.step is Step.MELD and out.current.rack_count == 15
    laid, rec = end_turn_unseen(out, 40.0, 3, discard=K3)
    assert laid.seats[0].rack_count == 11 and laid.last.note == (
        "time is up (a tile was drawn from the pool): placed 3 tiles (not checked: no camera saw the table; a count cannot show a first meld's 21 points)")


# --- the turn log keeps when a turn began, whatever paused its clock --------------------------

def test_a_turn_whose_time_ran_out_is_logged_from_its_start_not_from_the_time_up():
    """Bo drew, let his 60 s run out (the clock stops and waits for his discard), and discarded 45 s later:
    the turn log said he took 45 s, counting from the moment time was up."""
    g = turn_of(al_and_bo(trump=R7, turn_time_limit=60), K3)
    began = g.turn.clock.since
    g = draw(g, DrawSource.POOL)
    waiting, rec = time_out(g, (), began + 60)
    assert rec is None and waiting.turn.time_up is not None
    _, record, _ = end_turn(waiting, (), began + 105, discard=K13)
    assert (record.player, record.started_at, record.ended_at) == ("Bo", began, began + 105)
    assert from_dict(to_dict(waiting)).turn.clock == waiting.turn.clock  # kept through a restart


def test_a_turn_saved_before_its_start_was_kept_still_loads():
    doc = to_dict(al_and_bo(trump=R7))
    del doc["turn"]["clock"]["started"]
    clock = from_dict(doc).turn.clock
    assert clock.started is None and clock.began == clock.since
