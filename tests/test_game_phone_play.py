"""Defects found by playing American, International and Sabra games on phones (rules.game_*), one
section each."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import set_trump
from rules.game_state import DrawSource, GameError, PoolLeft, Status, Step
from rules.game_tally import call_rummikub
from rules.game_turns import draw, start_game
from rules.options import find_variant
from rules.tiles import Tile

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
