"""The JSON API and the HTML screens through Flask's test client, with a fake live table."""

from __future__ import annotations

import csv
import re
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.options import OPTION_DOCS, find_variant
from webui.app import create_app
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("R1 R2 R3 | K7 B7 O7 J | R5 K5")


def start(client, players=("Ann", "Ben"), **extra):
    res = client.post("/api/game", json={"players": list(players), **extra})
    assert res.status_code == 201, res.get_json()
    return res.get_json()


def test_state_shows_sets_with_verdicts(client):
    state = client.get("/api/state").get_json()
    assert [s["tiles"] for s in state["sets"]] == [["R1", "R2", "R3"], ["K7", "B7", "O7", "J"], ["R5", "K5"]]
    assert [s["valid"] for s in state["sets"]] == [True, True, False]
    assert state["sets"][1]["kind"] == "group" and state["sets"][1]["value"] == 28
    assert state["sets"][2]["problem"]  # in plain words
    assert state["sets"][0]["problem"] is None
    assert state["all_valid"] is False
    assert state["camera"]["ok"] and state["camera"]["has_picture"]
    assert state["game"]["status"] == "none" and state["game"]["players"] == []
    assert set(state) >= {"sets", "game", "clock", "scores", "options", "table"}


def test_start_game_and_turns_through_the_api(client, live, clock):
    live.set_table("R1 R2 R3 | K7 B7 O7 J")
    state = start(client, ["Ann", "Ben", "Cid"])
    assert state["game"]["current"] == "Ann"
    assert [p["name"] for p in state["game"]["players"]] == ["Ann", "Ben", "Cid"]
    assert state["clock"]["limit"] == 60 and state["clock"]["remaining"] == 60
    clock.advance(12)
    assert client.get("/api/state").get_json()["clock"]["remaining"] == 48
    # Ann lays a group worth 15: below the initial meld of 30
    live.set_table("R1 R2 R3 | K7 B7 O7 J | R5 K5 O5")
    check = client.get("/api/turn/check").get_json()
    assert check["legal"] is False and "initial meld" in " ".join(check["problems"])
    res = client.post("/api/turn/end")
    assert res.status_code == 200
    assert res.get_json()["verdict"]["legal"] is False
    assert res.get_json()["state"]["game"]["current"] == "Ann"
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13")
    body = client.post("/api/pass").get_json()
    assert body["verdict"]["legal"] and body["verdict"]["placed"] == ["O11", "O12", "O13"]
    assert body["state"]["game"]["current"] == "Ben"
    turns = client.get("/api/turns").get_json()
    assert [(t["player"], t["action"], t["legal"]) for t in turns] == [("Ann", "pass", True)]
    log = client.get("/scores").get_data(as_text=True)
    assert 'id="turn-log"' in log and "O11 O12 O13" in log


def test_hand_scored_and_exported_as_csv(client, live):
    start(client, ["Ann", "Ben"])
    res = client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    assert res.get_json()["state"]["game"]["status"] == "tally"
    live.set_table("R1 R2 R3 | K7 B7 O7 J | R5 K5 | B12 J")  # Ben lays his rack in view
    read = client.post("/api/tally/read", json={"player": "Ben"}).get_json()
    assert read["rack"] == "B12 J"
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "B12 J"}})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["result"]["scores"] == {"Ann": 42, "Ben": -42}
    scores = client.get("/api/scores").get_json()
    assert scores["totals"] == {"Ann": 42, "Ben": -42} and scores["games_won"] == {"Ann": 1, "Ben": 0}
    res = client.get("/api/scores.csv")
    assert res.mimetype == "text/csv"
    rows = list(csv.reader(io.StringIO(res.get_data().decode("utf-8-sig"))))  # a BOM first, for Excel
    assert rows == [["", "Ann", "Ben", "How the hand ended"], ["Hand 1", "42", "-42", "Ann went out"],
                    ["Total", "42", "-42"], ["Hands won", "1", "0"]]
    page = client.get("/scores").get_data(as_text=True)
    assert "Export CSV" in page and "+42" in page and "Hands won" in page and "Hand 1" in page


def test_settings_change_rules_and_hint(client):
    res = client.post("/api/settings", json={"rules": "sabra", "options": {"turn_time_limit": 120}, "hint": True})
    assert res.status_code == 200
    assert res.get_json()["options"]["turn_time_limit"] == 120 and res.get_json()["hint"] is True
    start(client)
    assert client.get("/api/state").get_json()["clock"]["limit"] == 120
    opts = client.get("/api/options").get_json()
    assert set(opts["docs"]) == set(OPTION_DOCS) and "dutch_sabra" in opts["variants"]


def test_settings_refuse_a_field_they_do_not_take_and_speak_json_not_python(client):
    """A misspelt field saves nothing and says so (it was answered 200 and ignored); types are named as JSON
    names them."""
    res = client.post("/api/settings", json={"hnit": True})
    assert res.status_code == 400 and res.get_json()["message"] == (
        "unknown field 'hnit': this request takes 'rules', 'options', 'hint', 'confirm'")
    assert client.get("/api/options").get_json()["hint"] is False
    res = client.post("/api/settings", json={"hint": "yes"})
    assert res.get_json()["message"] == "field 'hint' must be true or false, not text"
    res = client.post("/api/settings", data="null", content_type="application/json")
    assert res.get_json()["message"] == "the request body must be a JSON object, not null"


def test_settings_page_speaks_the_players_words(client):
    """Every option has a field with a label in plain words: no raw option names, True/False, null or files."""
    page = client.get("/settings").get_data(as_text=True)
    for name in OPTION_DOCS:
        assert f'name="{name}"' in page, name
    shown = re.sub(r"<[^>]+>", " ", page)  # the text a player reads
    for raw in [n for n in OPTION_DOCS if "_" in n] + ["False", "True", "null", "None", "004_", ".md", ".txt"]:
        assert raw not in shown, raw
    assert "American (1978 book)" in shown and "Points the first meld needs" in shown
    res = client.post("/api/settings", json={"options": {"initial_meld": 50, "turn_time_limit": None,
                                                         "direction": "counterclockwise"}, "hint": True})
    assert res.status_code == 200 and res.get_json()["applies"] == "now"
    opts = client.get("/api/options").get_json()
    assert opts["options"]["initial_meld"] == 50 and opts["options"]["turn_time_limit"] is None
    assert opts["options"]["direction"] == "counterclockwise" and opts["hint"] is True
    bad = client.post("/api/settings", json={"options": {"initial_meld": "lots"}}).get_json()
    assert "initial_meld" in bad["message"] and "lots" in bad["message"]


def test_rule_changes_apply_from_the_next_hand(client, live):
    start(client, ["Ann", "Ben"])
    res = client.post("/api/settings", json={"options": {"initial_meld": 50}})
    assert res.get_json()["applies"] == "from the next hand"
    game = client.get("/api/state").get_json()["game"]
    assert game["pending"].startswith("Sabra rules, 50-point")
    assert client.get("/api/state").get_json()["options"]["initial_meld"] == 30  # this hand keeps its rules
    res = client.post("/api/settings", json={"rules": "american"})
    assert res.status_code == 409 and "confirm" in res.get_json()["message"]  # another game: asks first
    assert client.post("/api/settings", json={"rules": "american", "confirm": True}).status_code == 200
    client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    assert live.rules.game == "sabra"  # the camera judges by the rules of the hand on the table
    client.post("/api/tally/confirm", json={"racks": {"Ben": "K5"}})
    state = client.get("/api/state").get_json()
    assert live.rules == find_variant("american")  # and follows the change with the next hand
    assert state["game"]["game"] == "american" and state["game"]["turn"]["phase"] == "draw"
    assert state["game"]["pending"] is None


def test_blank_loser_rack_is_refused_with_a_message(client):
    start(client, ["Ann", "Ben", "Cid"])
    client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    for racks in ({}, {"Ben": "", "Cid": "K5"}, {"Ben": None, "Cid": "K5"}, {"Ben": "   ", "Cid": "K5"}):
        res = client.post("/api/tally/confirm", json={"racks": racks})
        assert res.status_code == 400, racks
        assert "rack not given for Ben" in res.get_json()["message"]
        assert "only Ann, who went out, has an empty rack" in res.get_json()["message"]
    assert client.get("/api/state").get_json()["game"]["status"] == "tally"
    res = client.post("/api/tally/read", json={"player": "Ben"})  # nothing laid in view
    assert res.status_code == 400 and "no tiles in view" in res.get_json()["message"]
    assert client.post("/api/tally/confirm", json={"racks": {"Ben": "K5", "Cid": "R1"}}).status_code == 200


def test_undo_the_last_scored_hand(client, live):
    start(client, ["Ann", "Ben"])
    client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    client.post("/api/tally/confirm", json={"racks": {"Ben": "K5 J"}})
    state = client.get("/api/state").get_json()
    assert state["game"]["can_undo_hand"] and state["scores"]["totals"] == {"Ann": 35, "Ben": -35}
    state = client.post("/api/tally/undo").get_json()
    assert state["game"]["status"] == "tally" and state["game"]["tally"]["racks"]["Ben"] == "K5 J"
    assert state["scores"]["totals"] == {"Ann": 0, "Ben": 0} and client.get("/api/scores").get_json()["hands"] == []
    client.post("/api/tally/confirm", json={"racks": {"Ben": "K5"}})
    assert client.get("/api/scores").get_json()["totals"] == {"Ann": 5, "Ben": -5}
    live.set_table("")  # the table cleared for the new hand
    assert client.post("/api/pass").status_code == 400  # the new hand has not started
    assert client.post("/api/tally/undo").get_json()["game"]["status"] == "tally"  # so it can still be taken back
    client.post("/api/tally/confirm", json={"racks": {"Ben": "K5"}})
    client.post("/api/hand/start", json={})
    assert client.post("/api/pass").get_json()["verdict"]["legal"]
    assert client.post("/api/tally/undo").status_code == 400  # only until the next hand's first turn ends


def test_points_preview_follows_the_rules(client):
    assert client.get("/api/tally/points?rack=K5 J R13").get_json() == {"tiles": 3, "points": 48}
    client.post("/api/settings", json={"rules": "international"})
    assert client.get("/api/tally/points?rack=K5 J R13").get_json()["points"] == 5 + 30 + 10
    assert client.get("/api/tally/points?rack=Q9").status_code == 400


def test_new_game_keeps_the_settings_and_old_games_stay_reachable(client):
    client.post("/api/settings", json={"options": {"turn_time_limit": 90, "initial_meld": 40}})
    start(client, ["Ann", "Ben"])
    first = client.get("/api/state").get_json()["game"]["id"]
    assert client.get("/api/state").get_json()["clock"]["limit"] == 90
    client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    client.post("/api/tally/confirm", json={"racks": {"Ben": "K5"}})
    res = client.post("/api/game", json={"players": ["Cid", "Dan", "Eve"], "rules": "american", "first": 2,
                                        "trump": "R7"})
    game = res.get_json()["game"]
    assert game["current"] == "Eve" and game["game"] == "american" and game["trump"] == "R7"
    games = client.get("/api/games").get_json()
    assert [g["players"] for g in games] == [["Cid", "Dan", "Eve"], ["Ann", "Ben"]]
    page = client.get("/new").get_data(as_text=True)
    assert "Earlier games" in page and f'data-resume="{first}"' in page
    assert "Ann" in client.get(f"/scores?game={first}").get_data(as_text=True)
    state = client.post(f"/api/games/{first}/resume").get_json()
    assert state["game"]["players"][0]["name"] == "Ann" and state["scores"]["totals"] == {"Ann": 5, "Ben": -5}
    res = client.post("/api/game", json={"players": ["Solo"]})
    assert res.status_code == 400 and res.get_json()["message"] == "1 player: this tile set is for 2-4 players"


def test_page_is_mobile_ready_and_carries_the_state(client):
    start(client)
    page = client.get("/").get_data(as_text=True)
    assert 'name="viewport"' in page
    assert 'id="clock"' in page and 'id="end-turn"' in page and "app.js" in page
    assert '"current": "Ann"' in page or '"current":"Ann"' in page


def test_events_stream_sends_the_state(client):
    start(client)
    res = client.get("/api/events?once=1")
    assert res.mimetype == "text/event-stream"
    text = res.get_data(as_text=True)
    assert text.startswith("event: state\ndata: ")
    state = json.loads(text.split("data: ", 1)[1])
    assert state["game"]["current"] == "Ann" and len(state["sets"]) == 3


def test_camera_and_snapshot_pictures(client, live):
    assert client.get("/api/snapshot.jpg").status_code == 404
    start(client)
    res = client.get("/api/camera.jpg")
    assert res.mimetype == "image/jpeg" and res.data == live.picture
    assert client.get("/api/snapshot.jpg").data == live.picture


def test_camera_problem_is_reported(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "TICKER": False,
                      "LIVE": FakeLive("", camera_ok=False, camera_error="camera 0 disconnected")})
    state = app.test_client().get("/api/state").get_json()
    assert state["camera"] == dict(state["camera"], ok=False, error="camera 0 disconnected")


# --- malformed requests: 4xx with a message, never a 500 ------------------------------

BAD_REQUESTS = [
    ("post", "/api/game", {"data": "not json", "content_type": "application/json"}, 400, "JSON object"),
    ("post", "/api/game", {"json": [1, 2]}, 400, "JSON object"),
    ("post", "/api/game", {"json": {}}, 400, "players"),
    ("post", "/api/game", {"json": {"players": "Ann, Ben"}}, 400, "players"),
    ("post", "/api/game", {"json": {"players": ["Ann", 3]}}, 400, "players"),
    ("post", "/api/game", {"json": {"players": ["Ann"]}}, 400, "1 player: "),
    ("post", "/api/game", {"json": {"players": ["A", "B"], "rules": "poker"}}, 400, "poker"),
    ("post", "/api/game", {"json": {"players": ["A", "B"], "options": {"colour": 1}}}, 400, "colour"),
    ("post", "/api/game", {"json": {"players": ["A", "B"], "first": "0"}}, 400, "first"),
    ("post", "/api/game", {"json": {"players": ["A", "B"], "trump": "R14"}}, 400, "R14"),
    ("post", "/api/turn/end", {}, 400, "start one first"),
    ("post", "/api/tally/confirm", {"json": {"racks": {}}}, 400, "start one first"),
    ("post", "/api/settings", {"json": {"options": {"initial_meld": -5}}}, 400, "initial_meld"),
    ("post", "/api/settings", {"json": {"hint": "yes"}}, 400, "hint"),
    ("get", "/api/turn/check", {}, 409, "no turn"),
    ("get", "/api/scores", {}, 404, "no game"),
    ("get", "/api/turns?limit=x", {}, 400, "limit"),
    ("get", "/api/nothing-here", {}, 404, ""),
    ("get", "/api/turn/end", {}, 405, ""),
]


@pytest.mark.parametrize("method, url, kwargs, status, words", BAD_REQUESTS)
def test_malformed_requests_get_4xx_json(client, method, url, kwargs, status, words):
    res = getattr(client, method)(url, **kwargs)
    assert res.status_code == status
    body = res.get_json()
    assert body["message"] and words in body["message"]


def test_bad_actions_during_a_game(client):
    start(client)
    assert client.post("/api/turn/end", json={"discard": 5}).status_code == 400
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 400  # no draw in Sabra
    assert client.post("/api/rummikub", json={"count_checked": True, "winner": "Zed"}).status_code == 400
    assert client.post("/api/rack", json={"player": "Ann", "rack": "R5 X3"}).get_json()["message"].count("X3")
    client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"})
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "K99"}})
    assert res.status_code == 400 and "K99" in res.get_json()["message"]
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "K9"}, "extra": {"bogus": 1}})
    assert res.status_code == 400 and "bogus" in res.get_json()["message"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
ENDPOINTS = ["/api/game", "/api/turn/end", "/api/pass", "/api/turn/draw", "/api/rummikub", "/api/tally/read",
             "/api/tally/rack", "/api/tally/confirm", "/api/tally/cancel", "/api/restore/dismiss", "/api/rack",
             "/api/settings", "/api/tally/typing"]
FIELDS = ["players", "rules", "options", "first", "trump", "discard", "source", "winner", "pool_empty",
          "player", "racks", "extra", "hint", "rack", "melded", "turn", "win", "hand", "joker_discard", "phone",
          "typing", "typing_checked"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url=st.sampled_from(ENDPOINTS), payload=st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4),
       with_game=st.booleans())
def test_no_request_body_crashes_the_server(client, url, payload, with_game):
    if with_game:
        client.post("/api/game", json={"players": ["Ann", "Ben"]})
    res = client.post(url, json=payload)
    assert res.status_code < 500, (url, payload, res.get_data(as_text=True)[:300])
    if res.status_code >= 400:
        assert res.get_json()["message"]


def test_hint_and_suggestion_in_the_state(client, live):
    live.set_table("R3 R4 R5 | K5 B5 O5")
    start(client)
    assert client.get("/api/state").get_json()["hint"] is None  # off by default
    client.post("/api/settings", json={"hint": True})
    key = client.post("/api/rack", json={"player": "Ann", "rack": "K10 K11 K12 B2"}).get_json()["hint_key"]
    # the state says whose hint it is; the hint itself goes only to the key's holder (test_webui_hint_private.py)
    assert client.get("/api/state").get_json()["hint"] == {"player": "Ann", "needs_rack": False}
    hint = client.get("/api/hint", headers={"X-Hint-Key": key}).get_json()["hint"]
    assert hint["player"] == "Ann" and sorted(hint["placed"]) == ["K10", "K11", "K12"]
    live.set_table("R3 R4 | R5 K5 B5 O5 | K10 K11 K12")  # legal meld, but the run was broken
    body = client.post("/api/turn/end").get_json()
    assert body["verdict"]["legal"] is False
    assert body["state"]["suggestion"] is not None
    assert ["K10", "K11", "K12"] in body["state"]["suggestion"]


def test_end_turn_waits_for_hands_to_leave_the_table(client, live):
    start(client)
    live.stable = False  # a hand is over the table

    def settle():
        live.set_table("R1 R2 R3 | K7 B7 O7 J | R5 K5 O5 | O11 O12 O13")
        live.stable = True

    import threading

    threading.Timer(0.3, settle).start()
    body = client.post("/api/turn/end").get_json()
    assert body["verdict"]["placed"] == ["O5", "O11", "O12", "O13"]


def test_serve_command_line(capsys):
    from cli import build_parser, main

    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.source, args.db) == ("127.0.0.1", 5000, None, None)
    args = build_parser().parse_args(["serve", "--source", "0", "--host", "0.0.0.0", "--port", "8080",
                                      "--db", "x.sqlite3"])
    assert (args.source, args.host, args.port, args.db) == ("0", "0.0.0.0", 8080, "x.sqlite3")
    assert main(["serve", "--port", "70000"]) == 2
    assert "70000" in capsys.readouterr().err


def test_preview_follows_repairs_after_an_illegal_end(client, live):
    live.set_table("R1 R2 R3")
    start(client)
    live.set_table("R1 R2 R3 | K5 B5")
    body = client.post("/api/turn/end").get_json()
    assert body["verdict"]["legal"] is False
    assert body["state"]["preview"]["legal"] is False
    live.set_table("R1 R2 R3 | K11 B11 O11")  # the player repairs the table
    state = client.get("/api/state").get_json()
    assert state["preview"]["legal"] is True and state["game"]["turn"]["attempt"]["legal"] is False


def test_state_shows_rack_rows_unsure_sets_and_colour_warnings(client, live):
    """A rack row is listed in its order with its total and never judged; an unsure set names its doubtful
    tile; a turn is judged on the table sets alone; the photo's colour warnings reach the page."""
    live.set_table("R1 R2 R3")
    start(client)
    live.set_table("R1 R2 R3 | K5 K6 B7 K8 | R13 J K2", status=["valid", "unsure", "rack"], doubtful=[5],
                   uncertain=[5], warnings=["the photo is very dark: tile colours may be misread"])
    state = client.get("/api/state").get_json()
    table, unsure, rack = state["sets"]
    assert (table["group"], table["status"], table["valid"]) == ("table", "valid", True)
    assert (unsure["status"], unsure["valid"], unsure["doubtful"]) == ("unsure", False, ["B7"])
    assert rack == {**rack, "group": "rack", "status": "rack", "valid": None, "kind": None, "problem": None,
                    "tiles": ["R13", "J", "K2"], "value": 13 + 30 + 2, "doubtful": []}
    assert state["table"] == "R1 R2 R3 | K5 K6 B7 K8"  # no rack tile on the table a turn is judged on
    assert state["warnings"] == ["the photo is very dark: tile colours may be misread"]
    preview = state["preview"]  # the only problem is the unsure set: the page says so and names the tile
    assert preview["legal"] is False and preview["word"] == "UNSURE"
    assert preview["groups"][0] == {"code": "unsure_set", "kind": "A tile may be misread",
                                    "items": ["K5 K6 B7 K8: check B7"]}
    assert [g["code"] for g in preview["groups"][1:]] == ["initial_meld_too_low"]  # counts only valid sets
    # the same tiles with no doubt about them: an invalid set, NOT LEGAL; the rack row still is no set
    live.set_table("R1 R2 R3 | K5 K6 B7 K8 | R13 J K2", status=["valid", "invalid", "rack"])
    state = client.get("/api/state").get_json()
    assert [s["status"] for s in state["sets"]] == ["valid", "invalid", "rack"]
    assert state["preview"]["word"] == "NOT LEGAL" and state["all_valid"] is False
    assert state["preview"]["groups"][0]["code"] == "invalid_set"
    assert state["warnings"] == []


def test_end_turn_refused_only_by_an_unsure_set_reads_unsure(client, live):
    """Pressing End turn on a table whose only fault hangs on a doubtful reading: the rules refuse the
    turn, but the answer says UNSURE and names the tile, as the page's preview does."""
    live.set_table("R1 R2 R3")
    start(client)
    live.set_table("R1 R2 R3 | K5 K6 B7 K8", status=["valid", "unsure"], doubtful=[5], uncertain=[5])
    body = client.post("/api/turn/end").get_json()
    assert body["verdict"]["legal"] is False and body["verdict"]["word"] == "UNSURE"
    assert body["verdict"]["groups"][0]["items"] == ["K5 K6 B7 K8: check B7"]
    assert body["state"]["game"]["current"] == "Ann"  # still refused: the turn goes on
    live.set_table("R1 R2 R3 | K5 K6 B7 K8")  # the same tiles read with no doubt: plainly NOT LEGAL
    assert client.post("/api/turn/end").get_json()["verdict"]["word"] == "NOT LEGAL"


def test_a_set_past_the_photos_edge_reads_unsure_and_says_why(client, live):
    """A set the photo's edge cuts (the reader found a tile past it would make it valid) is not an
    invalid set on the page: the preview reads UNSURE and asks for the camera to be moved."""
    live.set_table("R1 R2 R3")
    start(client)
    live.set_table("R1 R2 R3 | O9 O10", status=["valid", "unsure"], past_edge=[1])
    state = client.get("/api/state").get_json()
    assert [(s["status"], s["past_edge"], s["doubtful"]) for s in state["sets"]] == [
        ("valid", False, []), ("unsure", True, [])]
    assert state["preview"]["word"] == "UNSURE"
    assert state["preview"]["groups"][0] == {
        "code": "unsure_set", "kind": "A set may run past the photo's edge",
        "items": ["O9 O10: runs past the photo's edge, move the camera to see it all"]}
    live.set_table("R1 R2 R3 | O9 O10", status=["valid", "invalid"])  # seen whole and still two tiles
    state = client.get("/api/state").get_json()
    assert state["sets"][1]["past_edge"] is False and state["preview"]["word"] == "NOT LEGAL"


def test_racks_laid_flat_during_the_count_are_totalled_not_judged(client, live):
    """After "Rummikub!", tiles laid beside the final table (a rack emptied onto the table, no rack
    board) are shown as a rack to count with its points, never as an invalid table set."""
    live.set_table("R1 R2 R3 | K7 B7 O7 J")
    start(client, ["Ann", "Ben"])  # Rummikub! judges Ann's turn: the table is as her turn found it
    assert client.post("/api/rummikub", json={"count_checked": True, "winner": "Ann"}).get_json()["state"]["game"]["status"] == "tally"
    live.set_table("R1 R2 R3 | K7 B7 O7 J | B12 J O3")  # Ben empties his rack onto the table
    state = client.get("/api/state").get_json()
    final, group, laid = state["sets"]
    assert (final["group"], final["status"]) == ("table", "valid")
    assert (laid["group"], laid["status"], laid["value"], laid["valid"]) == ("rack", "rack", 12 + 30 + 3, None)
    assert state["preview"] is None  # no turn is judged while the racks are counted
    client.post("/api/tally/cancel")  # back to the game: the same tiles are table tiles again
    state = client.get("/api/state").get_json()
    assert state["sets"][2]["group"] == "table" and state["sets"][2]["status"] == "invalid"
