"""Undo last turn over the API (POST /api/turn/undo): a turn recorded on the players' word with no camera is
taken back while nothing has happened since; the Flask test client, fake cameras and a fake clock."""

from __future__ import annotations

import pytest

from test_webui_fixes import start, state
from webui.app import create_app
from webui.companion import UnavailableLive
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


def undo(client, **payload):
    return client.post("/api/turn/undo", json=payload)


def test_a_wrong_answer_is_taken_back_and_the_log_keeps_it_marked(no_camera, clock):
    client = no_camera
    before = start(client, ["Ann", "Ben"])["game"]
    assert before["undo_turn"] is None  # no turn has ended
    clock.advance(20)
    g = client.post("/api/turn/unseen", json={"placed": 3}).get_json()["state"]["game"]  # Ann drew, in fact
    assert g["current"] == "Ben" and g["players"][0]["rack_count"] == 11
    assert g["undo_turn"] == {"player": "Ann", "hand": 1, "number": 1}
    clock.advance(5)
    res = undo(client, turn=g["turn"]["id"])
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["undone"] == {"player": "Ann", "hand": 1, "number": 1}
    back = res.get_json()["state"]["game"]
    assert back["current"] == "Ann" and back["turn"]["id"] == before["turn"]["id"]
    assert back["players"] == before["players"] and back["pool"] == before["pool"] and back["last"] is None
    assert back["undo_turn"] is None
    assert back["clock"]["elapsed"] == 20 and back["clock"]["running"]  # the time it had left, running on
    again = undo(client, turn=g["turn"]["id"])  # a second tap, another phone
    assert again.status_code == 409
    assert again.get_json()["message"] == ("Ann's turn was already taken back (on another phone or a moment ago): "
                                           "it is Ann's turn again")
    late = client.post("/api/pass", json={"turn": g["turn"]["id"]})  # a phone that still showed Ben's turn
    assert late.status_code == 409
    assert late.get_json()["message"] == ("Ann's turn was taken back (Undo last turn, on another phone or a moment "
                                          "ago), so the turn after it is no longer on; it is Ann's turn now "
                                          "(hand 1, turn 1)")
    drew = client.post("/api/turn/end", json={"turn": back["turn"]["id"]})  # the right answer: Drew a tile
    assert drew.status_code == 200 and drew.get_json()["state"]["game"]["players"][0]["rack_count"] == 15
    log = client.get("/api/turns").get_json()
    assert [(t["player"], t["action"], t["placed"], t["taken_back"], t["undone"]) for t in log] == [
        ("Ann", "unchecked", "3 tiles", True, True), ("Ann", "draw", "", False, False)]
    page = client.get("/scores").get_data(as_text=True)
    assert "taken back (Undo last turn): recorded on the players' word, played again" in page


def test_drew_a_tile_is_taken_back_too_american_with_its_discard(no_camera):
    client = no_camera
    start(client, ["Al", "Bo"], rules="american")
    client.post("/api/turn/draw", json={"source": "pool"})
    g = client.post("/api/turn/end", json={"discard": "R7"}).get_json()["state"]["game"]  # "Only discarded"
    assert g["players"][0]["discard"] == "R7" and g["undo_turn"]["player"] == "Al"
    back = undo(client).get_json()["state"]["game"]
    al = back["players"][0]
    assert back["current"] == "Al" and al["discard"] is None and al["rack_count"] == 15
    assert back["turn"]["phase"] == "meld" and back["turn"]["drew"] == {"source": "pool", "tile": None}


def test_refused_once_the_next_player_has_drawn(no_camera, clock):
    client = no_camera
    start(client, ["Al", "Bo"], rules="american")
    client.post("/api/turn/draw", json={"source": "pool"})
    client.post("/api/turn/unseen", json={"placed": 3, "discard": "K1"})
    clock.advance(PRESS_GUARD_S)
    g = client.post("/api/turn/draw", json={"source": "pool"}).get_json()["state"]["game"]
    assert g["undo_turn"] is None
    res = undo(client, turn=g["turn"]["id"])
    assert res.status_code == 400
    assert res.get_json()["message"] == ("Al's turn can no longer be taken back: Bo has drawn since (take the "
                                         "draw back first with Undo draw)")
    after = state(client)["game"]
    assert after["current"] == "Bo" and after["players"] == g["players"] and after["pool"] == g["pool"]
    assert [t["taken_back"] for t in client.get("/api/turns").get_json()] == [False]


def test_refused_for_a_turn_the_camera_judged(client):
    start(client, ["Ann", "Ben"])
    g = client.post("/api/turn/end", json={}).get_json()["state"]["game"]  # the camera saw a draw
    assert g["undo_turn"] is None and g["last"]["action"] == "draw"
    res = undo(client, turn=g["turn"]["id"])
    assert res.status_code == 400
    assert res.get_json()["message"].startswith("the camera saw Ann's turn and the rules judged it: what it saw "
                                                "stands")
    assert state(client)["game"]["current"] == "Ben"


def test_refused_with_no_game(client):
    res = undo(client)
    assert res.status_code == 400 and res.get_json()["message"] == "no game yet: start one first"
    assert undo(client, turn=7).status_code == 400  # a turn is GAME.HAND.TURN text


def test_the_undo_survives_a_restart(tmp_path, clock):
    """The turn kept for Undo is stored with the game before it is shown, and so is the undo."""
    db = str(tmp_path / "r.sqlite3")

    def served():
        return create_app({"TESTING": True, "DATABASE": db, "LIVE": UnavailableLive("no camera"), "TICKER": False,
                           "NOW": clock})

    app = served()
    start(app.test_client(), ["Ann", "Ben"])
    app.test_client().post("/api/turn/unseen", json={"placed": 3})
    app.extensions["companion"].session.store.close()
    app = served()
    try:
        client = app.test_client()
        assert state(client)["game"]["undo_turn"] == {"player": "Ann", "hand": 1, "number": 1}
        assert undo(client).status_code == 200
    finally:
        app.extensions["companion"].session.store.close()
    app = served()
    try:
        g = state(app.test_client())["game"]
        assert g["current"] == "Ann" and g["players"][0]["rack_count"] == 14 and g["undo_turn"] is None
        assert app.test_client().get("/api/turns").get_json()[0]["undone"] is True
    finally:
        app.extensions["companion"].session.store.close()
