"""Playing without a camera, and the last turn's line naming the discard: the Flask test client, a fake
live table and a fake clock (no test sleeps)."""

from __future__ import annotations

import pytest

from test_webui_fixes import demo_app, start, state
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


# --- the last turn names the discarded tile -------------------------------------------

def test_the_last_turn_names_the_tile_discarded(client):
    start(client, ["Al", "Bo"], rules="american")
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
    res = client.post("/api/turn/end", json={"discard": "r7"})
    assert res.status_code == 200, res.get_json()
    last = res.get_json()["state"]["game"]["last"]
    assert last["player"] == "Al" and last["action"] == "discard" and last["discard"] == "R7"
    assert state(client)["game"]["players"][0]["discard"] == "R7"


def test_a_sabra_turn_names_no_discard(client):
    start(client, ["Ann", "Ben"])
    last = client.post("/api/turn/end", json={}).get_json()["state"]["game"]["last"]
    assert last["action"] == "draw" and last["discard"] is None


# --- with no camera the players say what a turn placed -----------------------------------

def test_a_demo_taken_over_records_the_tiles_a_sabra_turn_placed(tmp_path, clock):
    """NoCamera: the table is always the turn's own, so End turn alone could only ever draw."""
    app = demo_app(tmp_path, clock, FakeLive("R10 R11 R12"))
    client = app.test_client()
    s = start(client, ["Zoe", "Yan"])
    assert s["camera"]["ok"] is False  # what the page looks at to offer the choice
    pool, turn = s["game"]["pool"], s["game"]["turn"]["id"]
    res = client.post("/api/turn/unseen", json={"placed": 4, "turn": turn})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    zoe = g["players"][0]
    assert zoe["rack_count"] == 10 and zoe["has_melded"] and g["pool"] == pool and g["current"] == "Yan"
    last = g["last"]
    assert last["action"] == "unchecked" and last["unchecked"] == 4 and last["discard"] is None
    assert last["note"] == ("placed 4 tiles (not checked: no camera saw the table; a count cannot show a first "
                            "meld's 30 points)")
    assert last["verdict"]["word"] == "NOT CHECKED"
    again = client.post("/api/turn/unseen", json={"placed": 4, "turn": turn})
    assert again.status_code == 409 and again.get_json()["message"].startswith("Zoe's turn already ended")
    soon = client.post("/api/turn/unseen", json={"placed": 2})  # a second phone, a moment later
    assert soon.status_code == 409 and "Press again to end Yan's turn" in soon.get_json()["message"]
    clock.advance(PRESS_GUARD_S)
    drew = client.post("/api/turn/end", json={"turn": g["turn"]["id"]}).get_json()["state"]["game"]  # "Drew a tile"
    assert drew["players"][1]["rack_count"] == 15 and drew["last"]["action"] == "draw"
    log = client.get("/api/turns").get_json()
    assert [(t["player"], t["action"], t["placed"]) for t in log] == [("Zoe", "unchecked", "4 tiles"),
                                                                       ("Yan", "draw", "")]
    page = client.get("/scores").get_data(as_text=True)
    assert "not checked: no camera saw the table" in page and "4 tiles" in page


def test_tiles_named_leave_the_typed_rack(no_camera):
    client = no_camera
    start(client, ["Ann", "Ben"])
    assert client.post("/api/rack", json={"player": "Ann", "rack": "R10 R11 R12 K1 K2 K3 B9"}).status_code == 200
    res = client.post("/api/turn/unseen", json={"tiles": "r10 r11 r12"})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["players"][0]["rack_count"] == 11 and g["players"][0]["rack_typed"]
    assert g["last"]["note"] == "placed R10 R11 R12 (not checked: no camera saw the table)"
    assert g["last"]["verdict"]["placed"] == ["R10", "R11", "R12"]
    assert client.get("/api/turns").get_json()[-1]["placed"] == "R10 R11 R12"


@pytest.mark.parametrize("payload, message", [
    ({"placed": 0}, "no tile placed: that is a draw (Drew a tile)"),
    ({"placed": 15}, "Ann holds 14 tiles: 15 cannot have been placed"),
    ({"placed": 14}, "Ann holds 14 tiles: placing 14 empties the rack, so that is Rummikub!: call it instead"),
    ({}, "no tile placed"),
    ({"placed": "3"}, "field 'placed' must be a whole number, not text"),
    ({"placed": True}, "field 'placed' must be a whole number, not true or false"),
    ({"placed": 2, "tiles": "R5 X9"}, "the tiles placed: "),
])
def test_impossible_counts_are_refused_and_change_nothing(no_camera, payload, message):
    client = no_camera
    before = start(client, ["Ann", "Ben"])["game"]
    res = client.post("/api/turn/unseen", json=payload)
    assert res.status_code == 400 and res.get_json()["message"].startswith(message), res.get_json()
    after = state(client)["game"]
    assert after["players"] == before["players"] and after["current"] == "Ann"
    assert client.get("/api/turns").get_json() == []


def test_refused_while_a_camera_sees_the_table(client):
    """The camera's judgement stands: End turn judges the table it sees."""
    s = start(client, ["Ann", "Ben"])
    assert s["camera"]["ok"] is True
    res = client.post("/api/turn/unseen", json={"placed": 3, "turn": s["game"]["turn"]["id"]})
    assert res.status_code == 400
    assert res.get_json()["message"].startswith("a camera sees the table: End turn judges what it sees")
    assert state(client)["game"]["players"][0]["rack_count"] == 14 and client.get("/api/turns").get_json() == []


def test_american_tiles_placed_then_the_discard(no_camera):
    client = no_camera
    start(client, ["Al", "Bo"], rules="american")
    early = client.post("/api/turn/unseen", json={"placed": 3, "discard": "K1"})
    assert early.status_code == 400 and early.get_json()["message"].startswith("draw first")
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
    res = client.post("/api/turn/unseen", json={"placed": 3, "discard": "k1"})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    al = g["players"][0]
    assert al["rack_count"] == 11 and al["has_melded"] and al["discard"] == "K1"
    assert g["last"]["discard"] == "K1" and g["last"]["unchecked"] == 3
    assert g["turn"]["phase"] == "draw" and g["current"] == "Bo"


def test_an_unchecked_turn_is_stored_and_listed_as_not_judged_never_as_legal(no_camera):
    client = no_camera
    start(client, ["Ann", "Ben"])
    assert client.post("/api/turn/unseen", json={"placed": 3}).status_code == 200
    row = client.get("/api/turns").get_json()[0]
    assert row["action"] == "unchecked" and row["legal"] is None
    store = client.application.extensions["companion"].session.store
    assert store._conn.execute("SELECT legal FROM turns").fetchone()[0] is None
    page = client.get("/scores").get_data(as_text=True)
    assert 'class="illegal"' not in page and "not checked: no camera saw the table" in page
