"""A start or restart of the server, before the camera has read the table: the table is unknown, not empty.

A turn clock that ran out while the server was down used to be judged at the first tick against the empty
table of a camera that had not read anything yet: Ann's R10 R11 R12 became "nothing placed: draws a tile"
(and then Ben's own), a legal O11 O12 O13 became "tiles taken back" with a penalty.  The Flask client with
a fake camera whose first reading comes when the test says, then a real server killed with SIGKILL.
Last, a real server on the recorded demo started again after the players took over: their game stays.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import cv2
import pytest

from test_webui_db import call, free_port, serve
from test_webui_fixes import start, state
from webui import companion as companion_mod
from webui.app import create_app
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive

ROOT = Path(__file__).resolve().parents[1]


def server(db: Path, live: FakeLive, clock):
    app = create_app({"TESTING": True, "DATABASE": str(db), "LIVE": live, "TICKER": False, "NOW": clock})
    return app, app.test_client()


def stop(app) -> None:
    app.extensions["companion"].session.store.close()


def tick(app) -> None:
    app.extensions["companion"].tick()


def ann_opens(client, live, clock) -> None:
    """Ann's turn: R10 R11 R12 lie on the table when the server goes down."""
    live.set_table("R10 R11 R12")


def ben_opens(client, live, clock) -> None:
    """Ann melded R10 R11 R12; Ben's turn: O11 O12 O13 (36 points) lie beside it when the server goes down."""
    live.set_table("R10 R11 R12")
    assert client.post("/api/turn/end").status_code == 200
    clock.advance(PRESS_GUARD_S)
    live.set_table("R10 R11 R12 | O11 O12 O13")


@pytest.mark.parametrize("play, player, placed", [
    (ann_opens, "Ann", "R10 R11 R12"),
    (ben_opens, "Ben", "O11 O12 O13"),
])
def test_a_time_out_that_fell_due_while_the_server_was_down_waits_for_the_camera_s_first_reading(
        tmp_path, clock, monkeypatch, play, player, placed):
    monkeypatch.setattr(companion_mod, "READ_WAIT_S", 0.2)
    db = tmp_path / "c.sqlite3"
    live = FakeLive("")
    app, client = server(db, live, clock)
    start(client, ["Ann", "Ben"], options={"turn_time_limit": 20})
    play(client, live, clock)
    before = state(client)
    stop(app)

    clock.advance(25)  # the server is down: the turn's time runs out meanwhile
    live = FakeLive(before["table"])
    live.read = False  # started again: the camera is open, but has not read the table yet
    app, client = server(db, live, clock)
    for _ in range(3):
        tick(app)
    s = state(client)
    g = s["game"]
    # the same turn, and nothing judged: no verdict as if the table were empty, no time-out yet
    for key in ("current", "turn", "players", "last", "pool", "restore"):
        assert g[key] == before["game"][key], key
    assert s["camera"]["ok"] and s["camera"]["read"] is False
    assert s["sets"] == [] and s["table"] == "" and s["preview"] is None
    res = client.post("/api/turn/end", json={"turn": g["turn"]["id"]})  # End turn in that window is refused
    assert res.status_code == 400 and "the camera has not read the table yet" in res.get_json()["message"]
    assert state(client)["game"]["current"] == player
    assert client.get("/api/turn/check").status_code == 409

    live.first_reading()
    tick(app)
    s = state(client)
    g = s["game"]
    who = g["players"][[p["name"] for p in g["players"]].index(player)]
    assert g["current"] != player and g["restore"] is None
    assert g["last"]["note"] == f"time is up: placed {placed}" and g["last"]["penalty"] == 0
    assert who["rack_count"] == 11 and who["has_melded"] and who["penalties"] == 0
    assert s["preview"]["changed"] is False  # the next player placed nothing: nobody's meld is his
    log = client.get("/api/turns").get_json()
    assert (log[-1]["action"], log[-1]["legal"], log[-1]["placed"]) == ("timeout", True, placed)
    stop(app)


def test_end_turn_pressed_before_the_first_reading_waits_for_it(tmp_path, clock):
    db = tmp_path / "c.sqlite3"
    live = FakeLive("")
    app, client = server(db, live, clock)
    start(client, ["Ann", "Ben"])
    stop(app)
    live = FakeLive("R10 R11 R12")
    live.read = False
    app, client = server(db, live, clock)
    threading.Timer(0.3, live.first_reading).start()  # the camera reads the table while the press waits
    res = client.post("/api/turn/end", json={})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["current"] == "Ben" and g["players"][0]["rack_count"] == 11 and g["players"][0]["has_melded"]
    stop(app)


def test_a_restored_table_is_not_taken_as_back_before_the_camera_has_read_it(tmp_path, clock):
    """After a time-out on the first turn the table goes back to empty: an empty table not read yet is not
    that table put back, so the next player's clock keeps waiting."""
    db = tmp_path / "c.sqlite3"
    live = FakeLive("")
    app, client = server(db, live, clock)
    start(client, ["Ann", "Ben"], options={"turn_time_limit": 20})
    live.set_table("R10 R11")
    clock.advance(21)
    tick(app)
    assert state(client)["game"]["restore"] is not None
    stop(app)
    live = FakeLive("R10 R11")
    live.read = False
    app, client = server(db, live, clock)
    tick(app)
    g = state(client)["game"]
    assert g["restore"] is not None and g["clock"]["paused"]
    live.set_table("")
    live.first_reading()
    tick(app)
    assert state(client)["game"]["restore"] is None
    stop(app)


# --- a real server, killed with SIGKILL while Ann's clock runs ------------------------------------

def video_frame(number: int, path: Path) -> None:
    """Frame ``number`` (1 = first) of the shipped recorded game: 10 shows an empty table, 58 Ann's
    R10 R11 R12."""
    cap = cv2.VideoCapture(str(ROOT / "sample_images" / "recorded_game.mp4"))
    try:
        for _ in range(number):
            ok, image = cap.read()
            assert ok, f"the recorded game has no frame {number}"
    finally:
        cap.release()
    tmp = path.with_name(".next.jpg")
    cv2.imwrite(str(tmp), image)
    os.replace(tmp, path)  # the slideshow never reads half a file


def wait_for(port: int, what, timeout: float = 40.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        s = call(port, "/api/state")
        if what(s):
            return s
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: table {s['table']!r}, camera {s['camera']}, "
                                 f"last {s['game']['last']}")
        time.sleep(0.2)


@pytest.mark.skipif(not (ROOT / "sample_images" / "recorded_game.mp4").is_file(), reason="needs the recorded game")
def test_a_real_server_killed_while_ann_s_clock_runs_judges_her_meld_once_the_camera_has_read_it(tmp_path):
    pytest.importorskip("onnxruntime")
    camera = tmp_path / "camera"
    camera.mkdir()
    video_frame(10, camera / "table.jpg")
    db = tmp_path / "companion.sqlite3"
    port = free_port()
    proc = serve(port, db, tmp_path, source=str(camera))
    try:
        wait_for(port, lambda s: s["camera"]["read"])  # the tile model has loaded and read the empty table
        call(port, "/api/game", {"players": ["Ann", "Ben"], "options": {"turn_time_limit": 15}})
        started = time.monotonic()
        video_frame(58, camera / "table.jpg")
        s = wait_for(port, lambda s: s["table"] == "R10 R11 R12", timeout=12)
        assert s["preview"]["placed"] == ["R10", "R11", "R12"] and s["game"]["current"] == "Ann"
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    time.sleep(max(0.0, started + 16 - time.monotonic()))  # Ann's time runs out while the server is down

    proc = serve(port, db, tmp_path, source=str(camera))
    try:
        seen = []
        s = wait_for(port, lambda s: seen.append(s) or s["game"]["last"] is not None)
        for early in seen:  # until the camera has read the table: no verdict, no set, no time-out
            if not early["camera"]["read"]:
                assert early["preview"] is None and early["sets"] == [] and early["game"]["current"] == "Ann"
        g = s["game"]
        assert g["last"]["note"] == "time is up: placed R10 R11 R12", g["last"]
        assert g["current"] == "Ben" and g["players"][0]["rack_count"] == 11 and g["players"][0]["has_melded"]
        assert s["preview"]["changed"] is False
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)



# --- a real server on the recorded demo, restarted after the players took over ----------------------

@pytest.mark.skipif(not (ROOT / "sample_images" / "recorded_game.mp4").is_file(), reason="needs the recorded game")
def test_a_restart_without_source_keeps_the_players_game_on_the_table(tmp_path):
    from webui.demo import GRACE_SECONDS, DemoScript

    db = tmp_path / "companion.sqlite3"
    port = free_port()
    proc = serve(port, db, tmp_path, source=None)  # the recorded demo: no --source
    try:
        call(port, "/api/game", {"players": ["Zed", "Yan", "Xia"]})
        for _ in range(2):
            time.sleep(PRESS_GUARD_S)
            call(port, "/api/turn/end", {})
        before = call(port, "/api/state")["game"]
        games = [g["id"] for g in call(port, "/api/games")]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
    assert before["current"] == "Xia"

    proc = serve(port, db, tmp_path, source=None)
    try:
        script = DemoScript.load(ROOT / "sample_images" / "recorded_game.json")
        # by then the recording's first press (a new game of Ann and Ben) would have fallen
        deadline = time.monotonic() + script.events[0].after_frame / script.fps + GRACE_SECONDS + 1
        while True:
            s = call(port, "/api/state")
            assert s["demo"] is None and s["game"]["id"] == before["id"], (s["demo"], s["game"]["players"])
            assert s["game"]["turn"]["id"] == before["turn"]["id"] and not s["camera"]["ok"]  # no recording judged
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert [g["id"] for g in call(port, "/api/games")] == games  # no demo game came, none went
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
