"""International, a Closed win: GET /api/tally/points shows the closed hand's type and value, and what the
winner and each loser score under it, before Confirm (Flask test client, fake table and clock)."""

from __future__ import annotations

import pytest

from test_game_closed_preview import FOUR_COLOURS_JOKER, ROYAL
from test_webui_round2 import ann_goes_out


@pytest.fixture
def live():
    from webui_fakes import FakeLive

    return FakeLive("")


def points(client, **query) -> dict:
    res = client.get("/api/tally/points", query_string=query)
    assert res.status_code == 200, res.get_json()
    return res.get_json()


def test_the_closed_hand_and_every_score_before_confirm_are_what_confirm_gives(client, live):
    ann_goes_out(client, live, ("Ann", "Ben", "Cid"), rules="international", later=True)
    client.post("/api/tally/rack", json={"player": "Ben", "rack": "K5 O12", "melded": True})
    client.post("/api/tally/rack", json={"player": "Cid", "rack": "B2"})  # never melded
    win = {"win": "closed", "hand": FOUR_COLOURS_JOKER, "joker_discard": "true"}
    d = points(client, rack="", **win)
    assert d["closed"] == {"type": 13, "name": "Four colours", "jokers": 1, "points": 800, "winner_score": 1600}
    ben = points(client, rack="K5 O12", player="Ben", **win)["score"]
    cid = points(client, rack="B2", player="Cid", **win)
    assert cid["closed"]["points"] == 800 and cid["melded"] is False
    res = client.post("/api/tally/confirm", json={"extra": {"win": "closed", "hand": FOUR_COLOURS_JOKER,
                                                            "joker_discard": True}})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["result"]["scores"] == {"Ann": 1600, "Ben": ben, "Cid": cid["score"]} \
        == {"Ann": 1600, "Ben": -30, "Cid": -1600}


@pytest.mark.parametrize("hand, problem", [
    ("R1 R2 X3", "the closed hand: 'X3' is not a tile"),
    ("R1 R2 R3", "the closed hand: a closed hand has 14 tiles, not 3"),
    ("K1 K5 B9 O2 R7 K11 B3 O13 R4 K8 B6 O10 R12 K2",
     "the closed hand: the closed hand's 14 tiles make none of the 40 hand types"),
])
def test_a_closed_hand_that_scores_nothing_says_why_and_the_racks_still_preview(client, live, hand, problem):
    ann_goes_out(client, live, ("Ann", "Ben"), rules="international")
    d = points(client, rack="K5", player="Ben", melded="false", win="closed", hand=hand)
    assert d["closed"] == {"problem": problem} and d["score"] is None and d["points"] == 5
    assert points(client, rack="K5", player="Ben", melded="true", win="closed", hand=hand)["score"] == -5


def test_no_closed_preview_without_a_closed_win_or_a_hand(client, live):
    ann_goes_out(client, live, ("Ann", "Ben"), rules="international")
    assert "closed" not in points(client, rack="K5", player="Ben", win="open", hand=ROYAL)
    assert "closed" not in points(client, rack="K5", player="Ben", win="closed", hand=" ")
    assert points(client, rack="K5", player="Ben", melded="false", win="closed")["score"] is None
