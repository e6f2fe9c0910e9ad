"""Finishing a game: POST /api/game/finish, the final standings, and what a finished game refuses.

The Flask test client with a fake live table and a fake clock, as in test_webui_api.py.
"""

from __future__ import annotations

import csv
import io

import pytest

from webui.app import create_app
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive

EVIL = "http://evil.example"
FINISHED = "the game is finished: start a new one"  # rules.game_turns.require's words


@pytest.fixture
def live():
    return FakeLive("")


def start(client, players=("Ann", "Ben"), **extra) -> dict:
    res = client.post("/api/game", json={"players": list(players), **extra})
    assert res.status_code == 201, res.get_json()
    return res.get_json()


def state(client) -> dict:
    return client.get("/api/state").get_json()


def score_a_hand(client, winner: str, racks: dict) -> None:
    """``winner`` goes out on the turn that is on (the first hand: the winner starts), the others' racks typed."""
    if state(client)["game"]["turn"]["phase"] == "draw":  # American and Israeli: draw, then the discard
        assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
        res = client.post("/api/rummikub", json={"count_checked": True, "winner": winner, "discard": "K1"})
    else:
        res = client.post("/api/rummikub", json={"count_checked": True, "winner": winner})
    assert res.status_code == 200, res.get_json()
    res = client.post("/api/tally/confirm", json={"racks": racks})
    assert res.status_code == 200, res.get_json()


def finish(client) -> dict:
    res = client.post("/api/game/finish", json={})
    assert res.status_code == 200, res.get_json()
    return res.get_json()


def csv_of(client, query: str = "") -> list[list[str]]:
    return list(csv.reader(io.StringIO(client.get("/api/scores.csv" + query).get_data().decode("utf-8-sig"))))


def test_finishing_mid_hand_keeps_the_sheet_and_drops_the_hand_in_progress(app, client, clock):
    start(client)
    score_a_hand(client, "Ann", {"Ben": "R5 K7"})  # Ann +12, Ben -12
    assert client.post("/api/hand/start", json={}).status_code == 200
    assert client.post("/api/pass", json={}).status_code == 200  # hand 2 goes on: Ben draws
    turns = len(client.get("/api/turns").get_json())
    s = finish(client)
    g = s["game"]
    assert g["status"] == "finished" and g["winner"] == "Ann" and g["hand"] == 2
    assert s["clock"]["running"] is False and s["clock"]["remaining"] is None and s["clock"]["paused"] is False
    sheet = s["scores"]
    assert sheet["finished"] is True and sheet["result"] == "Ann wins" and sheet["winner"] == "Ann"
    assert sheet["games_won"] == {"Ann": 1, "Ben": 0} and sheet["totals"] == {"Ann": 12, "Ben": -12}
    assert len(sheet["hands"]) == 1  # hand 2 was not scored
    assert sheet["standings"] == [{"player": "Ann", "place": 1, "games_won": 1, "total": 12},
                                  {"player": "Ben", "place": 2, "games_won": 0, "total": -12}]
    assert s["preview"] is None and s["hint"] is None
    # the clock is off: however long the page is left, no turn times out
    clock.advance(10_000)
    app.extensions["companion"].tick()
    assert len(client.get("/api/turns").get_json()) == turns and state(client)["game"]["status"] == "finished"


@pytest.mark.parametrize("url, payload", [
    ("/api/turn/end", {}), ("/api/pass", {}), ("/api/rummikub", {"count_checked": True, "winner": "Ann"}),
    ("/api/rummikub", {"pool_empty": True}), ("/api/turn/draw", {"source": "pool"}), ("/api/hand/start", {}),
    ("/api/tally/undo", {}), ("/api/tally/cancel", {}), ("/api/tally/confirm", {"racks": {}}),
    ("/api/tally/read", {"player": "Ben"}), ("/api/rack", {"player": "Ann", "rack": "R5"}),
    ("/api/restore/dismiss", {}),
])
def test_a_finished_game_refuses_every_turn_action(client, url, payload):
    start(client)
    score_a_hand(client, "Ann", {"Ben": "R5"})  # a hand to take back, were it not finished
    before = finish(client)["game"]
    res = client.post(url, json=payload)
    assert res.status_code == 400 and res.get_json()["message"] == FINISHED, res.get_json()
    assert state(client)["game"] == before
    assert client.get("/api/turn/check").status_code == 409  # no turn in progress


def test_finishing_is_refused_while_the_racks_are_counted(client):
    start(client)
    client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    res = client.post("/api/game/finish", json={})
    assert res.status_code == 400
    assert res.get_json()["message"] == ("the racks are being counted: confirm the hand "
                                         "(or go back to the game) first")  # rules.game_tally's words
    assert state(client)["game"]["status"] == "tally"
    page = client.get("/scores").get_data(as_text=True)  # the page says so before anyone presses
    assert "are being counted" in page and 'type="submit" disabled' in page
    assert client.post("/api/tally/cancel", json={}).status_code == 200
    assert finish(client)["game"]["status"] == "finished"


def test_finishing_with_no_game_twice_or_with_a_bad_body(client):
    res = client.post("/api/game/finish", json={})
    assert res.status_code == 400 and res.get_json()["message"] == "no game yet: start one first"
    start(client)
    res = client.post("/api/game/finish", data="[1]", content_type="application/json")
    assert res.status_code == 400 and "JSON object" in res.get_json()["message"]
    assert state(client)["game"]["status"] == "playing"
    assert client.post("/api/game/finish").status_code == 200  # curl: no body at all
    again = client.post("/api/game/finish", json={})  # pressed twice (two phones): already done
    assert again.status_code == 409 and again.get_json()["message"] == "the game is finished already"


def test_finishing_before_any_hand_or_level_names_no_winner(client):
    start(client)
    s = finish(client)
    assert s["game"]["winner"] is None and s["scores"]["result"] == "No hand was scored: no winner"
    assert [r["place"] for r in s["scores"]["standings"]] == [1, 1]
    start(client, ["Ann", "Ben"])
    score_a_hand(client, "Ann", {"Ben": "R5"})
    client.post("/api/hand/start", json={})  # Ben starts hand 2 and goes out: level on hands and points
    score_a_hand(client, "Ben", {"Ann": "K5"})
    s = finish(client)
    assert s["scores"]["games_won"] == {"Ann": 1, "Ben": 1} and s["scores"]["totals"] == {"Ann": 0, "Ben": 0}
    assert s["game"]["winner"] is None and s["scores"]["result"] == "A tie between Ann and Ben"
    assert csv_of(client)[-1] == ["Result", "A tie between Ann and Ben"]


def test_most_hands_won_beats_the_higher_total(client, clock):
    """004_*: the player who has won the most games is the winner (the total only breaks a tie)."""
    start(client, ["Ann", "Ben", "Cid"])
    score_a_hand(client, "Ann", {"Ben": "R1", "Cid": "R2"})  # Ann +3
    client.post("/api/hand/start", json={})
    score_a_hand(client, "Ben", {"Ann": "R1", "Cid": "K13 B13 O13"})  # Ben +40
    client.post("/api/hand/start", json={})
    client.post("/api/pass", json={})  # Cid draws; Ann goes out in her turn
    clock.advance(PRESS_GUARD_S)  # not a moment after Cid's press (webui.session.PRESS_GUARD_S)
    score_a_hand(client, "Ann", {"Ben": "R1", "Cid": "R2"})  # Ann +3 again
    s = finish(client)["scores"]
    assert s["games_won"] == {"Ann": 2, "Ben": 1, "Cid": 0} and s["totals"]["Ben"] > s["totals"]["Ann"]
    assert s["winner"] == "Ann" and [r["player"] for r in s["standings"]] == ["Ann", "Ben", "Cid"]


def test_israeli_scoring_ends_on_the_final_scores(client):
    start(client, ["Ann", "Ben", "Cid"], rules="israeli")
    score_a_hand(client, "Ann", {"Ben": "R5", "Cid": "K2 K3"})  # nobody else melded: Ann -200, both +100
    s = finish(client)
    sheet = s["scores"]
    assert s["game"]["game_name"] == "Israeli" and s["game"]["winner"] == "Ann"
    assert sheet["primary"] == {"Ann": 0, "Ben": 300, "Cid": 300}
    assert sheet["final"] == {"Ann": 600, "Ben": -300, "Cid": -300}
    assert sheet["standings"][0] == {"player": "Ann", "place": 1, "games_won": 1, "total": -200,
                                     "primary": 0, "final": 600}
    assert [r["place"] for r in sheet["standings"]] == [1, 2, 2]
    rows = csv_of(client)
    assert rows[-4:] == [["Israeli primary", "0", "300", "300"], ["Israeli final", "600", "-300", "-300"],
                         ["Final place", "1", "2", "2"], ["Result", "Ann wins"]]
    page = client.get("/").get_data(as_text=True)
    assert 'id="finished"' in page and '"status": "finished"' in page


def test_the_score_sheet_offers_finish_then_shows_the_result(client):
    start(client)
    page = client.get("/scores").get_data(as_text=True)
    assert 'id="final-result"' not in page and 'data-json="/api/game/finish"' in page
    assert "Hand 1, in progress, will not be scored" in page and "forms.js" in page
    score_a_hand(client, "Ann", {"Ben": "R5 K7"})
    finish(client)
    page = client.get("/scores").get_data(as_text=True)
    assert 'data-json="/api/game/finish"' not in page  # nothing left to finish
    assert "Final result: Ann wins" in page and 'id="standings"' in page and "leading:" not in page
    assert csv_of(client)[-2:] == [["Final place", "1", "2"], ["Result", "Ann wins"]]
    game_id = state(client)["game"]["id"]
    start(client, ["Cid", "Dan"])  # the next game: the finished one is an earlier game, still final
    assert client.get(f"/api/scores?game={game_id}").get_json()["result"] == "Ann wins"
    assert csv_of(client, f"?game={game_id}")[-1] == ["Result", "Ann wins"]
    assert "Final result: Ann wins" in client.get(f"/scores?game={game_id}").get_data(as_text=True)
    assert 'data-json="/api/game/finish"' in client.get("/scores").get_data(as_text=True)


def test_earlier_games_mark_a_finished_game(client):
    first = start(client)["game"]["id"]
    score_a_hand(client, "Ann", {"Ben": "R5"})
    finish(client)
    start(client, ["Cid", "Dan"])  # left playing
    games = {g["id"]: g for g in client.get("/api/games").get_json()}
    assert games[first]["status"] == "finished" and games[first]["winner"] == "Ann"
    assert games[first]["result"] == "Ann wins" and not games[first]["current"]
    other = next(g for g in games.values() if g["id"] != first)
    assert other["status"] == "playing" and other["winner"] is None and other["result"] is None
    page = client.get("/new").get_data(as_text=True)
    assert "finished: Ann wins" in page
    assert f'data-resume="{first}"' not in page  # nothing to resume: its scores are still linked
    assert f"/scores?game={first}" in page


def test_settings_after_the_game_is_finished_are_for_the_next_game(client):
    start(client)
    finish(client)
    page = client.get("/settings").get_data(as_text=True)
    assert "These rules apply to the next game." in page
    res = client.post("/api/settings", json={"rules": "israeli"})  # another game and scoring: no question
    assert res.status_code == 200 and res.get_json()["applies"] == "now"
    assert res.get_json()["message"].startswith("Saved for the next game: Game: American (was Sabra);")
    g = state(client)["game"]
    assert g["status"] == "finished" and g["pending"] is None and g["scoring"] == "sabra"
    assert start(client, ["Cid", "Dan"])["game"]["game_name"] == "Israeli"


def test_a_restarted_server_shows_the_game_finished(app, client, live, clock, tmp_path):
    start(client)
    score_a_hand(client, "Ann", {"Ben": "R5 K7"})
    before = finish(client)
    app.extensions["companion"].session.store.close()
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live,
                        "TICKER": False, "NOW": clock})
    try:
        after = again.test_client().get("/api/state").get_json()
        assert after["game"]["status"] == "finished" and after["game"]["winner"] == "Ann"
        assert after["scores"]["result"] == "Ann wins" and after["scores"] == before["scores"]
        res = again.test_client().post("/api/turn/end", json={})
        assert res.status_code == 400 and res.get_json()["message"] == FINISHED
        assert again.test_client().get("/api/games").get_json()[0]["status"] == "finished"
    finally:
        again.extensions["companion"].session.store.close()


def test_finishing_follows_the_write_rules(tmp_path, live, clock):
    """Another site's page cannot finish the game, nor a phone without the table PIN; JSON only."""
    lan = create_app({"TESTING": True, "DATABASE": str(tmp_path / "lan.sqlite3"), "LIVE": live, "TICKER": False,
                      "NOW": clock, "TABLE_PIN": "123456", "LISTEN_HOST": "0.0.0.0",
                      "ALLOWED_HOSTS": ["192.168.1.5"]})
    try:
        host = lan.test_client()
        start(host)
        for kwargs in ({"json": {}, "headers": {"Origin": EVIL}},
                       {"data": "{}", "content_type": "text/plain", "headers": {"Origin": EVIL}},
                       {"json": {}, "headers": {"Sec-Fetch-Site": "cross-site", "Origin": EVIL}}):
            assert host.post("/api/game/finish", **kwargs).status_code == 403, kwargs
        assert host.post("/api/game/finish", data="{}", content_type="text/plain").status_code == 415
        phone = lan.test_client()
        phone.environ_base.update({"REMOTE_ADDR": "192.168.1.23"})
        res = phone.post("/api/game/finish", json={})
        assert res.status_code == 403 and "PIN" in res.get_json()["message"]
        assert state(host)["game"]["status"] == "playing"
        assert host.post("/api/game/finish", json={}, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
    finally:
        lan.extensions["companion"].session.store.close()
