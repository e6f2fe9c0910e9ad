"""The American and International draw-then-discard flow (rules.game_*): a wrong draw taken back, and
each hand's own face-up trump tile."""

from __future__ import annotations

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_state import DrawSource, GameError, Step
from rules.game_tally import call_rummikub
from rules.game_turns import draw, end_turn, start_game, time_out, undo_draw
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import T

R7, K3 = Tile.parse("R7"), Tile.parse("K3")


def american_second_round(rules: str = "american"):
    """Ann and Ben have each drawn from the pool and discarded (Ben K3): Ann's draw may take K3."""
    g = start_game(["Ann", "Ben"], find_variant(rules, turn_time_limit=60), 0.0, trump=R7)
    for now, discard in ((1.0, "K1"), (2.0, "K3")):
        if g.turn.step is Step.DRAW:
            g = draw(g, DrawSource.POOL)
        g, _, _ = end_turn(g, (), now, discard=Tile.parse(discard))
    assert g.current.name == "Ann" and g.turn.step is Step.DRAW and g.seats[1].discard == K3
    return g


# --- a wrong draw taken back -----------------------------------------------------------

@pytest.mark.parametrize("rules", ["american", "international"])
@pytest.mark.parametrize("source", list(DrawSource))
def test_a_draw_taken_back_puts_the_tile_where_it_came_from(rules, source):
    g = american_second_round(rules)
    drawn = draw(g, source)
    assert drawn.turn.step is Step.MELD and drawn.current.rack_count == g.current.rack_count + 1
    back = undo_draw(drawn, ())
    assert back == g  # the pool, the discard, the trump, the rack count and the clock as before the draw
    assert back.turn.step is Step.DRAW and back.turn.drew is None
    assert back.pool == g.pool and back.seats[1].discard == K3 and back.trump_up
    assert from_dict(to_dict(back)) == back


def test_the_clock_runs_on_through_a_draw_taken_back():
    g = american_second_round()
    since, spent = g.turn.clock.since, g.turn.clock.spent
    back = undo_draw(draw(g, DrawSource.DISCARD), ())
    assert (back.turn.clock.since, back.turn.clock.spent) == (since, spent) and not back.turn.clock.paused
    # the turn is at its draw again: a time-out with nothing placed draws a tile, as before any draw
    out, rec = time_out(back, (), since + 61)
    assert rec.player == "Ann" and out.seats[0].rack_count == g.seats[0].rack_count + 1


def test_then_the_right_draw():
    g = american_second_round()
    fixed = draw(undo_draw(draw(g, DrawSource.POOL)), DrawSource.DISCARD)
    assert fixed.turn.drew.source is DrawSource.DISCARD and fixed.turn.drew.tile == K3
    assert fixed.pool == g.pool and fixed.seats[1].discard is None
    assert fixed.current.rack_count == g.current.rack_count + 1


@pytest.mark.parametrize("first, then", [(DrawSource.POOL, DrawSource.DISCARD), (DrawSource.DISCARD, DrawSource.POOL),
                                         (DrawSource.TRUMP, DrawSource.POOL), (DrawSource.POOL, DrawSource.TRUMP)])
def test_a_draw_from_another_source_replaces_the_draw(first, then):
    g = american_second_round()
    assert draw(draw(g, first), then) == draw(g, then)


@pytest.mark.parametrize("source, words", [(DrawSource.POOL, "drawn from the pool"),
                                           (DrawSource.DISCARD, "taken the previous discard"),
                                           (DrawSource.TRUMP, "taken the trump")])
def test_the_same_draw_twice_is_refused(source, words):
    drawn = draw(american_second_round(), source)
    with pytest.raises(GameError, match=f"^this turn has {words} already$"):
        draw(drawn, source)


def test_no_draw_is_taken_back_once_tiles_are_placed():
    g = american_second_round()
    drawn = draw(g, DrawSource.DISCARD)
    played = T("K3 K4 K5")
    with pytest.raises(GameError, match="^K3 K4 K5 placed on the table this turn: take them back to the rack"):
        undo_draw(drawn, played)
    with pytest.raises(GameError, match="^K3 K4 K5 placed"):
        draw(drawn, DrawSource.POOL, played)  # nor replaced
    assert undo_draw(drawn, ()) == g  # the tiles back on the rack: it can


def test_what_has_no_draw_to_take_back():
    g = american_second_round()
    with pytest.raises(GameError, match="^nothing has been drawn this turn$"):
        undo_draw(g, ())
    intl = start_game(["Ann", "Ben"], find_variant("international"), 0.0)
    with pytest.raises(GameError, match="starter's first turn has no draw to take back: the 15th tile was dealt"):
        undo_draw(intl, ())
    with pytest.raises(GameError, match="in Sabra a turn has no draw to take back"):
        undo_draw(start_game(["Ann", "Ben"], find_variant("sabra"), 0.0), ())
    # the turn ended (the discard) or the hand is being counted: too late
    drawn = draw(g, DrawSource.POOL)
    ended, _, _ = end_turn(drawn, (), 5.0, discard=Tile.parse("O2"))
    with pytest.raises(GameError, match="nothing has been drawn"):
        undo_draw(ended, ())
    counting, _, _ = call_rummikub(drawn, (), 5.0, discard=Tile.parse("O2"), count_checked=True)
    with pytest.raises(GameError, match="tally"):
        undo_draw(counting, ())
