"""Fixes to the web companion from the hands-on test report (items named by its numbers).

The Flask test client with a fake live table and a fake clock, as in test_webui_api.py.
"""

from __future__ import annotations

import csv
import io
import re
import threading
import time

import pytest

from webui import session as session_module
from webui.app import create_app
from webui.companion import NoCamera
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("R1 R2 R3 | K7 B7 O7 J")


def start(client, players=("Ann", "Ben", "Cid"), **extra) -> dict:
    res = client.post("/api/game", json={"players": list(players), **extra})
    assert res.status_code == 201, res.get_json()
    return res.get_json()


def state(client) -> dict:
    return client.get("/api/state").get_json()


def score_a_hand(client, live, winner="Ann", racks=None):
    """Rummikub! by ``winner`` (on the first turn: the winner starts) and the others' racks typed in."""
    g = state(client)["game"]
    ending = {}
    if g["turn"]["phase"] == "draw":  # American and Israeli: a turn is a draw, then the winner's discard
        assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
        ending = {"discard": "K1"}
    res = client.post("/api/rummikub", json={"count_checked": True, "winner": winner, **ending})
    assert res.status_code == 200 and res.get_json()["state"]["game"]["status"] == "tally", res.get_json()
    res = client.post("/api/tally/confirm", json={"racks": racks or {}})
    assert res.status_code == 200, res.get_json()
    return res.get_json()


# --- 1: a double press ends one turn -------------------------------------------------

def test_a_second_press_for_a_turn_that_has_ended_is_refused(client, clock):
    s = start(client)
    turn = s["game"]["turn"]["id"]
    assert re.fullmatch(r"\d+\.1\.1", turn)
    pool = s["game"]["pool"]
    res = client.post("/api/turn/end", json={"turn": turn})
    assert res.status_code == 200 and res.get_json()["state"]["game"]["current"] == "Ben"
    for url in ("/api/turn/end", "/api/pass", "/api/rummikub"):
        again = client.post(url, json={"turn": turn})
        assert again.status_code == 409, url
        assert again.get_json()["message"].startswith("Ann's turn already ended; it is Ben's turn now")
    g = state(client)["game"]
    assert g["current"] == "Ben" and g["status"] == "playing" and g["pool"] == pool - 1  # only Ann drew
    assert [t["player"] for t in client.get("/api/turns").get_json()] == ["Ann"]
    # the turn that is on is pressed as before (not a moment after the last press); so is a press naming no turn
    clock.advance(session_module.PRESS_GUARD_S)
    assert client.post("/api/pass", json={"turn": g["turn"]["id"]}).get_json()["state"]["game"]["current"] == "Cid"
    clock.advance(session_module.PRESS_GUARD_S)
    assert client.post("/api/turn/end", json={}).get_json()["state"]["game"]["current"] == "Ann"
    bad = client.post("/api/turn/end", json={"turn": "next one"})
    assert bad.status_code == 400 and "GAME.HAND.TURN" in bad.get_json()["message"]
    ahead = client.post("/api/turn/end", json={"turn": turn.rsplit(".", 1)[0] + ".9"})
    assert ahead.status_code == 409 and "has not started" in ahead.get_json()["message"]


def test_a_press_for_another_game_is_refused(client):
    old = start(client, ["Ann", "Ben"])["game"]["turn"]["id"]
    start(client, ["Cid", "Dan"])
    res = client.post("/api/turn/end", json={"turn": old})
    assert res.status_code == 409 and "another game" in res.get_json()["message"]
    assert state(client)["game"]["current"] == "Cid"


def test_a_stale_draw_is_refused_in_the_american_game(client):
    s = start(client, ["Ann", "Ben"], rules="american")
    turn = s["game"]["turn"]["id"]
    assert client.post("/api/turn/draw", json={"source": "pool", "turn": turn}).status_code == 200
    assert client.post("/api/turn/end", json={"turn": turn, "discard": "R7"}).status_code == 200
    res = client.post("/api/turn/draw", json={"source": "pool", "turn": turn})  # Ann's draw pressed again
    assert res.status_code == 409 and "Ann's turn already ended" in res.get_json()["message"]
    g = state(client)["game"]
    assert g["current"] == "Ben" and g["turn"]["phase"] == "draw"  # Ben has not been made to draw


def test_two_phones_pressing_end_turn_at_once_end_one_turn(app, live):
    """Both requests race through the server's threads: one ends Ann's turn, the other is refused."""
    client = app.test_client()
    turn = start(client, ["Ann", "Ben", "Cid", "Dee"])["game"]["turn"]["id"]
    live.stable = False  # hands over the table: both presses wait for it to settle, then go together
    barrier = threading.Barrier(2)
    codes = []

    def press():
        c = app.test_client()
        barrier.wait()
        codes.append(c.post("/api/turn/end", json={"turn": turn}).status_code)

    threads = [threading.Thread(target=press) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    live.stable = True
    for t in threads:
        t.join(10)
    assert sorted(codes) == [200, 409]
    assert state(client)["game"]["current"] == "Ben"


# --- 3: taking over the recorded demo stops the recording ---------------------------

def demo_app(tmp_path, clock, live):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "d.sqlite3"), "LIVE": live,
                      "TICKER": False, "NOW": clock})
    app.extensions["companion"].play_recorded_game()  # as `serve` does with no --source
    return app


def test_taking_over_the_demo_stops_the_recording_and_judges_nothing_of_it(tmp_path, clock):
    live = FakeLive("R10 R11 R12 | B4 B5")  # the recording's tiles
    live.start()
    app = demo_app(tmp_path, clock, live)
    companion = app.extensions["companion"]
    client = app.test_client()
    before = state(client)
    assert before["demo"] is not None and before["camera"]["ok"]
    s = start(client, ["Zoe", "Yan"])
    assert s["demo"] is None
    assert s["camera"]["ok"] is False and s["camera"]["error"].startswith("none. The recorded demo game stopped")
    assert s["sets"] == [] and s["table"] == "" and s["preview"]["changed"] is False
    assert int(s["version"].split(".")[0]) > int(before["version"].split(".")[0])  # never older for the page
    assert isinstance(companion.live, NoCamera)
    for _ in range(50):  # the video's thread is stopped in the background
        if not live.started:
            break
        time.sleep(0.02)
    assert not live.started
    live.set_table("R10 R11 R12 | B4 B5 | K1 K2")  # the recording goes on changing: nobody sees it
    clock.advance(61)
    companion.tick()
    g = state(client)["game"]  # nobody sees what Zoe did: the players say it (Drew a tile)
    assert g["current"] == "Zoe" and g["turn"]["time_up"] and g["restore"] is None
    g = client.post("/api/turn/end", json={}).get_json()["state"]["game"]
    assert g["current"] == "Yan" and g["restore"] is None
    assert g["last"]["note"] == "time is up with nothing placed: draws a tile"
    assert g["players"][0]["penalties"] == 0 and g["last"]["verdict"]["placed"] == []
    assert client.get("/api/camera.jpg").status_code == 404


def test_a_demo_game_taken_over_mid_hand_is_judged_on_its_own_table(tmp_path, clock):
    live = FakeLive("")
    app = demo_app(tmp_path, clock, live)
    companion = app.extensions["companion"]
    session = companion.session
    demo = companion.demo
    demo.step(demo.script.events[0].after_frame, ())  # the demo starts its game of Ann and Ben
    live.set_table("R10 R11 R12")
    session.end_turn(companion.table_now())  # the demo's Ann opens
    client = app.test_client()
    client.post("/api/settings", json={"hint": True})  # a person takes over
    s = state(client)
    assert s["table"] == "R10 R11 R12" and s["preview"]["changed"] is False  # the table as Ben found it
    live.set_table("")  # the recording's table is cleared: not the people's
    clock.advance(61)
    companion.tick()
    g = state(client)["game"]
    assert g["restore"] is None and g["last"]["penalty"] == 0


def test_a_persons_game_left_on_the_table_is_not_timed_out_by_the_recording(tmp_path, clock):
    """A server started again without --source: the demo waits for its pass, the people's game waits too."""
    live = FakeLive("R10 R11 R12 | B4 B5")
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "d.sqlite3"), "LIVE": live,
                      "TICKER": False, "NOW": clock})
    app.extensions["companion"].session.start_game(["Zoe", "Yan"])
    app.extensions["companion"].session.store.close()
    app = demo_app(tmp_path, clock, live)
    companion = app.extensions["companion"]
    assert companion.session.game.names == ("Zoe", "Yan")
    clock.advance(200)
    companion.tick()
    assert companion.session.game.turn.number == 1 and companion.session.game.restore is None


# --- 14: one game per press of "Start the game" -------------------------------------

def test_the_same_new_game_asked_twice_at_once_starts_one(client, monkeypatch):
    start(client, ["Ann", "Ben"])
    again = client.post("/api/game", json={"players": ["Ann", "Ben"]})
    assert again.status_code == 409 and "started a moment ago" in again.get_json()["message"]
    assert len(client.get("/api/games").get_json()) == 1
    start(client, ["Ann", "Ben"], first=1)  # another game: started
    assert len(client.get("/api/games").get_json()) == 2
    monkeypatch.setattr(session_module, "SAME_START_S", 0.0)  # later on, the same game again is a new one
    start(client, ["Ann", "Ben"], first=1)
    assert len(client.get("/api/games").get_json()) == 3


def test_the_same_new_game_once_played_on_is_a_new_game(client):
    start(client, ["Ann", "Ben"])
    client.post("/api/turn/end", json={})
    start(client, ["Ann", "Ben"])
    assert len(client.get("/api/games").get_json()) == 2


# --- 9 and 12: the score sheet of any game, and its CSV ------------------------------

def csv_of(res) -> list[list[str]]:
    return list(csv.reader(io.StringIO(res.get_data().decode("utf-8-sig"))))


def test_an_earlier_game_is_exported_never_another_games_sheet(client, live):
    first = start(client, ["Ann", "Ben"])["game"]["id"]
    score_a_hand(client, live, "Ann", {"Ben": "K5"})
    second = start(client, ["Cid", "Dan"])["game"]["id"]
    sheet = client.get(f"/api/scores?game={first}").get_json()
    assert sheet["players"] == ["Ann", "Ben"] and sheet["totals"] == {"Ann": 5, "Ben": -5}
    assert client.get("/api/scores").get_json()["players"] == ["Cid", "Dan"]
    res = client.get(f"/api/scores.csv?game={first}")
    assert csv_of(res)[:3] == [["", "Ann", "Ben", "How the hand ended"], ["Hand 1", "5", "-5", "Ann went out"],
                               ["Total", "5", "-5"]]
    day = time.strftime("%Y-%m-%d")
    assert res.headers["Content-Disposition"] == f"attachment; filename=rummikub-game-{first}-{day}.csv"
    now = client.get("/api/scores.csv")
    assert csv_of(now)[0] == ["", "Cid", "Dan", "How the hand ended"] and f"rummikub-game-{second}-" in now.headers["Content-Disposition"]
    for bad, code in (("abc", 400), ("-1", 400), ("999", 404)):
        for url in ("/api/scores", "/api/scores.csv"):
            res = client.get(f"{url}?game={bad}")
            assert res.status_code == code and res.get_json()["message"], (url, bad)
    page = client.get(f"/scores?game={first}").get_data(as_text=True)
    assert f'href="/api/scores.csv?game={first}"' in page and "an earlier game" in page
    assert f'href="/api/scores.csv?game={second}"' in client.get("/scores").get_data(as_text=True)


def test_csv_of_an_israeli_game_has_the_results_and_no_formulas(client, live):
    start(client, ["=1+2", "@Ben", "-Cid"], rules="israeli")
    score_a_hand(client, live, "=1+2", {"@Ben": "K5", "-Cid": "R1"})
    rows = csv_of(client.get("/api/scores.csv"))
    assert rows[0] == ["", "'=1+2", "'@Ben", "'-Cid", "How the hand ended"]  # names shown, never run
    assert [r[0] for r in rows] == ["", "Hand 1", "Total", "Hands won", "Israeli primary", "Israeli final"]
    sheet = client.get("/api/scores").get_json()
    assert rows[-1][1:] == [str(sheet["final"][p]) for p in sheet["players"]]
    assert rows[-2][1:] == [str(sheet["primary"][p]) for p in sheet["players"]]
    assert rows[1][1:] == ["-200", "100", "100", "'=1+2 went out; final discard K1"]  # numbers stay numbers
    page = client.get("/scores").get_data(as_text=True)
    assert "Israeli primary" in page and "Israeli final" in page


# --- 10 and 11: the variant's name, and minus scoring's colours ----------------------

def test_an_israeli_game_is_called_israeli(client):
    s = start(client, ["Ann", "Ben"], rules="israeli")
    assert s["game"]["game_name"] == "Israeli" and s["game"]["scoring"] == "israeli"
    assert s["game"]["game"] == "american"  # the turn flow stays the American one
    games = client.get("/api/games").get_json()
    assert games[0]["game_name"] == "Israeli"
    assert "Israeli ·" in client.get("/new").get_data(as_text=True)
    client.post("/api/settings", json={"rules": "israeli", "options": {"initial_meld": 30}})
    assert state(client)["game"]["pending"].startswith("Israeli rules, 30-point first meld")
    assert "next hand: Israeli rules" in client.get("/settings").get_data(as_text=True)
    sabra = start(client, ["Cid", "Dan"], rules="sabra")
    assert sabra["game"]["game_name"] == "Sabra"


def test_israeli_sheet_colours_good_scores_green(client, live):
    start(client, ["Ann", "Ben"], rules="israeli")
    score_a_hand(client, live, "Ann", {"Ben": "K5"})  # Ann -200 (Ben has not melded), Ben +100
    page = client.get("/scores").get_data(as_text=True)
    row = re.search(r"<th>Hand 1</th>(.*?)</tr>", page, re.S).group(1)
    assert re.findall(r'<td class="(\w*)">([^<]*)</td>', row) == [("pos", "-200"), ("neg", "+100")]
    assert "the lowest total is best" in page
    start(client, ["Cid", "Dan"], rules="sabra")  # Sabra: winning is plus, as before
    score_a_hand(client, live, "Cid", {"Dan": "K5"})
    row = re.search(r"<th>Hand 1</th>(.*?)</tr>", client.get("/scores").get_data(as_text=True), re.S).group(1)
    assert re.findall(r'<td class="(\w*)">([^<]*)</td>', row) == [("pos", "+5"), ("neg", "-5")]


# --- 13: the turn log on a phone (the page's markup; the look is checked in the browser) ----

def test_turn_log_cells_are_labelled_for_the_phone_layout(client):
    start(client, ["Ann", "Ben"])
    client.post("/api/turn/end", json={})
    page = client.get("/scores").get_data(as_text=True)
    assert 'class="c-verdict"' in page and 'class="c-placed" data-label="Placed"' in page


# --- 17: error messages that name what is wrong --------------------------------------

def test_error_messages_name_what_is_wrong(client, live):
    res = client.post("/api/game", data='{"players": ["A", "B"', content_type="application/json")
    assert res.status_code == 400 and res.get_json()["message"].startswith("the request body is not valid JSON")
    res = client.post("/api/game", json=[1, 2])
    assert res.status_code == 400 and res.get_json()["message"] == "the request body must be a JSON object, not a list"
    for limit in ("-1", "0", "x"):
        res = client.get(f"/api/turns?limit={limit}")
        assert res.status_code == 400 and "1 or more" in res.get_json()["message"]
    assert client.get("/api/turns?limit=1").status_code == 200
    start(client, ["Ann", "Ben", "Cid", "Dee"])
    assert client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"}).status_code == 200
    res = client.post("/api/rummikub", json={"count_checked": True})
    assert res.status_code == 400 and res.get_json()["message"].startswith("the hand is already being counted")
    res = client.post("/api/turn/end", json={})
    assert "the hand is already being counted" in res.get_json()["message"]
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "K5", "Cid": "R14", "Dee": "O3"}})
    assert res.status_code == 400 and res.get_json()["message"].startswith("Cid's rack: ")
    assert "R14" in res.get_json()["message"]
    assert client.post("/api/tally/confirm", json={"racks": {"Ben": "K5", "Cid": "R4", "Dee": "O3"}}).status_code == 200
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "K5", "Cid": "R4", "Dee": "O3"}})
    assert res.status_code == 400
    assert res.get_json()["message"].startswith("no hand is being counted: hand 1 is already scored")
    res = client.post("/api/rack", json={"player": "Ben", "rack": "K5 Q9"})
    assert res.status_code == 400 and res.get_json()["message"].startswith("Ben's rack: ")


# --- 2: the next hand waits for "Start hand" ------------------------------------------

def test_after_the_score_the_next_hand_waits_for_start_hand(app, client, live, clock):
    live.set_table("R1 R2 R3")
    start(client, ["Ann", "Ben"])
    score_a_hand(client, live, "Ann", {"Ben": "K5"})
    s = state(client)
    g = s["game"]
    assert g["status"] == "dealing" and g["hand"] == 2 and g["current"] == "Ben"
    assert s["clock"]["running"] is False and s["clock"]["remaining"] == 60
    assert g["can_undo_hand"] and g["last"]["note"] == "hand 1 scored: Ann +5, Ben -5"
    clock.advance(300)  # the players collect, shuffle and deal: nobody is timed
    app.extensions["companion"].tick()
    g = state(client)["game"]
    assert g["status"] == "dealing" and g["turn"]["number"] == 1 and g["can_undo_hand"]
    live.set_table("")  # the old hand's tiles are collected for the deal
    res = client.post("/api/hand/start", json={"turn": g["turn"]["id"]})
    assert res.status_code == 200
    after = res.get_json()
    assert after["game"]["status"] == "playing" and after["clock"]["running"] and after["clock"]["remaining"] == 60
    again = client.post("/api/hand/start", json={})
    assert again.status_code == 409 and again.get_json()["message"] == "hand 2 has already started: it is Ben's turn"
    assert client.post("/api/tally/undo").status_code == 200  # until the new hand's first turn ends
    assert state(client)["game"]["status"] == "tally"


def test_a_table_cleared_in_view_of_the_camera_does_not_start_the_hand(app, client, live, clock):
    """Players sweep the tiles to the middle first, then shuffle and deal: an empty table is where the
    deal begins, so only Start hand starts the clock (second report, item 3)."""
    live.set_table("R1 R2 R3")
    start(client, ["Ann", "Ben"], options={"turn_time_limit": 30})
    score_a_hand(client, live, "Ann", {"Ben": "K5"})
    companion = app.extensions["companion"]
    companion.tick()  # the old hand's tiles still lie there
    assert state(client)["game"]["status"] == "dealing"
    live.set_table("")
    for _ in range(10):  # swept, shuffled, dealt: minutes may pass, the clock waits
        clock.advance(30)
        companion.tick()
    s = state(client)
    assert s["game"]["status"] == "dealing" and not s["clock"]["running"] and s["clock"]["remaining"] == 30
    assert s["game"]["can_undo_hand"] and s["game"]["pool"] == 106 - 28
    assert client.post("/api/hand/start", json={}).get_json()["clock"]["running"]


def test_a_scored_hand_can_be_taken_back_while_the_next_waits(client, live):
    live.set_table("R1 R2 R3")
    start(client, ["Ann", "Ben"])
    score_a_hand(client, live, "Ann", {"Ben": "K5"})
    res = client.post("/api/tally/undo")
    assert res.status_code == 200 and res.get_json()["game"]["status"] == "tally"
    assert res.get_json()["game"]["tally"]["racks"]["Ben"] == "K5"


def test_rules_saved_while_dealing_stay_when_the_hand_is_taken_back(client, live):
    """Settings saved while the next hand was dealt were dropped by "Take back this hand": the page went back
    to the rules of before, and the hand counted again dealt the next one by them."""
    live.set_table("R1 R2 R3")
    start(client, ["Ann", "Ben"])
    score_a_hand(client, live, "Ann", {"Ben": "K5"})
    res = client.post("/api/settings", json={"options": {"initial_meld": 50}})
    assert res.status_code == 200 and res.get_json()["applies"] == "now"  # hand 2 has not started
    g = client.post("/api/tally/undo").get_json()["game"]
    assert g["status"] == "tally" and g["pending"] == "Sabra rules, 50-point first meld, 60 s a turn"
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "K7"}})
    assert res.status_code == 200 and res.get_json()["state"]["options"]["initial_meld"] == 50


# --- 6: who has melded, in the Israeli and International tally ------------------------

def test_israeli_tally_preview_and_melded_override(client, live):
    live.set_table("")
    start(client, ["Ann", "Ben", "Cid"], rules="israeli")
    client.post("/api/turn/draw", json={"source": "pool"})
    assert client.post("/api/rummikub", json={"count_checked": True, "discard": "K1"}).get_json()["state"]["game"]["status"] == "tally"
    q = "/api/tally/points?rack=K1 O13&player=Ben"
    d = client.get(q).get_json()
    assert d == {"tiles": 2, "points": 14, "melded": False, "score": 100}  # never melded: +100
    assert client.get(q + "&melded=true").get_json()["score"] == 14
    assert client.get("/api/tally/points?rack=R5").get_json() == {"tiles": 1, "points": 5}
    bad = client.get("/api/tally/points?rack=R5 J J J")
    assert bad.status_code == 400 and "J" in bad.get_json()["message"]  # the box holds two jokers
    assert client.get(q + "&melded=maybe").status_code == 400
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "K1 O13", "Cid": "R5"}, "melded": {"Ben": True}})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["result"]["scores"] == {"Ann": -100, "Ben": 14, "Cid": 100}
    res = client.post("/api/tally/confirm", json={"racks": {}, "melded": {"Ben": "yes"}})
    assert res.status_code == 400 and "melded" in res.get_json()["message"]


def test_international_tally_preview_counts_a_player_who_never_melded(client, live):
    live.set_table("")
    start(client, ["Ann", "Ben"], rules="international")
    client.post("/api/rummikub", json={"count_checked": True, "discard": "K1"})  # the starter holds 15 tiles: no draw first
    g = state(client)["game"]
    assert g["status"] == "tally", g
    q = "/api/tally/points?rack=R10 K1&player=Ben&win=open"
    assert client.get(q).get_json()["score"] == -100
    assert client.get(q + "&melded=1").get_json()["score"] == -20  # International: 10-13 and 1 count 10
    assert client.get(q + "&melded=1&joker_discard=1").get_json()["score"] == -40
    assert client.get(q.replace("open", "closed")).get_json()["score"] is None  # the closed hand's points
