"""Defects found by playing American, International and Sabra games on phones (rules.game_*), one
section each."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import set_trump, start_hand
from rules.game_state import DrawSource, GameError, PoolLeft, Status, Step
from rules.game_tally import call_rummikub, confirm_tally, undo_last_hand
from rules.game_turns import change_rules, draw, end_turn, start_game, undo_draw
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
    g = turn_of(turn_of(turn_of(al_and_bo(trump=R7), K3), K13), K13, source=DrawSource.DISCARD)
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
