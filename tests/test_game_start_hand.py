"""Start hand with tiles still on the table (rules.game_deal.start_hand): a hand starts from an empty table,
so the last hand's tiles left there are asked about, and when the players start anyway they are the table
the first turn starts from, never the first player's placement."""

from __future__ import annotations

import pytest

from rules.game_deal import TableNotClear, start_hand
from rules.game_turns import judge, time_out
from test_game_fixes import T, scored_sabra_hand

OLD = T("R10 R11 R12 | K1 K2 K3 K4 K5 | O7 O8 O9 O10 O11")  # the scored hand's 13 tiles


def test_tiles_on_the_table_at_start_hand_are_asked_about():
    g = scored_sabra_hand()
    with pytest.raises(TableNotClear) as asked:
        start_hand(g, 20.0, table=OLD)
    assert asked.value.tiles == 13
    assert str(asked.value).startswith("clear the table first: the camera still sees 13 tiles on it")
    assert asked.value.details == {"ask": {"question": asked.value.question, "send": {"table_checked": True}}}
    assert "Start the hand anyway, taking those 13 tiles as lying there before it" in asked.value.question


def test_started_anyway_the_tiles_count_for_nobody():
    """The defect: all 13 counted as the starter's placement, NOT LEGAL so far, and a time-out's penalty."""
    g = start_hand(scored_sabra_hand(), 20.0, table=OLD, table_checked=True)
    assert g.turn.table_before == OLD and g.current.name == "Ben"
    assert not judge(g, OLD).changed
    g2, rec = time_out(g, OLD, 20.0 + 61)
    assert rec.penalty == 0 and g2.last.note == "time is up with nothing placed: draws a tile"


def test_an_empty_table_starts_the_hand_as_before():
    g = start_hand(scored_sabra_hand(), 20.0, table=())
    assert g.turn.table_before == () and not g.turn.clock.paused
