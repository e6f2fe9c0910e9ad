"""Start hand while the camera still sees tiles on the table (Flask test client, a fake camera and clock):
the page is told to clear the table first, and a hand started anyway does not count the tiles left there
as the first player's."""

from __future__ import annotations

import pytest

from test_webui_fixes import start, state
from test_webui_round2 import scored_first_hand
from webui import companion as companion_mod
from webui_fakes import FakeLive

OLD = "R10 R11 R12 | K5 K6 K7 K8 K9 K10"  # the scored hand's table, 9 tiles


@pytest.fixture
def live():
    return FakeLive("")


def test_start_hand_with_the_last_hand_s_tiles_on_the_table_asks_first(app, client, live, clock):
    scored_first_hand(client, live)
    assert state(client)["table"] == OLD  # the old hand's tiles still lie there
    res = client.post("/api/hand/start", json={})
    body = res.get_json()
    assert res.status_code == 400 and body["message"].startswith(
        "clear the table first: the camera still sees 9 tiles on it")
    assert body["ask"]["send"] == {"table_checked": True} and "9 tiles" in body["ask"]["question"]
    assert state(client)["game"]["status"] == "dealing" and not state(client)["clock"]["running"]
    res = client.post("/api/hand/start", json={"table_checked": True})  # the players start anyway
    s = res.get_json()
    assert res.status_code == 200 and s["game"]["status"] == "playing"
    assert s["game"]["turn"]["table_before"] == OLD and s["preview"]["changed"] is False
    clock.advance(61)
    app.extensions["companion"].tick()  # a time-out: nothing placed, a draw; no penalty for the old tiles
    g = state(client)["game"]
    assert g["last"]["note"] == "time is up with nothing placed: draws a tile" and g["last"]["penalty"] == 0


def test_a_cleared_table_starts_the_hand_at_once(client, live):
    scored_first_hand(client, live)
    live.set_table("")
    res = client.post("/api/hand/start", json={})
    assert res.status_code == 200 and res.get_json()["game"]["turn"]["table_before"] == ""


def test_with_no_camera_the_hand_starts_as_before(client, live):
    scored_first_hand(client, live)
    live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"
    res = client.post("/api/hand/start", json={})
    assert res.status_code == 200 and res.get_json()["game"]["turn"]["table_before"] == ""


def test_a_new_game_or_a_hand_is_not_started_on_a_table_not_read_yet(client, live, monkeypatch):
    monkeypatch.setattr(companion_mod, "READ_WAIT_S", 0.2)
    live.read = False
    res = client.post("/api/game", json={"players": ["Ann", "Ben"]})
    assert res.status_code == 400 and "the camera has not read the table yet" in res.get_json()["message"]
    live.first_reading()
    start(client, ["Ann", "Ben"])


def test_new_game_asked_to_check_the_table_asks_while_tiles_lie_there(client, live):
    """The page's New game sends table_checked false: tiles the camera sees are asked about as at Start
    hand; a client that does not ask (the API's default) starts from them, as before."""
    live.set_table("R10 R11 R12")
    res = client.post("/api/game", json={"players": ["Ann", "Ben"], "table_checked": False})
    body = res.get_json()
    assert res.status_code == 400 and body["message"].startswith("clear the table first: the camera still sees "
                                                                 "3 tiles on it, and a game starts")
    assert body["ask"]["send"] == {"table_checked": True}
    assert state(client)["game"]["status"] == "none"
    res = client.post("/api/game", json={"players": ["Ann", "Ben"], "table_checked": True})
    assert res.status_code == 201 and res.get_json()["game"]["turn"]["table_before"] == "R10 R11 R12"
