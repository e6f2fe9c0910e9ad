"""International: how the winner went out (open, foot or closed, the closed hand, a joker as the final
discard) is the game's, kept in the tally as the racks are (rules.game_win.set_tally_win): the confirm
and the previews score what was entered, whoever confirms; one given to the confirm replaces it."""

from __future__ import annotations

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_state import DrawSource, GameError
from rules.game_tally import call_rummikub, confirm_tally, loser_preview, set_tally_rack, undo_last_hand
from rules.game_win import closed_preview, set_tally_win, win_entered
from rules.game_turns import draw, end_turn, start_game
from rules.options import find_variant
from rules.tiles import Tile, parse_tiles

from test_game_closed_preview import FOUR_COLOURS_JOKER, ROYAL, round_played


def R(text: str):
    return tuple(parse_tiles(text))


def counting(rules="international", discard="K13", **kw):
    """Ann (the starter) went out on her second turn with ``discard``; Ben (melded) and Cid (never) hold
    racks."""
    g = round_played(start_game(["Ann", "Ben", "Cid"], find_variant(rules), 0.0))
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True, discard=Tile.parse(discard), **kw)
    return set_tally_rack(set_tally_rack(g, "Ben", R("K5 O12")), "Cid", R("B2"))


MELDED = {"Ben": True, "Cid": False}


def test_the_win_entered_is_what_the_confirm_scores_without_being_sent_again():
    g = set_tally_win(counting(), win="closed", hand=R(ROYAL), joker_discard=True)
    assert (g.tally.win, g.tally.hand, g.tally.joker_discard) == ("closed", R(ROYAL), True)
    assert win_entered(g) == {"win": "closed", "hand": R(ROYAL), "joker_discard": True}
    scored = confirm_tally(g, 2.0, melded=MELDED)  # nothing but the racks' owners' melds sent
    assert scored.hands[-1].scores == (4800, -30, -4800)


def test_the_details_are_entered_one_at_a_time_from_any_phone():
    g = set_tally_win(counting(), win="closed")
    g = set_tally_win(g, hand=R(FOUR_COLOURS_JOKER))
    assert win_entered(g) == {"win": "closed", "hand": R(FOUR_COLOURS_JOKER), "joker_discard": False}
    assert confirm_tally(g, 2.0, melded=MELDED).hands[-1].scores == (800, -15, -800)
    g = set_tally_win(g, win=None, hand=())  # cleared: not said (an Open win), no hand
    assert (g.tally.win, g.tally.hand) == (None, None) and win_entered(g)["win"] == "open"
    assert confirm_tally(g, 2.0, melded=MELDED).hands[-1].scores == (100, -15, -100)


def test_a_joker_discarded_doubles_unless_the_players_say_otherwise():
    g = counting(discard="J")
    assert win_entered(g)["joker_discard"] is True and g.tally.joker_discard is None
    assert confirm_tally(g, 2.0, melded=MELDED).hands[-1].scores == (200, -30, -200)
    g = set_tally_win(g, joker_discard=False)
    assert win_entered(g)["joker_discard"] is False
    assert confirm_tally(g, 2.0, melded=MELDED).hands[-1].scores == (100, -15, -100)


def test_a_detail_given_to_the_confirm_replaces_the_entered_one_and_a_blank_one_leaves_it():
    g = set_tally_win(counting(), win="closed", hand=R(ROYAL))
    assert confirm_tally(g, 2.0, melded=MELDED, win="foot").hands[-1].scores == (200, -15, -100)
    assert confirm_tally(g, 2.0, melded=MELDED, win=None, hand=None, joker_discard=None).hands[-1].scores \
        == (2400, -15, -2400)
    assert confirm_tally(g, 2.0, melded=MELDED, joker_discard=True).hands[-1].scores == (4800, -30, -4800)
    # a hand (or hand type) sent without a win is a Closed win, as before the win was kept
    plain = counting()
    assert confirm_tally(plain, 2.0, melded=MELDED, hand=R(FOUR_COLOURS_JOKER)).hands[-1].scores \
        == (800, -15, -800)
    assert confirm_tally(plain, 2.0, melded=MELDED, hand_type=24).hands[-1].scores == (2400, -15, -2400)


def test_taking_the_hand_back_shows_the_win_it_was_scored_with():
    g = set_tally_win(counting(), win="closed", hand=R(ROYAL), joker_discard=True)
    again = undo_last_hand(from_dict(to_dict(confirm_tally(g, 2.0, melded=MELDED))), 3.0)
    assert (again.tally.win, again.tally.hand, again.tally.joker_discard) == ("closed", R(ROYAL), True)
    # a detail given to the confirm was entered, as a rack given to it is
    sent = undo_last_hand(confirm_tally(g, 2.0, melded=MELDED, win="foot", joker_discard=False), 3.0)
    assert (sent.tally.win, sent.tally.hand, sent.tally.joker_discard) == ("foot", R(ROYAL), False)


def test_the_win_survives_a_restart_and_an_older_game_still_loads():
    g = set_tally_win(counting(), win="closed", hand=R(ROYAL), joker_discard=False)
    assert from_dict(to_dict(g)) == g
    doc = to_dict(g)
    for key in ("win", "hand", "joker_discard"):
        del doc["tally"][key]
    old = from_dict(doc)
    assert (old.tally.win, old.tally.hand, old.tally.joker_discard) == (None, None, None)
    assert win_entered(old) == {"win": "open", "hand": None, "joker_discard": False}
    assert set_tally_win(old, win="foot").tally.win == "foot"


def test_the_previews_read_the_win_entered():
    g = set_tally_win(counting(), win="closed", hand=R(ROYAL), joker_discard=True)
    assert closed_preview(g)["winner_score"] == 4800
    assert loser_preview(g, "Cid", R("B2"), False) == -4800
    assert loser_preview(g, "Ben", R("K5 O12"), True) == -30
    # what this phone has typed (an Open win, no joker) still wins over it
    assert loser_preview(g, "Cid", R("B2"), False, "open", False) == -100
    assert loser_preview(g, "Cid", R("B2"), False, "closed", False, hand=()) is None  # a hand that scores nothing


@pytest.mark.parametrize("details, words", [
    ({"hand": R("R1 R2 R3")}, "the closed hand: a closed hand has 14 tiles, not 3"),
    ({"hand": R("K1 K5 B9 O2 R7 K11 B3 O13 R4 K8 B6 O10 R12 K2")},
     "the closed hand: the closed hand's 14 tiles make none of the 40 hand types"),
    ({"hand": R("R5 R5 R5 R1 R2 R3 R4 R6 R7 R8 R9 R10 R11 R12")},
     "the closed hand: more copies than the box holds: 3 x R5"),
    ({"hand": "R1 R2"}, "the closed hand: give its 14 tiles, not 'R1 R2'"),
    ({"win": "sideways"}, "unknown win 'sideways' \\(open, foot or closed\\)"),
    ({"joker_discard": "yes"}, "was the final discard a joker\\? say true or false, not 'yes'"),
    ({"trump": "R7"}, "unknown win detail\\(s\\): trump \\(say win, hand, joker_discard or original_hand\\)"),
])
def test_details_that_cannot_be_entered_are_refused_in_words(details, words):
    g = counting()
    with pytest.raises(GameError, match=words):
        set_tally_win(g, **details)


def test_the_confirm_refuses_a_hand_in_the_same_words_and_a_closed_win_without_one():
    g = counting()
    with pytest.raises(GameError, match="the closed hand: a closed hand has 14 tiles, not 3"):
        confirm_tally(g, 2.0, melded=MELDED, win="closed", hand=R("R1 R2 R3"))
    with pytest.raises(GameError, match="a Closed win needs the closed hand: enter the winner's 14 tiles"):
        confirm_tally(set_tally_win(g, win="closed"), 2.0, melded=MELDED)


def test_only_an_international_winner_has_a_win_to_enter():
    sabra = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    sabra, _, _ = call_rummikub(sabra, (), 1.0, count_checked=True)
    with pytest.raises(GameError, match="entered only in the International game"):
        set_tally_win(sabra, win="closed")
    assert win_entered(sabra) == {}
    g = start_game(["Ann", "Ben"], find_variant("international"), 0.0)
    g, _, _ = call_rummikub(g, (), 1.0, pool_empty=True, discard=Tile.parse("K3"),
                            count_checked=True)  # Ann drew the last tile
    with pytest.raises(GameError, match="nobody went out \\(the pool ran out\\), so there is no win to enter"):
        set_tally_win(g, win="open")
    assert win_entered(g) == {}


def test_the_trump_drawn_last_is_judged_by_the_win_entered():
    g = start_game(["Ann", "Ben"], find_variant("international"), 0.0, trump=Tile.parse("R7"))
    g, _, _ = end_turn(g, (), 1.0, discard=Tile.parse("K3"))
    g = draw(g, DrawSource.TRUMP)
    g, _, _ = call_rummikub(g, (), 2.0, discard=Tile.parse("K4"), count_checked=True)
    g = set_tally_rack(g, "Ann", R("K5"))
    with pytest.raises(GameError, match="Open win"):
        confirm_tally(g, 3.0)
    assert confirm_tally(set_tally_win(g, win="foot"), 3.0).hands[-1].scores == (-100, 200)
