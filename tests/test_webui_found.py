"""The table a camera finds on its return, when it disagrees with the game's record (Flask test client, a
fake camera, a fake clock, the ticker called by hand): the page asks, and takes it only when the players
say so (``POST /api/turn/found``), or by itself once the table agrees."""

from __future__ import annotations

import pytest

from test_webui_fixes import start, state
from webui.table_found import CAMERA_BACK_S
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


def tick(app):
    app.extensions["companion"].tick()


def camera(live, app, ok: bool) -> None:
    live.camera_ok, live.camera_error = ok, None if ok else "camera 0 stopped sending frames"
    tick(app)


def held_still(app, clock) -> None:
    tick(app)
    clock.advance(CAMERA_BACK_S)
    tick(app)


def test_a_table_with_more_tiles_than_said_is_asked_about_and_taken_when_the_players_say_so(app, client, live,
                                                                                            clock):
    start(client, ["Ann", "Ben"])
    camera(live, app, False)
    assert client.post("/api/turn/unseen", json={"placed": 3}).status_code == 200  # "Played tiles: 3"
    clock.advance(PRESS_GUARD_S)
    live.set_table("R10 R11 R12 | K5 K6 K7 K8 | O1 O2 O3 O4 O5 O6 O7 O8 O9 O10")  # 17 tiles
    camera(live, app, True)
    tick(app)
    before = state(client)["version"].split(".")
    held_still(app, clock)
    s = state(client)
    ask = s["found_check"]
    # the question is pushed to every page at once: the camera's count grows with it
    assert s["version"].split(".")[:2] == before[:2] and int(s["version"].split(".")[2]) > int(before[2])
    assert s["game"]["turn"]["unseen"] and s["game"]["turn"]["found"] is None  # not taken by itself
    assert ask["player"] == "Ben" and len(ask["found"]) == 17 and ask["said"] == 3
    assert ask["question"].startswith("The camera is back and sees 17 tiles beyond the table the game knew, but "
                                      "the players said 3 tiles were placed while no camera saw")
    assert ask["camera"] == s["camera"]["version"]
    turn = s["game"]["turn"]["id"]
    stale = client.post("/api/turn/found", json={"turn": turn, "camera": ask["camera"] - 1})
    assert stale.status_code == 409 and "changed since the question" in stale.get_json()["message"]
    res = client.post("/api/turn/found", json={"turn": turn, "camera": ask["camera"]})
    assert res.status_code == 200, res.get_json()
    s = res.get_json()["state"]
    assert not s["game"]["turn"]["unseen"] and len(s["game"]["turn"]["found"]) == 17 and s["found_check"] is None
    row = client.get("/api/turns").get_json()[-1]
    assert row["action"] == "table_found" and row["legal"] is None
    assert row["problems"] == ["the players took it, but " + ask["doubts"][0]]
    assert "the players took it, but the players said 3 tiles were placed" in client.get("/scores").get_data(
        as_text=True)
    again = client.post("/api/turn/found", json={"turn": turn, "camera": ask["camera"]})
    assert again.status_code == 409 and "nothing to take" in again.get_json()["message"]


def test_discards_in_view_are_asked_about_and_a_table_put_right_is_taken_by_itself(app, client, live, clock):
    """The defect: an American hand, K3 and R4 discarded; with no camera Cy said he placed 3 tiles; the camera
    came back and took 9 tiles, K3 and R4 among them, as the table."""
    start(client, ["Al", "Bo", "Cy"], rules="american", trump="B4")
    for discard in ("K3", "R4"):
        assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
        res = client.post("/api/turn/end", json={"discard": discard})
        assert res.status_code == 200, res.get_json()
        clock.advance(PRESS_GUARD_S)
    camera(live, app, False)
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
    res = client.post("/api/turn/unseen", json={"placed": 3, "tiles": "K10 K11 K12", "discard": "O2"})
    assert res.status_code == 200, res.get_json()
    clock.advance(PRESS_GUARD_S)
    live.set_table("K10 K11 K12 | K3 K4 K5 | R4 R5 R6")  # the discards lie in view beside the meld
    camera(live, app, True)
    held_still(app, clock)
    ask = state(client)["found_check"]
    assert ask["doubts"] == [
        "the players said 3 tiles were placed while no camera saw (tiles Al laid this turn before it came back "
        "would be among them)",
        "K3 R4 were discarded this hand (are the discards in view?)",
    ]
    live.set_table("K10 K11 K12")  # the players move the discards out of view
    held_still(app, clock)
    s = state(client)
    assert s["found_check"] is None and not s["game"]["turn"]["unseen"]
    assert s["game"]["turn"]["found"] == ["K10", "K11", "K12"]
    assert client.get("/api/turns").get_json()[-1]["problems"] == []


def test_nothing_is_asked_before_the_table_has_held_still(app, client, live, clock):
    start(client, ["Ann", "Ben"])
    camera(live, app, False)
    client.post("/api/turn/unseen", json={"placed": 3})
    live.set_table("R10 R11 R12 | K5 K6 K7")
    camera(live, app, True)
    assert state(client)["found_check"] is None  # the camera has just come back: its table may be the old one
    res = client.post("/api/turn/found", json={"camera": live.version})
    assert res.status_code == 200  # the players may take it at once; it is theirs to say
    assert not state(client)["game"]["turn"]["unseen"]
