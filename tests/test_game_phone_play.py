"""Defects found by playing American, International and Sabra games on phones (rules.game_*), one
section each."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import set_trump
from rules.game_state import DrawSource, GameError, Step
from rules.game_turns import draw, start_game
from rules.options import find_variant
from rules.tiles import Tile

R7 = Tile.parse("R7")


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
