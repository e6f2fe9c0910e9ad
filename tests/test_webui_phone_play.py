"""Defects found by playing American, International and Sabra games on phones, through the web API (the
Flask test client, a fake live table and a fake clock; no test sleeps)."""

from __future__ import annotations

import pytest

from test_webui_fixes import score_a_hand, start, state
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


# --- the trump is taken only once it is known which tile it is -----------------------------

def test_took_the_trump_asks_for_the_tile_first(client):
    start(client, ["Al", "Bo"], rules="american")
    res = client.post("/api/turn/draw", json={"source": "trump"})
    assert res.status_code == 400
    assert res.get_json()["message"] == ("which tile is the trump? It was not entered: type it in Set trump "
                                         "(below the turn buttons), then take it")
    g = state(client)["game"]
    assert g["turn"]["phase"] == "draw" and g["trump_up"] and g["players"][0]["rack_count"] == 14
    assert client.post("/api/hand/trump", json={"trump": "R7"}).status_code == 200
    res = client.post("/api/turn/draw", json={"source": "trump"})
    assert res.status_code == 200 and res.get_json()["drew"] == {"source": "trump", "tile": "R7"}


# --- Pool empty: at the draw, and asked about while the pool holds tiles by the count --------

def test_pool_empty_with_tiles_in_the_pool_asks_and_goes_ahead_when_confirmed(client):
    g = start(client, ["Al", "Bo"], rules="american", trump="R7")["game"]
    assert g["turn"]["phase"] == "draw"
    res = client.post("/api/rummikub", json={"pool_empty": True})
    assert res.status_code == 400 and res.get_json()["pool_left"] == {"tiles": g["pool"]}
    assert res.get_json()["message"] == (f"by the count {g['pool']} tiles are still in the pool: if the count "
                                         "is wrong, call Pool empty anyway")
    assert state(client)["game"]["status"] == "playing"
    res = client.post("/api/rummikub", json={"pool_empty": True, "count_checked": True})
    assert res.status_code == 200 and res.get_json()["tally"]["pool_empty"]


# --- a discard the box cannot hold is refused ---------------------------------------------

def test_a_third_k13_discard_is_refused(client, clock):
    start(client, ["Al", "Bo"], rules="american", trump="R7")
    for n in range(3):
        assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
        res = client.post("/api/turn/end", json={"discard": "K13"})
        clock.advance(PRESS_GUARD_S)
        if n < 2:
            assert res.status_code == 200, res.get_json()
    assert res.status_code == 400 and res.get_json()["message"].startswith(
        "K13 cannot be discarded: the standard 106-tile box holds 2 of each tile, and 2 lie face up already")
    g = state(client)["game"]
    assert g["current"] == "Al" and g["turn"]["phase"] == "meld" and g["players"][0]["rack_count"] == 15


# --- rules saved while the next hand waits for its start apply to it --------------------------

def test_rules_saved_while_hand_2_is_dealt_apply_to_hand_2(client, live):
    start(client, ["Al", "Bo"], rules="american", trump="R7")
    score_a_hand(client, live, "Al", {"Bo": "K5"})
    assert state(client)["game"]["status"] == "dealing"
    res = client.post("/api/settings", json={"options": {"initial_meld": 30}})
    assert res.status_code == 200 and res.get_json()["applies"] == "now"
    assert res.get_json()["message"] == "Saved: hand 2 has not started, so it plays these rules."
    g = state(client)["game"]
    assert g["pending"] is None and g["rules"] == "American rules, 30-point first meld, no clock"
    assert "Hand 2 is dealt and has not started: it takes changed rules at once." in client.get("/settings").text
    res = client.post("/api/hand/start", json={})
    assert res.status_code == 200 and res.get_json()["options"]["initial_meld"] == 30


# --- time-outs: the American turn waits for its discard; with no camera the players say ------

def tick(client):
    client.application.extensions["companion"].tick()


def test_an_american_time_out_after_taking_the_trump(client, clock):
    start(client, ["Al", "Bo"], rules="american", trump="R7", options={"turn_time_limit": 60})
    assert client.post("/api/turn/draw", json={"source": "trump"}).status_code == 200
    clock.advance(61)
    tick(client)
    s = state(client)
    g = s["game"]
    assert g["current"] == "Al" and g["trump_up"] and g["turn"]["drew"] == {"source": "pool", "tile": None}
    assert g["turn"]["time_up"] and g["turn"]["phase_words"] == "time is up: discard now"
    assert s["clock"]["time_up"] and not s["clock"]["running"] and g["players"][0]["rack_count"] == 15
    assert client.post("/api/turn/draw", json={"source": "trump"}).get_json()["message"] == (
        "time is up: the draw stands; discard a tile to end the turn")
    res = client.post("/api/turn/end", json={"discard": "K3"})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["last"]["note"] == "time is up (the trump went back face up and a tile was drawn from the pool instead)"
    assert g["last"]["action"] == "timeout" and g["last"]["discard"] == "K3" and g["players"][0]["rack_count"] == 14
    assert g["current"] == "Bo" and not g["turn"]["time_up"] and g["clock"]["running"]
    clock.advance(PRESS_GUARD_S)
    assert client.post("/api/turn/draw", json={"source": "trump"}).status_code == 200  # face up for Bo


def test_with_no_camera_the_time_out_asks_what_the_turn_did(no_camera, clock):
    client = no_camera
    g = start(client, ["Ann", "Ben"], options={"turn_time_limit": 30})["game"]
    clock.advance(31)
    tick(client)
    s = state(client)
    assert s["game"]["current"] == "Ann" and s["game"]["turn"]["time_up"] and s["game"]["last"] is None
    assert s["game"]["pool"] == g["pool"] and s["game"]["turn"]["id"] == g["turn"]["id"]  # the question stays open
    res = client.post("/api/turn/unseen", json={"placed": 3, "turn": g["turn"]["id"]})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["current"] == "Ben" and g["players"][0]["rack_count"] == 11
    assert g["last"]["note"] == ("time is up: placed 3 tiles (not checked: no camera saw the table; "
                                 "a count cannot show a first meld's 30 points)")
    assert [r["action"] for r in client.get("/api/turns").get_json()] == ["unchecked"]


def test_a_trump_laid_and_not_out_in_time_is_put_back_for_the_trump_not_an_illegal_table(client, clock, live):
    """Al takes the trump and lays R7 R8 R9, a legal table, but time runs out before he goes out: the table
    goes back because the trump may be taken only to win at once, and the put-back card must not call the
    table illegal."""
    start(client, ["Al", "Bo"], rules="american", trump="R7", options={"turn_time_limit": 60})
    assert client.post("/api/turn/draw", json={"source": "trump"}).status_code == 200
    live.set_table("R7 R8 R9")
    clock.advance(61)
    tick(client)
    restore = state(client)["game"]["restore"]
    assert restore["player"] == "Al" and restore["penalty"] == 3 and restore["table_legal"] is True


def test_an_illegal_table_put_back_says_so(client, clock, live):
    start(client, ["Ann", "Ben"], options={"turn_time_limit": 60})
    live.set_table("R7 R8")
    clock.advance(61)
    tick(client)
    assert state(client)["game"]["restore"]["table_legal"] is False
