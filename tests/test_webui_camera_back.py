"""A camera that drops out and comes back mid-game, through the web app (Flask test client, a fake live
table whose camera goes out and back, a fake clock, the turn clock's ticker called by hand): after turns
no camera saw, the table the camera finds on its return is where the turn on started."""

from __future__ import annotations

import pytest

from test_webui_fixes import start, state
from webui.app import create_app
from webui.table_found import CAMERA_BACK_S
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


def tick(app):
    app.extensions["companion"].tick()


def camera_out(live, app):
    live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"
    tick(app)


def ann_plays_unseen(client, app, live, clock):
    """Ann and Ben (Sabra, 60 s a turn); the camera drops out and Ann places R10 R11 R12, in her word."""
    start(client, ["Ann", "Ben"], options={"turn_time_limit": 60})
    camera_out(live, app)
    res = client.post("/api/turn/unseen", json={"placed": 3})
    assert res.status_code == 200, res.get_json()
    live.set_table("R10 R11 R12")  # what lies on the table (the camera does not see it yet)
    clock.advance(PRESS_GUARD_S)
    return res.get_json()["state"]["game"]


def camera_back(app, live, clock):
    """The camera sends pictures again and the table holds still long enough to be taken."""
    live.camera_ok, live.camera_error = True, None
    tick(app)
    clock.advance(CAMERA_BACK_S)
    tick(app)


def test_the_table_found_on_the_camera_s_return_is_where_the_turn_started(app, client, live, clock):
    g = ann_plays_unseen(client, app, live, clock)
    assert g["current"] == "Ben" and g["turn"]["unseen"] and g["turn"]["found"] is None
    camera_back(app, live, clock)
    s = state(client)
    t = s["game"]["turn"]
    assert not t["unseen"] and t["found"] == ["R10", "R11", "R12"] and t["table_before"] == "R10 R11 R12"
    assert not s["preview"]["changed"]  # nothing placed this turn
    log = client.get("/api/turns").get_json()
    assert [(r["player"], r["action"], r["legal"], r["placed"]) for r in log] == [
        ("Ann", "unchecked", None, "3 tiles"), ("Ben", "table_found", None, "R10 R11 R12")]
    # Ben's turn is judged from the table found: unchanged, a draw (not three tiles of Ann's as his)
    res = client.post("/api/turn/end", json={"turn": t["id"]})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    ben = g["players"][1]
    assert g["last"]["action"] == "draw" and ben["rack_count"] == 15 and not ben["has_melded"]
    assert g["turn"]["found"] is None  # the next turn started from a table the camera saw
    page = client.get("/scores").get_data(as_text=True)
    assert "table found" in page and "not judged: the table taken as the camera found it on its return" in page


def test_until_the_table_has_held_still_the_turn_judges_nothing_the_camera_shows(app, client, live, clock):
    """The camera reports itself back with its first picture, before it has read the table again."""
    ann_plays_unseen(client, app, live, clock)
    live.camera_ok, live.camera_error = True, None
    tick(app)
    clock.advance(CAMERA_BACK_S / 2)
    live.stable = False  # a hand over the table: hold still again from when it goes
    tick(app)
    live.stable = True
    clock.advance(CAMERA_BACK_S / 2)
    tick(app)
    s = state(client)
    assert s["camera"]["ok"] and s["game"]["turn"]["unseen"] and not s["preview"]["changed"]
    assert client.get("/api/turn/check").get_json()["changed"] is False
    # meanwhile End turn asks what the turn did, as with no camera: saying it is not refused
    res = client.post("/api/turn/unseen", json={"placed": 3})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["players"][1]["rack_count"] == 11 and g["turn"]["unseen"]  # Ann's turn: still not known
    live.set_table("R10 R11 R12 | K1 K2 K3")  # the camera reads the table again
    tick(app)
    clock.advance(CAMERA_BACK_S - 0.5)
    tick(app)
    assert state(client)["game"]["turn"]["unseen"]
    clock.advance(0.5)
    tick(app)
    t = state(client)["game"]["turn"]
    assert not t["unseen"] and len(t["found"]) == 6 and t["table_before"] == "R10 R11 R12 | K1 K2 K3"


def test_a_camera_out_during_a_turn_it_saw_begin_takes_no_table(app, client, live, clock):
    """The turn's own table is known: what the camera finds on its return is that turn's doing."""
    start(client, ["Ann", "Ben"])
    camera_out(live, app)
    live.set_table("R10 R11 R12")
    camera_back(app, live, clock)
    s = state(client)
    assert s["game"]["turn"]["found"] is None and s["preview"]["placed"] == ["R10", "R11", "R12"]
    g = client.post("/api/turn/end").get_json()["state"]["game"]
    assert g["players"][0]["rack_count"] == 11 and g["players"][0]["has_melded"]
    assert [r["action"] for r in client.get("/api/turns").get_json()] == ["done"]


def test_a_time_out_no_camera_saw_leaves_the_next_table_to_be_found(app, client, live, clock):
    start(client, ["Ann", "Ben"], options={"turn_time_limit": 30})
    camera_out(live, app)
    clock.advance(31)
    tick(app)
    g = state(client)["game"]  # nobody saw what Ann did: the clock stops and the players say it
    assert g["current"] == "Ann" and g["turn"]["time_up"] and g["clock"]["time_up"] and not g["clock"]["running"]
    res = client.post("/api/turn/unseen", json={"placed": 3})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["last"]["action"] == "unchecked" and g["current"] == "Ben" and g["turn"]["unseen"]
    assert g["last"]["note"] == ("time is up: placed 3 tiles (not checked: no camera saw the table; a count cannot show a first meld's 30 points)")
    live.set_table("K9 B9 O9")  # Ann had laid her group before the time ran out
    camera_back(app, live, clock)
    assert state(client)["game"]["turn"]["found"] == ["K9", "B9", "O9"]


def test_a_server_started_again_finds_the_table_too(tmp_path, clock):
    live = FakeLive("", camera_ok=False)
    cfg = {"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live, "TICKER": False, "NOW": clock}
    app = create_app(cfg)
    client = app.test_client()
    start(client, ["Ann", "Ben"])
    assert client.post("/api/turn/unseen", json={"placed": 3}).status_code == 200
    app.extensions["companion"].session.store.close()
    live = FakeLive("R10 R11 R12")  # the camera works after the restart
    again = create_app({**cfg, "LIVE": live})
    assert state(again.test_client())["game"]["turn"]["unseen"]
    camera_back(again, live, clock)
    assert state(again.test_client())["game"]["turn"]["found"] == ["R10", "R11", "R12"]
    again.extensions["companion"].session.store.close()


def ann_melds_then_the_camera_dies(client, app, live, clock):
    """Ann lays R10 R11 R12 in view (a first meld of 33); then the camera stops and shows nothing."""
    start(client, ["Ann", "Ben"], options={"turn_time_limit": 60})
    live.set_table("R10 R11 R12")
    res = client.post("/api/turn/end", json={})
    assert res.status_code == 200 and res.get_json()["state"]["game"]["current"] == "Ben", res.get_json()
    live.set_table("")
    camera_out(live, app)
    clock.advance(PRESS_GUARD_S)


def test_with_the_camera_out_a_time_out_is_judged_on_the_game_s_table(app, client, live, clock):
    """A dead camera sees no tile: Ben's time running out is no "illegal table" penalty for taking Ann's
    meld away; nobody saw what he did, so the players say it (here: he drew)."""
    ann_melds_then_the_camera_dies(client, app, live, clock)
    clock.advance(61)
    tick(app)
    g = state(client)["game"]
    assert g["current"] == "Ben" and g["restore"] is None and g["turn"]["time_up"]
    assert g["players"][1]["rack_count"] == 14 and g["players"][1]["penalties"] == 0
    g = client.post("/api/turn/end", json={}).get_json()["state"]["game"]
    assert g["current"] == "Ann" and g["restore"] is None
    ben = g["players"][1]
    assert ben["rack_count"] == 15 and ben["penalties"] == 0, ben


def test_with_the_camera_out_drew_a_tile_is_judged_on_the_game_s_table(app, client, live, clock):
    ann_melds_then_the_camera_dies(client, app, live, clock)
    res = client.post("/api/turn/end", json={})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["last"]["action"] == "draw" and g["players"][1]["rack_count"] == 15 and g["current"] == "Ann"
