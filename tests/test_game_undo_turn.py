"""Undo last turn (rules.game_undo): a turn recorded on the players' word with no camera, taken back when
the answer was wrong, while nothing has happened since; a turn the camera judged stands."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import set_trump, start_hand
from rules.game_state import DrawSource, GameError, Status, Step
from rules.game_tally import call_rummikub, cancel_tally, confirm_tally, finish_game
from rules.game_turns import (
    change_rules, draw, end_turn, end_turn_unseen, set_rack, start_game, time_out, undo_draw,
)
from rules.game_found import table_found
from rules.game_undo import turn_back_refusal, undo_turn
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import R, T


def sabra(limit: int = 60):
    return start_game(["Ann", "Ben"], find_variant("sabra", turn_time_limit=limit), 0.0)


def american():
    """Al and Bo; Al has drawn from the pool at 1 s."""
    return draw(start_game(["Al", "Bo"], find_variant("american", turn_time_limit=60), 0.0,
                           trump=Tile.parse("B4")), DrawSource.POOL)


def same_but_clock(a, b):
    return replace(a, turn=replace(a.turn, clock=None)) == replace(b, turn=replace(b.turn, clock=None))


def test_a_wrong_played_answer_is_taken_back_exactly():
    """Ann drew, but "Played 3" was pressed: her rack, the pool, her first meld and the turn come back."""
    before = sabra()
    wrong, _ = end_turn_unseen(before, 20.0, 3)
    assert wrong.current.name == "Ben" and wrong.seats[0].rack_count == 11 and wrong.seats[0].has_melded
    assert turn_back_refusal(wrong) is None
    back = undo_turn(wrong, 25.0)
    assert same_but_clock(back, before) and back.current.name == "Ann" and back.turn.number == 1
    assert back.seats[0].rack_count == 14 and not back.seats[0].has_melded and back.pool == before.pool
    # the turn goes on with the time it had left when it ended (20 s spent of 60), running from the undo
    assert back.turn.clock.elapsed(25.0) == 20.0 and not back.turn.clock.paused
    assert back.turn.clock.remaining(30.0) == 35.0
    assert back.turn_back is None and back.last is None
    right, rec, _ = end_turn(back, (), 31.0, seen=False)  # the right answer: she drew
    assert rec.player == "Ann" and right.seats[0].rack_count == 15 and right.current.name == "Ben"


def test_a_wrong_drew_answer_is_taken_back():
    """"Drew a tile" ends the turn on the game's own table (End turn, no camera): taken back too."""
    before = sabra()
    wrong, _, _ = end_turn(before, (), 10.0, seen=False)
    assert wrong.seats[0].rack_count == 15 and wrong.pool == before.pool - 1
    back = undo_turn(wrong, 12.0)
    assert same_but_clock(back, before)
    right, _ = end_turn_unseen(back, 13.0, 4, count_checked=True)
    assert right.seats[0].rack_count == 10 and right.pool == before.pool


def test_an_american_turn_comes_back_with_its_draw_and_its_discard_undone():
    g = american()
    wrong, _ = end_turn_unseen(g, 5.0, 3, discard=Tile.parse("K1"))
    assert wrong.seats[0].discard == Tile.parse("K1") and wrong.discards == R("K1")
    back = undo_turn(wrong, 6.0)
    assert same_but_clock(back, g)
    al = back.seats[0]
    assert al.discard is None and al.rack_count == 15 and back.discards == () and back.dead == 0
    assert back.turn.step is Step.MELD and back.turn.drew.source is DrawSource.POOL  # its draw still stands
    right, _, _ = end_turn(back, (), 7.0, discard=Tile.parse("K2"), seen=False)
    assert right.seats[0].discard == Tile.parse("K2") and right.seats[0].rack_count == 14


def test_refused_once_the_next_player_has_drawn_and_allowed_again_once_the_draw_is_taken_back():
    g, _ = end_turn_unseen(american(), 5.0, 3, discard=Tile.parse("K1"))
    drew = draw(g, DrawSource.POOL)
    with pytest.raises(GameError, match=r"^Al's turn can no longer be taken back: Bo has drawn since \(take the "
                                        r"draw back first with Undo draw\)$"):
        undo_turn(drew, 6.0)
    assert undo_turn(undo_draw(drew), 7.0).current.name == "Al"


def test_after_the_next_turn_ends_only_that_turn_goes_back_and_only_once():
    g, _ = end_turn_unseen(sabra(), 5.0, 3)
    g, _, _ = end_turn(g, (), 8.0, seen=False)  # Ben drew
    back = undo_turn(g, 9.0)
    assert back.current.name == "Ben" and back.seats[1].rack_count == 14 and back.seats[0].rack_count == 11
    with pytest.raises(GameError, match="^Ann's turn can no longer be taken back$"):  # one turn, not two
        undo_turn(back, 10.0)


def test_a_turn_the_camera_judged_stands():
    g, _, _ = end_turn(sabra(), T("R10 R11 R12"), 5.0)
    assert g.turn_back is None
    with pytest.raises(GameError, match=r"^the camera saw Ann's turn and the rules judged it: what it saw stands"):
        undo_turn(g, 6.0)
    timed, _ = time_out(sabra(), (), 61.0)  # the clock ended it on the table the camera saw: a draw
    with pytest.raises(GameError, match="^the camera saw Ann's turn"):
        undo_turn(timed, 62.0)


@pytest.mark.parametrize("when, message", [
    ("no game", "no game yet: start one first"),
    ("first turn", "no turn has ended yet this hand"),
    ("counting", "the racks are being counted: a turn can be taken back only in play"),
    ("dealt", "hand 2 is dealt and has not started: no turn of it has ended"),
    ("finished", "the game is finished: start a new one"),
    ("time up", "Ann's turn can no longer be taken back: Ben's time has run out since"),
    ("table found", "Ann's turn can no longer be taken back: the camera has found the table since"),
])
def test_refused_saying_why(when, message):
    g, _ = end_turn_unseen(sabra(), 5.0, 3)
    g = {"no game": lambda: None,
         "first turn": sabra,
         "counting": lambda: call_rummikub(g, (), 6.0, count_checked=True)[0],
         "dealt": lambda: confirm_tally(call_rummikub(g, (), 6.0, count_checked=True)[0], 7.0, {"Ann": R("K5")}),
         "finished": lambda: finish_game(g, 6.0),
         "time up": lambda: time_out(g, (), 70.0, seen=False)[0],
         "table found": lambda: table_found(g, T("R10 R11 R12"), 6.0)[0]}[when]()
    assert turn_back_refusal(g).startswith(message)
    with pytest.raises(GameError, match="^" + message.replace("(", r"\(")):
        undo_turn(g, 9.0)


def test_a_rummikub_taken_back_leaves_the_turn_before_undoable():
    g, _ = end_turn_unseen(sabra(), 5.0, 3)
    count, _, _ = call_rummikub(g, (), 6.0, count_checked=True)
    assert undo_turn(cancel_tally(count, 7.0), 8.0).current.name == "Ann"


def test_a_clock_that_had_run_out_stays_stopped_so_end_turn_asks_again():
    g, _ = time_out(sabra(), (), 61.0, seen=False)
    assert g.turn.time_up is not None
    ended, _ = end_turn_unseen(g, 70.0, 3)
    back = undo_turn(ended, 80.0)
    assert back.turn.time_up is not None and back.turn.clock.paused and back.current.name == "Ann"
    assert time_out(back, (), 200.0, seen=False) is None  # it is not timed out a second time


def test_what_the_players_said_since_stays():
    """The rules changed, the trump said and another player's typed rack are no turn's doing."""
    g, _ = end_turn_unseen(american(), 5.0, 3, discard=Tile.parse("K1"))
    g = set_rack(set_trump(g, Tile.parse("R7")), "Bo", R("O1 O2 O3"))
    g = change_rules(g, find_variant("american", turn_time_limit=90))
    back = undo_turn(g, 6.0)
    assert back.trump == Tile.parse("R7") and back.seats[1].rack == R("O1 O2 O3")
    assert back.pending is not None and back.pending.turn_time_limit == 90


def test_the_first_turn_of_a_hand_taken_back_can_take_the_hand_back_again():
    g, _, _ = call_rummikub(sabra(), T("R10 R11 R12"), 5.0, count_checked=True)
    dealt = confirm_tally(g, 6.0, {"Ben": R("K5")})
    played = start_hand(dealt, 7.0)
    assert played.undo is not None
    g, _ = end_turn_unseen(played, 8.0, 3)
    assert g.undo is None
    back = undo_turn(g, 9.0)
    assert back.undo is not None and back.status is Status.PLAYING and back.hand == 2


def test_kept_in_the_stored_game_and_a_game_saved_before_still_loads():
    g, _ = end_turn_unseen(american(), 5.0, 3, discard=Tile.parse("K1"))
    doc = to_dict(g)
    assert doc["turn_back"]["turn"]["seat"] == 0 and doc["turn_back"]["turn_back"] is None
    assert from_dict(doc) == g and undo_turn(from_dict(doc), 6.0) == undo_turn(g, 6.0)
    del doc["turn_back"]  # as an older version saved it
    with pytest.raises(GameError, match="^Al's turn can no longer be taken back$"):
        undo_turn(from_dict(doc), 6.0)
