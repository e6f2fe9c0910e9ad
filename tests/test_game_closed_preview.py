"""International, a Closed win: the hand's type and value, and what everyone scores under it, are
previewed before Confirm (rules.game_tally.closed_preview, loser_preview) exactly as the confirm scores."""

from __future__ import annotations

import pytest

from rules.game_state import DrawSource, GameError, Status, Step
from rules.game_tally import call_rummikub, confirm_tally, loser_preview, set_tally_rack
from rules.game_win import closed_preview
from rules.game_turns import draw, end_turn, start_game
from rules.options import find_variant
from rules.tiles import Tile, parse_tiles

ROYAL = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1"
FOUR_COLOURS_JOKER = "K1 K2 K3 K4 B4 B5 B6 B7 O7 O8 O9 R10 R11 J"


def R(text: str):
    return tuple(parse_tiles(text))


def round_played(g, now: float = 0.0):
    """Every player has had a turn (each discarding another tile, nothing melded): the next turn is nobody's first,
    so a Closed hand is judged by its tiles alone (a first turn's is also a Little Blitz)."""
    for i in range(len(g.seats)):
        if g.turn.drew is None and g.turn.step is not Step.MELD:
            g = draw(g, DrawSource.POOL)
        g, _, _ = end_turn(g, g.turn.table_before, now + i * 0.1, discard=Tile.parse(f"O{3 + i}"))
    return draw(g, DrawSource.POOL)


def counting(rules="international"):
    """Ann (the starter) went out on her second turn with her final discard, the count overruled."""
    g = round_played(start_game(["Ann", "Ben", "Cid"], find_variant(rules), 0.0))
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True, discard=Tile.parse("K13"))
    assert g.status is Status.TALLY and g.tally.winner == "Ann"
    return g


@pytest.mark.parametrize("hand, name, points", [(ROYAL, "Royal", 2400), (FOUR_COLOURS_JOKER, "Four colours", 800)])
@pytest.mark.parametrize("joker_discard", [False, True])
def test_the_preview_is_what_the_confirm_scores(hand, name, points, joker_discard):
    g = set_tally_rack(set_tally_rack(counting(), "Ben", R("K5 O12")), "Cid", R("B2"))
    preview = closed_preview(g, R(hand), joker_discard)
    double = 2 if joker_discard else 1
    assert (preview["name"], preview["points"], preview["winner_score"]) == (name, points, points * double)
    melded = {"Ben": True, "Cid": False}  # Ben pays his rack, Cid (never melded) the closed hand's points
    losers = {n: loser_preview(g, n, g.tally.racks[g.seat_of(n)], m, "closed", joker_discard, hand=R(hand))
              for n, m in melded.items()}
    assert losers == {"Ben": -15 * double, "Cid": -points * double}
    scored = confirm_tally(g, 2.0, melded=melded, win="closed", hand=R(hand), joker_discard=joker_discard)
    assert scored.hands[-1].scores == (preview["winner_score"], losers["Ben"], losers["Cid"])


def test_without_the_hand_a_loser_who_never_melded_has_no_preview_yet():
    g = counting()
    assert loser_preview(g, "Cid", R("B2"), False, "closed", False) is None
    assert loser_preview(g, "Cid", R("B2"), True, "closed", False) == -2


@pytest.mark.parametrize("hand, words", [
    ("R1 R2 R3", "the closed hand: a closed hand has 14 tiles, not 3"),
    ("K1 K5 B9 O2 R7 K11 B3 O13 R4 K8 B6 O10 R12 K2", "the closed hand: the closed hand's 14 tiles make none of the 40"),
    ("R5 R5 R5 R1 R2 R3 R4 R6 R7 R8 R9 R10 R11 R12", "the closed hand: more copies than the box holds: 3 x R5"),
])
def test_a_hand_that_scores_nothing_says_why(hand, words):
    g = counting()
    with pytest.raises(GameError, match=words):
        closed_preview(g, R(hand), False)
    assert loser_preview(g, "Cid", R("B2"), False, "closed", False, hand=R(hand)) is None


def test_only_an_international_winner_wins_closed():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _, _ = call_rummikub(g, (), 1.0, count_checked=True)
    with pytest.raises(GameError, match="International"):
        closed_preview(g, R(ROYAL), False)
