"""Rules fixes from the second hands-on report (/tmp/explore_web2/REPORT.md): "Rummikub!" checks the
companion's own rack count (item 4)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_state import DrawSource, GameError, Status, StillHolds, replace_seat
from rules.game_tally import call_rummikub
from rules.game_turns import draw, end_turn, start_game
from rules.options import find_variant
from rules.tiles import Tile
from test_game_fixes import T


def holding(g, name: str, count: int):
    i = g.seat_of(name)
    return replace(g, seats=replace_seat(g.seats, i, replace(g.seats[i], rack_count=count)))


def sabra_cid_on():
    g = start_game(["Ann", "Ben", "Cid"], find_variant("sabra"), 0.0)
    g, _, _ = end_turn(g, (), 1.0)
    g, _, _ = end_turn(g, (), 2.0)
    assert g.current.name == "Cid" and g.current.rack_count == 14
    return g


def test_rummikub_from_a_player_who_still_holds_tiles_by_the_count_is_refused():
    g = sabra_cid_on()
    table = T("K5 K6 K7 K8 K9 K10")  # 45 points: a legal first meld, 8 tiles left of 14
    with pytest.raises(StillHolds, match="^by the count Cid still holds 8 tiles") as refused:
        call_rummikub(g, table, 3.0)
    assert isinstance(refused.value, GameError)
    assert refused.value.details == {"still_holds": {"player": "Cid", "tiles": 8}}
    with pytest.raises(GameError, match="by the count Cid still holds 14 tiles"):
        call_rummikub(g, (), 3.0)  # nothing placed at all
    with pytest.raises(GameError, match="by the count Ann still holds 15 tiles"):
        call_rummikub(g, (), 3.0, winner="Ann")  # another player named: as the count stands (Ann drew)
    # the count can drift (a meld the camera missed, no camera): the players say so
    done, rec, verdict = call_rummikub(g, table, 3.0, count_checked=True)
    assert done.status is Status.TALLY and done.tally.winner == "Cid" and verdict.legal and rec is not None


def test_a_player_the_count_says_is_out_may_call_rummikub():
    g = holding(sabra_cid_on(), "Cid", 6)
    done, _, _ = call_rummikub(g, T("K5 K6 K7 K8 K9 K10"), 3.0)  # places his last 6
    assert done.status is Status.TALLY and done.tally.winner == "Cid"
    assert call_rummikub(holding(g, "Ann", 0), (), 3.0, winner="Ann")[0].tally.winner == "Ann"
    # the pool running out names no winner: nobody's rack count matters (the pool's is asked about)
    assert call_rummikub(g, (), 3.0, pool_empty=True, count_checked=True)[0].status is Status.TALLY
    with pytest.raises(GameError, match="1 tile:"):
        call_rummikub(holding(g, "Cid", 7), T("K5 K6 K7 K8 K9 K10"), 3.0)


def test_american_the_winner_keeps_only_the_final_discard():
    """004_*: Al took the trump and called Rummikub! with 8 tiles left (12 after the trump, 3 melded, 1
    discarded): refused, so the trump may not be taken by anyone who simply calls Rummikub!."""
    g = start_game(["Al", "Bo"], find_variant("american"), 0.0, trump=Tile.parse("R7"))
    g = draw(holding(g, "Al", 11), DrawSource.TRUMP)
    assert g.current.rack_count == 12
    melded = T("K10 K11 K12")
    k1 = Tile.parse("K1")
    with pytest.raises(StillHolds, match="by the count Al still holds 8 tiles"):
        call_rummikub(g, melded, 5.0, discard=k1)
    assert call_rummikub(g, melded, 5.0, discard=k1, count_checked=True)[0].status is Status.TALLY
    out = draw(holding(start_game(["Al", "Bo"], find_variant("american"), 0.0), "Al", 3), DrawSource.POOL)
    assert call_rummikub(out, melded, 5.0, discard=k1)[0].tally.winner == "Al"  # 4 = 3 melded + the discard
