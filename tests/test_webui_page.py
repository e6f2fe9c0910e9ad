"""What the page says and offers, through Flask's test client: no layout offered for a table whose sets are
all valid, names cleaned before they are compared, the CSV a spreadsheet opens, the rules New game shows."""

from __future__ import annotations

import pytest

from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


def start(client, players=("Ann", "Ben"), **extra):
    res = client.post("/api/game", json={"players": list(players), **extra})
    assert res.status_code == 201, res.get_json()
    return res.get_json()


def test_a_first_meld_too_low_offers_no_layout_and_says_the_sets_are_fine(client, live):
    start(client)
    client.post("/api/settings", json={"hint": True})
    live.set_table("K9 B9 O9")  # a valid group worth 27: the first meld needs 30
    body = client.post("/api/turn/end").get_json()
    assert body["verdict"]["legal"] is False
    state = body["state"]
    assert state["suggestion"] is None  # it would be the very table just refused
    fine = state["game"]["turn"]["attempt"]["sets_fine"]
    assert fine == ("The sets are all valid: the turn is refused for a first meld short of its points, "
                    "not for how the tiles are laid out.")
    assert state["preview"]["sets_fine"] == fine


def test_tiles_not_on_the_typed_rack_offer_no_layout(client, live):
    start(client)
    client.post("/api/settings", json={"hint": True})
    client.post("/api/rack", json={"player": "Ann", "rack": "R1 R2 R3 K4 K5 K6 B8 B9 B10 O1 O2 O3 J K13"})
    live.set_table("O11 O12 O13")
    state = client.post("/api/turn/end").get_json()["state"]
    assert state["suggestion"] is None
    fine = state["game"]["turn"]["attempt"]["sets_fine"]
    assert "tiles that were not on the player's rack" in fine and "O11" not in fine


def test_a_broken_set_still_gets_a_layout_and_no_sets_fine_line(client, live):
    live.set_table("R3 R4 R5 | K5 B5 O5")
    start(client)
    client.post("/api/settings", json={"hint": True})
    live.set_table("R3 R4 | R5 K5 B5 O5 | K10 K11 K12")
    state = client.post("/api/turn/end").get_json()["state"]
    assert state["game"]["turn"]["attempt"]["sets_fine"] is None
    assert ["K10", "K11", "K12"] in state["suggestion"]
