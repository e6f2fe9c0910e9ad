"""What the game knows of the hand at its count, used by the rules (rules.game_tally): an International
winner who melded earlier cannot win on foot or closed, a first turn's closed hand is a Little Blitz (the
hand dealt a Grand Blitz), the trump's twin on a rack entered earns its bonus, the scored hand keeps how
it was won, and counts the game's own record says are impossible are asked about (found playing
International, American and Sabra games on phones)."""

from __future__ import annotations

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_state import CountDoubt, DrawSource, GameError, Status
from rules.game_tally import call_rummikub, confirm_tally, loser_preview, set_tally_melded, set_tally_rack
from rules.game_win import closed_preview, first_turn, set_tally_win, trump_holders, win_preview
from rules.game_turns import draw, end_turn, end_turn_unseen, start_game
from rules.options import find_variant
from rules.tiles import Tile, parse_tiles

from test_game_closed_preview import round_played

FOUR_COLOURS = "K1 K2 K3 K4 B5 B6 B7 O8 O9 O10 R11 R12 R13 J"  # the report's hand: Four colours with 1 joker
NAMES = ["Ann", "Ben", "Cid", "Dee"]


def R(text: str):
    return tuple(parse_tiles(text))


def T(code: str) -> Tile:
    return Tile.parse(code)


def cid_melded_then_went_out():
    """International, 4 players (play goes Ann, Dee, Cid, Ben), no camera: Cid places 6 tiles (Melded =
    yes), turns go round, Cid draws and calls Rummikub! (the count overruled) with his final discard J."""
    g = start_game(NAMES, find_variant("international"), 0.0)
    g, _, _ = end_turn(g, (), 1.0, discard=T("O3"))  # Ann, the starter, discards her 15th tile
    g, _, _ = end_turn(draw(g, DrawSource.POOL), (), 2.0, discard=T("O4"))  # Dee
    assert g.current.name == "Cid"
    g, _ = end_turn_unseen(draw(g, DrawSource.POOL), 3.0, 6, discard=T("K1"))
    assert g.seats[2].has_melded
    for i in range(3):  # Ben, Ann, Dee: each discards another tile (the box holds two of each)
        g, _, _ = end_turn(draw(g, DrawSource.POOL), (), 4.0 + i, discard=T(f"O{5 + i}"))
    g, _, _ = call_rummikub(draw(g, DrawSource.POOL), (), 8.0, discard=T("J"), count_checked=True)
    assert g.tally.winner == "Cid"
    for name, rack in (("Ann", "K9"), ("Ben", "K8"), ("Dee", "K7")):
        g = set_tally_rack(g, name, R(rack))
    return g


# --- a Foot or Closed win melds the whole hand at once -------------------------------

@pytest.mark.parametrize("win, words", [
    ("closed", 'Cid melded earlier this hand, so cannot win closed \\(International rules: "Closed: This is a win '
               'in which you meld all 14 tiles at once"\\)'),
    ("foot", 'Cid melded earlier this hand, so cannot go out on foot \\(International rules: "Foot: ... you meld '
             '14 tiles at once and discard your 15th tile"\\)'),
])
def test_a_winner_who_melded_earlier_cannot_win_on_foot_or_closed(win, words):
    g = cid_melded_then_went_out()
    details = {"win": win, "hand": R(FOUR_COLOURS)} if win == "closed" else {"win": win}
    with pytest.raises(GameError, match=words):
        set_tally_win(g, **details)
    with pytest.raises(GameError, match=words):
        win_preview(g, **details)
    with pytest.raises(GameError, match=words):
        confirm_tally(g, 9.0, **details)
    assert loser_preview(g, "Ann", R("K9"), False, win, hand=R(FOUR_COLOURS)) is None
    if win == "closed":
        with pytest.raises(GameError, match=words):
            closed_preview(g, R(FOUR_COLOURS))
    # an Open win is his, as the game knows it (doubled by the joker discard; nobody else melded)
    assert confirm_tally(g, 9.0).hands[-1].scores == (-200, -200, 400, -200)


def test_the_players_correct_the_winners_meld_first_and_then_it_is_scored():
    g = cid_melded_then_went_out()
    g = set_tally_melded(g, "Cid", False)  # he had not: the count of "placed 6" was a slip
    g = set_tally_win(g, win="closed", hand=R(FOUR_COLOURS))
    assert win_preview(g)["winner_score"] == 1600
    assert confirm_tally(g, 9.0, melded={"Ann": True, "Ben": True, "Dee": True}).hands[-1].scores[2] == 1600
    # said to have melded while a Closed win is entered: refused, change the win first
    with pytest.raises(GameError, match="Cid melded earlier this hand, so cannot win closed"):
        set_tally_melded(g, "Cid", True)


def test_in_other_games_the_winner_has_melded():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True)
    with pytest.raises(GameError, match="Ann went out, so has melded"):
        set_tally_melded(g, "Ann", False)


# --- Little Blitz and Grand Blitz -----------------------------------------------------

def ann_out_on_her_first_turn(**options):
    """Ann, the starter, calls Rummikub! on her very first turn with the final discard O2."""
    g = start_game(["Ann", "Ben", "Cid"], find_variant("international", **options), 0.0, trump=T("R7"))
    g, _, _ = call_rummikub(g, (), 1.0, discard=T("O2"), count_checked=True)
    return set_tally_rack(set_tally_rack(g, "Ben", R("K9")), "Cid", R("B2"))


def test_a_closed_hand_laid_on_the_first_turn_is_a_little_blitz():
    g = set_tally_win(ann_out_on_her_first_turn(), win="closed", hand=R(FOUR_COLOURS))
    assert first_turn(g)
    assert closed_preview(g) == {"type": 39, "name": "Little Blitz", "jokers": 1, "points": 1400,
                                 "winner_score": 1400}
    scored = confirm_tally(g, 2.0, melded={"Ben": False, "Cid": False})
    assert scored.hands[-1].scores == (1400, -1400, -1400)
    assert (scored.hands[-1].closed_type, scored.hands[-1].closed_jokers) == (39, 1)


def test_on_a_later_turn_the_same_hand_is_what_its_tiles_make():
    g = start_game(["Ann", "Ben", "Cid"], find_variant("international"), 0.0)
    g, _, _ = call_rummikub(round_played(g), (), 1.0, discard=T("O2"), count_checked=True)
    g = set_tally_win(g, win="closed", hand=R(FOUR_COLOURS))
    assert not first_turn(g) and closed_preview(g)["name"] == "Four colours"
    # a Blitz sent as a hand type where the game knows it was none is refused
    with pytest.raises(GameError, match="Little Blitz is 14 tiles in sets on the winner's first turn"):
        confirm_tally(set_tally_win(g, hand=None), 2.0, {"Ben": R("K9"), "Cid": R("B2")}, hand_type=39, jokers=1)


def ben_out_on_his_first_turn(source: DrawSource, discard: str):
    """Ben (not the starter) draws on his first turn and goes out closed, discarding ``discard``."""
    g = start_game(["Ann", "Ben"], find_variant("international"), 0.0, trump=T("R7"))
    g, _, _ = end_turn(g, (), 1.0, discard=T("O2"))  # Ann's discard: the tile Ben may take
    g, _, _ = call_rummikub(draw(g, source), (), 2.0, discard=T(discard), count_checked=True)
    return set_tally_win(set_tally_rack(g, "Ann", R("K9")), win="closed", hand=R(FOUR_COLOURS))


def test_the_hand_dealt_is_a_grand_blitz_where_the_game_knows_it():
    dealt = ben_out_on_his_first_turn(DrawSource.DISCARD, "O2")  # took Ann's O2 and discarded it again
    assert closed_preview(dealt)["name"] == "Grand Blitz" and closed_preview(dealt)["points"] == 1800
    other = ben_out_on_his_first_turn(DrawSource.DISCARD, "K5")  # kept O2: not the hand dealt
    assert closed_preview(other)["name"] == "Little Blitz"
    with pytest.raises(GameError, match="cannot be the hand dealt \\(Grand Blitz\\): Ben drew O2 this turn and "
                                        "discarded K5"):
        set_tally_win(other, original_hand=True)


def test_from_the_pool_only_the_players_know_it_and_the_starter_never_has_one():
    g = ben_out_on_his_first_turn(DrawSource.POOL, "K5")
    assert closed_preview(g)["name"] == "Little Blitz"
    said = set_tally_win(g, original_hand=True)
    assert closed_preview(said)["name"] == "Grand Blitz"
    assert confirm_tally(said, 3.0, melded={"Ann": True}).hands[-1].scores == (-9, 1800)
    starter = set_tally_win(ann_out_on_her_first_turn(), win="closed", hand=R(FOUR_COLOURS))
    with pytest.raises(GameError, match='Ann started the hand \\(International rules: Grand Blitz is "not available for '
                                        'first player"\\)'):
        set_tally_win(starter, original_hand=True)


# --- the trump's twin -------------------------------------------------------------------

def test_a_rack_holding_the_trumps_twin_earns_the_bonus():
    g = ann_out_on_her_first_turn(trump_bonus=50)
    g = set_tally_rack(g, "Ben", R("R7 K9"))  # the trump is R7: Ben holds its twin
    assert trump_holders(g) == ("Ben",)
    assert loser_preview(g, "Ben", R("R7 K9"), True, "open") == -16 + 50
    scored = confirm_tally(g, 2.0, melded={"Ben": True, "Cid": True})
    assert scored.hands[-1].scores == (100, -16 + 50, -2)
    assert (scored.hands[-1].trump_holders, scored.hands[-1].trump_bonus) == (("Ben",), 50)


def test_the_winners_closed_hand_holding_the_twin_earns_it_too():
    hand = "R5 R6 R7 K1 K2 K3 K4 B5 B6 B7 O8 O9 O10 O11"  # holds R7; the trump R7 still lies face up
    g = ann_out_on_her_first_turn(trump_bonus=50)
    g = set_tally_win(g, win="closed", hand=R(hand))
    assert trump_holders(g) == ("Ann",) and win_preview(g)["trump_bonus"] == 50
    assert win_preview(g)["winner_score"] == win_preview(g)["points"] + 50
    without = ann_out_on_her_first_turn()  # the bonus not agreed: nobody
    assert trump_holders(set_tally_win(without, win="closed", hand=R(hand))) == ()


# --- the scored hand keeps how it was won ------------------------------------------------

def test_the_scored_hand_keeps_how_it_was_won_and_an_older_game_still_loads():
    g = cid_melded_then_went_out()
    g = set_tally_win(set_tally_melded(g, "Cid", False), win="closed", hand=R(FOUR_COLOURS))
    h = confirm_tally(g, 9.0).hands[-1]
    assert (h.discard, h.win, h.hand, h.closed_type, h.closed_jokers, h.joker_discard) == \
        (T("J"), "closed", R(FOUR_COLOURS), 13, 1, True)
    done = confirm_tally(g, 9.0)
    assert from_dict(to_dict(done)) == done
    doc = to_dict(done)
    for key in ("discard", "win", "hand", "closed_type", "closed_jokers", "joker_discard", "trump_holders",
                "trump_bonus"):
        del doc["hands"][-1][key]  # as an older version stored it
    old = from_dict(doc).hands[-1]
    assert (old.discard, old.win, old.closed_type, old.trump_holders) == (None, None, None, ())
    assert old.scores == h.scores


# --- counts the game's record says cannot be --------------------------------------------------

def test_a_rack_of_more_tiles_than_the_count_is_asked_about():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True)
    big = R(" ".join(f"{c}{n}" for c in "KBOR" for n in range(1, 11)) + " K11 K12")  # 42 tiles
    with pytest.raises(CountDoubt, match="42 tiles typed for Ben's rack, but by the count Ben holds 14") as asked:
        set_tally_rack(g, "Ben", big)
    assert asked.value.details["ask"]["send"] == {"count_checked": True}
    with pytest.raises(CountDoubt):
        confirm_tally(g, 2.0, {"Ben": big})
    assert confirm_tally(g, 2.0, {"Ben": big}, count_checked=True).status is Status.DEALING
    assert set_tally_rack(g, "Ben", R("K5 K6")).tally.racks[1] == R("K5 K6")  # fewer: a meld the count missed


def test_racks_the_box_cannot_hold_together_name_whose_they_are():
    g = start_game(["Ann", "Ben", "Cid"], find_variant("sabra"), 0.0)
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True)
    g = set_tally_rack(set_tally_rack(g, "Ben", R("R5 R5 J")), "Cid", R("R5 J J"))
    with pytest.raises(GameError, match="more copies than the box holds: 3 x R5 \\(Ben 2, Cid 1\\), 3 x J "
                                        "\\(Ben 1, Cid 2\\): the standard 106-tile box holds 2 of each number "
                                        "tile and 2 jokers; correct those racks"):
        confirm_tally(g, 2.0)


@pytest.mark.parametrize("placed, tiles, why", [
    (1, "", "1 tile cannot be one"),
    (None, "R1 R2", "2 tiles cannot be one"),
    (None, "R1 R2 R3", "R1 R2 R3 make sets worth 6 points at most"),
])
def test_a_first_meld_no_camera_saw_must_be_able_to_be_one(placed, tiles, why):
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    named = R(tiles) if tiles else ()
    with pytest.raises(CountDoubt, match=f"Ann has not melded yet by the game's record, and a first meld is sets "
                                         f"of 3 or more tiles worth 30 points: {why}"):
        end_turn_unseen(g, 1.0, placed, tiles=named)
    g, _ = end_turn_unseen(g, 1.0, placed, tiles=named, count_checked=True)  # she had melded before
    assert g.seats[0].has_melded and "first meld" not in g.last.note


def test_a_first_meld_given_as_a_count_says_it_cannot_be_checked():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _ = end_turn_unseen(g, 1.0, tiles=R("R10 R11 R12"))  # 33 points: a first meld
    assert g.last.note == "placed R10 R11 R12 (not checked: no camera saw the table)"
    g, _ = end_turn_unseen(g, 2.0, 4)
    assert g.last.note.endswith("; a count cannot show a first meld's 30 points)")
