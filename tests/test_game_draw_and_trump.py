"""The American and International draw-then-discard flow (rules.game_*): a wrong draw taken back, and
each hand's own face-up trump tile (said at Start hand, or in play when forgotten there)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import set_trump, start_hand
from rules.game_state import DrawSource, GameError, Status, Step
from rules.game_tally import call_rummikub, confirm_tally
from rules.game_turns import (
    change_rules, discard_refused, draw, end_turn, start_game, time_out, trump_refused, undo_draw,
)
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import R, T

R7, K3 = Tile.parse("R7"), Tile.parse("K3")


MELD = T("K13 B13 O13 R13")  # Ann's initial meld (52 points: American asks 21, International 50)


def american_second_round(rules: str = "american"):
    """Ann has drawn, laid her initial meld (MELD) and discarded, Ben drawn and discarded K3: Ann's draw may
    take K3 (in American only once her initial meld is laid)."""
    g = start_game(["Ann", "Ben"], find_variant(rules, turn_time_limit=60), 0.0, trump=R7)
    for now, discard in ((1.0, "K1"), (2.0, "K3")):
        if g.turn.step is Step.DRAW:
            g = draw(g, DrawSource.POOL)
        g, _, _ = end_turn(g, MELD, now, discard=Tile.parse(discard))
    assert g.current.name == "Ann" and g.turn.step is Step.DRAW and g.seats[1].discard == K3
    assert g.current.has_melded and not g.seats[1].has_melded
    return g


# --- a wrong draw taken back -----------------------------------------------------------

# an International player who melded earlier is refused the trump (below): Ann has
@pytest.mark.parametrize("rules, source", [(r, s) for r in ("american", "international") for s in DrawSource
                                           if (r, s) != ("international", DrawSource.TRUMP)])
def test_a_draw_taken_back_puts_the_tile_where_it_came_from(rules, source):
    g = american_second_round(rules)
    drawn = draw(g, source)
    assert drawn.turn.step is Step.MELD and drawn.current.rack_count == g.current.rack_count + 1
    back = undo_draw(drawn, MELD)
    assert back == g  # the pool, the discard, the trump, the rack count and the clock as before the draw
    assert back.turn.step is Step.DRAW and back.turn.drew is None
    assert back.pool == g.pool and back.seats[1].discard == K3 and back.trump_up
    assert from_dict(to_dict(back)) == back


def test_the_clock_runs_on_through_a_draw_taken_back():
    g = american_second_round()
    since, spent = g.turn.clock.since, g.turn.clock.spent
    back = undo_draw(draw(g, DrawSource.DISCARD), MELD)
    assert (back.turn.clock.since, back.turn.clock.spent) == (since, spent) and not back.turn.clock.paused
    # the turn is at its draw again: a time-out draws the tile it owes, as before any draw, and waits for
    # the discard
    out, rec = time_out(back, MELD, since + 61)
    assert rec is None and out.current.name == "Ann" and out.seats[0].rack_count == g.seats[0].rack_count + 1


def test_an_american_player_takes_the_discard_once_the_initial_meld_is_laid():
    """The page offers "Took the discard" by discard_refused, and draw refuses it in the same words. 004_*
    lists the discard among the American options "after you have laid down your initial meld"; International
    always permits it; Sabra has no discards."""
    g = american_second_round()
    assert discard_refused(g) is None
    ben = end_turn(draw(g, DrawSource.DISCARD), MELD, 3.0, discard=K3)[0]  # Ann discards K3 again
    assert ben.current.name == "Ben" and not ben.current.has_melded and ben.seats[0].discard == K3
    refused = discard_refused(ben)
    assert refused == "Ben may take the previous discard from the turn after the initial meld; draw from the pool"
    with pytest.raises(GameError, match=f"^{refused}$"):
        draw(ben, DrawSource.DISCARD)
    international = american_second_round("international")
    ben = end_turn(draw(international, DrawSource.POOL), MELD, 3.0, discard=K3)[0]
    assert not ben.current.has_melded and discard_refused(ben) is None  # "always permitted"
    first = start_game(["Ann", "Ben"], find_variant("international"), 0.0, trump=R7)
    assert discard_refused(first) == "there is no discard to take"  # nobody has discarded yet
    sabra = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    assert discard_refused(sabra) == "this game has no discards to take"


def test_an_international_player_who_melded_earlier_is_refused_the_trump_at_the_draw():
    """Only an Open win is left to a player who melded earlier (Foot and Closed meld the whole hand at
    once), and the trump may not be its final draw: refused at the draw, not found out at the count."""
    g = american_second_round("international")
    refused = trump_refused(g)
    assert refused == ("Ann has melded this hand, so can win only Open, and the trump may not be the final "
                       "draw of an Open win (International rules): draw from the pool or take the discard")
    with pytest.raises(GameError, match=re.escape(refused)):
        draw(g, DrawSource.TRUMP)
    ben = end_turn(draw(g, DrawSource.POOL), MELD, 3.0, discard=K3)[0]
    assert trump_refused(ben) is None and draw(ben, DrawSource.TRUMP).turn.drew.tile == R7  # for a Foot or Closed win
    assert trump_refused(american_second_round()) is None  # American: to win, however
    assert trump_refused(draw(ben, DrawSource.TRUMP)) == "the trump tile has been taken already"


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
    played = MELD + T("K3 K4 K5")
    with pytest.raises(GameError, match="^K3 K4 K5 placed on the table this turn: take them back to the rack"):
        undo_draw(drawn, played)
    with pytest.raises(GameError, match="^K3 K4 K5 placed"):
        draw(drawn, DrawSource.POOL, played)  # nor replaced
    assert undo_draw(drawn, MELD) == g  # the tiles back on the rack: it can


def test_what_has_no_draw_to_take_back():
    g = american_second_round()
    with pytest.raises(GameError, match="^nothing has been drawn this turn$"):
        undo_draw(g, MELD)
    intl = start_game(["Ann", "Ben"], find_variant("international"), 0.0)
    with pytest.raises(GameError, match="starter's first turn has no draw to take back: the 15th tile was dealt"):
        undo_draw(intl, ())
    with pytest.raises(GameError, match="in Sabra a turn has no draw to take back"):
        undo_draw(start_game(["Ann", "Ben"], find_variant("sabra"), 0.0), ())
    # the turn ended (the discard) or the hand is being counted: too late
    drawn = draw(g, DrawSource.POOL)
    ended, _, _ = end_turn(drawn, MELD, 5.0, discard=Tile.parse("O2"))
    with pytest.raises(GameError, match="nothing has been drawn"):
        undo_draw(ended, MELD)
    counting, _, _ = call_rummikub(drawn, MELD, 5.0, discard=Tile.parse("O2"), count_checked=True)
    with pytest.raises(GameError, match="tally"):
        undo_draw(counting, MELD)


# --- each hand's own trump ----------------------------------------------------------------

def scored_american_hand(took_trump: bool):
    """Hand 1 (trump R7, taken or not by Ann, who goes out) scored: hand 2 waits for its start."""
    g = start_game(["Ann", "Ben"], find_variant("american"), 0.0, trump=R7)
    g = draw(g, DrawSource.TRUMP if took_trump else DrawSource.POOL)
    g, _, _ = call_rummikub(g, (), 1.0, discard=K3, count_checked=True)
    return confirm_tally(g, 2.0, {"Ben": R("K5")})


@pytest.mark.parametrize("took_trump", [True, False])
def test_the_next_hand_turns_a_trump_of_its_own(took_trump):
    g = scored_american_hand(took_trump)
    assert g.status is Status.DEALING and g.hand == 2
    assert g.trump is None and g.trump_up  # the old trump is shuffled in; a new one lies face up, not yet said
    assert g.pool == 106 - 2 * 14 - 1
    assert from_dict(to_dict(g)) == g
    started = start_hand(g, 3.0, trump=Tile.parse("B4"))
    assert started.status is Status.PLAYING and started.trump == Tile.parse("B4") and started.trump_up
    assert draw(started, DrawSource.TRUMP).turn.drew.tile == Tile.parse("B4")
    assert from_dict(to_dict(started)) == started
    unsaid = start_hand(g, 3.0)
    assert unsaid.trump is None and unsaid.trump_up  # may be left unsaid, as for the first hand


def test_only_a_game_with_a_trump_takes_one_at_the_start_of_a_hand():
    sabra = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    sabra, _, _ = call_rummikub(sabra, T("R10 R11 R12"), 1.0, count_checked=True)
    dealt = confirm_tally(sabra, 2.0, {"Ben": R("K5")})
    with pytest.raises(GameError, match="^a Sabra hand has no trump tile$"):
        start_hand(dealt, 3.0, trump=R7)
    assert start_hand(dealt, 3.0).trump is None
    # rules switched to American for the next hand: that hand has its trump face up
    american = change_rules(sabra, find_variant("american"))
    dealt = confirm_tally(american, 2.0, {"Ben": R("K5")})
    assert dealt.options.flow.trump and dealt.trump_up and dealt.pool == 106 - 2 * 14 - 1
    assert start_hand(dealt, 3.0, trump=R7).trump == R7


# --- the hand's trump tile, said in play -----------------------------------------------------------

def al_and_bo(rules: str = "american", trump: str | None = None):
    return start_game(["Al", "Bo"], find_variant(rules), 0.0, trump=Tile.parse(trump) if trump else None)


@pytest.mark.parametrize("rules", ["american", "international"])
def test_a_trump_forgotten_at_the_start_is_said_in_play_and_a_mistyped_one_corrected(rules):
    g = al_and_bo(rules)
    assert g.trump is None and g.trump_up
    g = set_trump(g, Tile.parse("B4"))
    assert g.trump == Tile.parse("B4") and g.trump_up
    g = set_trump(g, Tile.parse("B5"))  # mistyped: corrected before anyone took it
    assert g.trump == Tile.parse("B5")
    if g.turn.step is Step.DRAW:
        g = draw(g, DrawSource.TRUMP)
        assert g.turn.drew.tile == Tile.parse("B5")  # the draw takes the tile said
    assert from_dict(to_dict(g)).trump == Tile.parse("B5")


def test_the_trump_taken_cannot_be_changed():
    g = draw(al_and_bo(trump="B4"), DrawSource.TRUMP)
    with pytest.raises(GameError, match="Al has taken the trump tile this turn: take the draw back"):
        set_trump(g, Tile.parse("B5"))
    g = set_trump(undo_draw(g), Tile.parse("B5"))  # face up again: it can be corrected
    assert g.trump == Tile.parse("B5")
    taken = replace(g, trump_up=False)  # held in a rack
    with pytest.raises(GameError, match="^the trump tile has been taken: it can no longer be set$"):
        set_trump(taken, Tile.parse("B6"))


def test_a_game_without_a_trump_refuses_one():
    with pytest.raises(GameError, match="^a Sabra hand has no trump tile$"):
        set_trump(start_game(["Ann", "Ben"], find_variant("sabra"), 0.0), Tile.parse("R7"))
    with pytest.raises(GameError, match="no game yet"):
        set_trump(None, Tile.parse("R7"))


def test_outside_play_the_trump_is_not_set_here():
    g, _, _ = call_rummikub(draw(al_and_bo(), DrawSource.POOL), (), 1.0, discard=Tile.parse("K1"),
                            count_checked=True)
    with pytest.raises(GameError, match="while a hand is in play, not while the game is in its tally"):
        set_trump(g, Tile.parse("R7"))
    g = confirm_tally(g, 2.0, {"Bo": R("K2")})
    with pytest.raises(GameError, match="^hand 2 has not started: type its trump tile beside Start hand$"):
        set_trump(g, Tile.parse("R7"))
    assert set_trump(start_hand(g, 3.0), Tile.parse("R7")).trump == Tile.parse("R7")
