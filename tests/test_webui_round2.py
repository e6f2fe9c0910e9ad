"""Fixes from the second hands-on report (/tmp/explore_web2/REPORT.md): the Flask test client, a fake
live table and a fake clock (no test sleeps)."""

from __future__ import annotations

import pytest

from test_webui_fixes import start, state
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


# --- 1: a press a moment after another press ended the turn ---------------------------

@pytest.mark.parametrize("url, extra", [("/api/turn/end", {}), ("/api/pass", {}),
                                        ("/api/rummikub", {"pool_empty": True, "count_checked": True})])
@pytest.mark.parametrize("named", [True, False])
def test_a_press_a_moment_after_a_turn_ended_is_taken_for_that_turn(client, clock, url, extra, named):
    """Phone B presses 20-300 ms after phone A (it already shows Ben's turn), or one phone is tapped twice
    0.6 s apart: Ben's turn is not ended too; a press after the guard time is Ben's own."""
    g = start(client)["game"]
    pool = g["pool"]
    assert client.post("/api/turn/end", json={"turn": g["turn"]["id"]}).status_code == 200  # phone A
    ended = clock.t
    ben = state(client)["game"]["turn"]["id"]
    press = dict(extra, **({"turn": ben} if named else {}))
    for late in (0.0, 0.02, 0.3, 0.6, PRESS_GUARD_S - 0.01):
        clock.t = ended + late
        res = client.post(url, json=press)
        assert res.status_code == 409, (late, res.get_json())
        assert res.get_json()["message"].startswith(
            "Ben's turn began a moment ago: was that press for Ann's turn? Press again to ")
    now = state(client)["game"]
    assert now["current"] == "Ben" and now["status"] == "playing" and now["pool"] == pool - 1
    assert [t["player"] for t in client.get("/api/turns").get_json()] == ["Ann"]
    clock.t = ended + PRESS_GUARD_S  # pressed again: Ben's own press
    res = client.post(url, json=press)
    assert res.status_code == 200, res.get_json()
    after = res.get_json()["state"]["game"]
    assert (after["status"] == "tally") if extra else (after["current"] == "Cid")


def test_the_refusal_says_what_pressing_again_does(client, clock):
    start(client)
    client.post("/api/turn/end", json={})
    msg = client.post("/api/turn/end", json={}).get_json()["message"]
    assert msg == ("Ben's turn began a moment ago: was that press for Ann's turn? "
                   "Press again to end Ben's turn.")


def test_a_draw_a_moment_after_the_discard_is_refused_in_the_american_game(client, clock):
    start(client, ["Al", "Bo"], rules="american")
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
    clock.advance(5)
    assert client.post("/api/turn/end", json={"discard": "K1"}).status_code == 200
    clock.advance(0.3)
    res = client.post("/api/turn/draw", json={"source": "pool", "turn": state(client)["game"]["turn"]["id"]})
    assert res.status_code == 409 and res.get_json()["message"].endswith("Press again to draw for Bo.")
    assert state(client)["game"]["turn"]["phase"] == "draw"
    clock.advance(PRESS_GUARD_S)
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200


def test_a_turn_ended_by_the_clock_or_started_with_start_hand_needs_no_guard(client, clock, live):
    start(client, options={"turn_time_limit": 30})
    clock.advance(31)
    client.get("/api/state")
    client.application.extensions["companion"].tick()
    assert state(client)["game"]["current"] == "Ben"  # timed out: no press ended Ann's turn
    assert client.post("/api/turn/end", json={}).status_code == 200


# --- 2: while the next hand waits for its deal, no turn press works -------------------

def ann_goes_out(client, live, players=("Ann", "Ben"), table="", *, later: bool = False, **extra) -> dict:
    """Ann went out on the first turn (the count overruled), leaving ``table``: the count's state.
    American and International: with a final discard (after a draw, unless she starts with 15 tiles).
    ``later``: on her second turn, a round played first (each player discarding), so that her win is not a
    first turn's (International: no Little Blitz)."""
    start(client, list(players), **extra)
    if later:
        clock = client.application.extensions["companion"].session.now
        for i, _ in enumerate(players):  # each discards another tile: the box holds two of each
            if state(client)["game"]["turn"]["phase"] == "draw":
                assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
            assert client.post("/api/turn/end", json={"discard": f"O{3 + i}"}).status_code == 200
            clock.advance(PRESS_GUARD_S)
    g = state(client)["game"]
    ending = {}
    if g["turn"]["phase"] == "draw":
        assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
    if g["turn"]["phase"] != "play":
        ending = {"discard": "K1"}
    live.set_table(table)
    res = client.post("/api/rummikub", json={"count_checked": True, **ending})
    assert res.status_code == 200 and res.get_json()["state"]["game"]["status"] == "tally", res.get_json()
    return res.get_json()["state"]


def scored_first_hand(client, live, players=("Ann", "Ben"), **extra):
    """Hand 1 scored (Ann went out, the count overruled); the old hand's tiles still on the table."""
    ann_goes_out(client, live, players, "R10 R11 R12 | K5 K6 K7 K8 K9 K10", **extra)
    racks = {p: "R5" for p in players[1:]}
    assert client.post("/api/tally/confirm", json={"racks": racks}).status_code == 200
    assert state(client)["game"]["status"] == "dealing"


@pytest.mark.parametrize("rules, url, payload", [
    ("sabra", "/api/turn/end", {}), ("sabra", "/api/pass", {}), ("sabra", "/api/rummikub", {}),
    ("sabra", "/api/rummikub", {"pool_empty": True}), ("american", "/api/turn/draw", {"source": "pool"}),
    ("american", "/api/turn/draw", {"source": "discard"})])
def test_no_turn_press_while_the_next_hand_waits_for_its_deal(client, live, clock, rules, url, payload):
    scored_first_hand(client, live, rules=rules)
    before = state(client)
    clock.advance(PRESS_GUARD_S)
    res = client.post(url, json=dict(payload, turn=before["game"]["turn"]["id"]))
    assert res.status_code == 400 and res.get_json()["message"] == (
        "the next hand has not started: press Start hand once the tiles are dealt")
    after = state(client)
    assert after["game"] == before["game"] and after["game"]["can_undo_hand"]
    assert client.get("/api/turns").get_json()[-1]["hand"] == 1  # nothing judged for hand 2
    live.set_table("")  # the old hand's tiles are collected for the deal
    assert client.post("/api/hand/start", json={}).get_json()["game"]["status"] == "playing"


# --- 4: "Rummikub!" against the companion's own count --------------------------------

def test_rummikub_from_a_player_still_holding_tiles_asks_first(client, live, clock):
    start(client, ["Ann", "Ben", "Cid"])
    client.post("/api/pass", json={})
    clock.advance(PRESS_GUARD_S)
    client.post("/api/pass", json={})
    clock.advance(PRESS_GUARD_S)
    live.set_table("K5 K6 K7 K8 K9 K10")
    res = client.post("/api/rummikub", json={})
    body = res.get_json()
    assert res.status_code == 400 and body["still_holds"] == {"player": "Cid", "tiles": 8}
    assert body["message"].startswith("by the count Cid still holds 8 tiles")
    assert state(client)["game"]["status"] == "playing" and state(client)["game"]["current"] == "Cid"
    bad = client.post("/api/rummikub", json={"count_checked": "yes"})
    assert bad.status_code == 400 and "count_checked" in bad.get_json()["message"]
    res = client.post("/api/rummikub", json={"count_checked": True})
    assert res.status_code == 200 and res.get_json()["tally"]["winner"] == "Cid"


# --- 5: Settings after an Israeli game ---------------------------------------------------

def test_rules_a_game_cannot_take_are_still_saved_for_new_games(client):
    start(client, ["Ann", "Ben"], rules="israeli")
    res = client.post("/api/settings", json={"rules": "sabra"})  # nothing to confirm: the game cannot switch
    assert res.status_code == 200, res.get_json()
    body = res.get_json()
    assert body["applies"] == "for new games only" and body["options"]["game"] == "sabra"
    assert body["message"] == ("Saved for new games; the game on the table keeps Israeli scoring: a game keeps "
                               "its scoring method on every hand.")
    g = state(client)["game"]
    assert g["game"] == "american" and g["scoring"] == "israeli" and g.get("pending") in (None, "")
    assert client.post("/api/settings", json={"rules": "sabra", "confirm": True}).status_code == 200
    start(client, ["Cid", "Dan"])  # "as set on Settings"
    assert state(client)["game"]["game"] == "sabra"
    res = client.post("/api/settings", json={"rules": "israeli"})  # the Sabra game cannot take it: not asked
    assert res.status_code == 200 and res.get_json()["applies"] == "for new games only"
