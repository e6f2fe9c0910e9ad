"""What the page says and offers, through Flask's test client: no layout offered for a table whose sets are
all valid, names cleaned before they are compared, the CSV a spreadsheet opens, the rules New game shows."""

from __future__ import annotations

import csv
import re

import pytest

from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


def start(client, players=("Ann", "Ben"), **extra):
    res = client.post("/api/game", json={"players": list(players), **extra})
    assert res.status_code == 201, res.get_json()
    return res.get_json()


def test_a_first_meld_too_low_offers_no_layout_and_says_the_sets_are_fine(client, live):
    start(client)
    client.post("/api/settings", json={"hint": True})
    live.set_table("K9 B9 O9")  # a valid group worth 27: the first meld needs 30
    body = client.post("/api/turn/end").get_json()
    assert body["verdict"]["legal"] is False
    state = body["state"]
    assert state["suggestion"] is None  # it would be the very table just refused
    fine = state["game"]["turn"]["attempt"]["sets_fine"]
    assert fine == ("The sets are all valid: the turn is refused for a first meld short of its points, "
                    "not for how the tiles are laid out.")
    assert state["preview"]["sets_fine"] == fine


def test_tiles_not_on_the_typed_rack_offer_no_layout(client, live):
    start(client)
    client.post("/api/settings", json={"hint": True})
    client.post("/api/rack", json={"player": "Ann", "rack": "R1 R2 R3 K4 K5 K6 B8 B9 B10 O1 O2 O3 J K13"})
    live.set_table("O11 O12 O13")
    state = client.post("/api/turn/end").get_json()["state"]
    assert state["suggestion"] is None
    fine = state["game"]["turn"]["attempt"]["sets_fine"]
    assert "tiles that were not on the player's rack" in fine and "O11" not in fine


def test_a_broken_set_still_gets_a_layout_and_no_sets_fine_line(client, live):
    live.set_table("R3 R4 R5 | K5 B5 O5")
    start(client)
    client.post("/api/settings", json={"hint": True})
    live.set_table("R3 R4 | R5 K5 B5 O5 | K10 K11 K12")
    state = client.post("/api/turn/end").get_json()["state"]
    assert state["game"]["turn"]["attempt"]["sets_fine"] is None
    assert ["K10", "K11", "K12"] in state["suggestion"]


@pytest.mark.parametrize("players, said", [
    (["Ann", "Ann\u200b"], "player names must differ: players 1 and 2 are both Ann"),  # a zero-width space
    (["Ann", "A\u200dnn"], "players 1 and 2 are both Ann"),  # a zero-width joiner
    (["\ufeffBen", "Ben"], "players 1 and 2 are both Ben"),  # a byte-order mark pasted in
    (["Cid", "\u202eCid\u202c"], "players 1 and 2 are both Cid"),  # bidi controls
    (["Zo\u00eb", "Zoe\u0308"], "players 1 and 2 are both Zo\u00eb"),  # the same letters, two encodings
    (["Ann  Lee", "ann\u00a0lee"], "players 1 and 2 are both ann lee"),  # spaces of any kind, letter case
    (["Ann", "\u200b\u200d"], "player 2 has no name (it holds only characters that do not show"),
])
def test_names_are_cleaned_before_they_are_compared(client, players, said):
    res = client.post("/api/game", json={"players": players})
    assert res.status_code == 400 and said in res.get_json()["message"], res.get_json()


def test_a_cleaned_name_is_the_one_kept_and_shown(client):
    state = start(client, [" Ann \u00a0 Lee\u200b", "\ufeffZo\u0065\u0308"])
    assert [p["name"] for p in state["game"]["players"]] == ["Ann Lee", "Zo\u00eb"]
    assert "<strong>Ann Lee, Zo\u00eb</strong>" in client.get("/new").get_data(as_text=True)


def test_the_csv_starts_with_a_bom_so_a_spreadsheet_reads_its_letters(client, tmp_path):
    start(client, ["Zo\u00eb", "\u0141ukasiewicz"])
    client.post("/api/rummikub", json={"count_checked": True})
    assert client.post("/api/tally/confirm", json={"racks": {"\u0141ukasiewicz": "B12 J"}}).status_code == 200
    res = client.get("/api/scores.csv")
    assert res.headers["Content-Type"] == "text/csv; charset=utf-8"
    data = res.get_data()
    assert data.startswith(b"\xef\xbb\xbf") and "Zo\u00eb".encode() in data
    path = tmp_path / "sheet.csv"
    path.write_bytes(data)
    with open(path, encoding="utf-8-sig", newline="") as f:  # as Python's csv module reads a saved file
        rows = list(csv.reader(f))
    assert rows[0] == ["", "Zo\u00eb", "\u0141ukasiewicz", "How the hand ended"]
    assert rows[1] == ["Hand 1", "42", "-42", "Zo\u00eb went out"]


def test_a_time_out_says_who_takes_back_what_without_his(app, client, live, clock):
    start(client)
    live.set_table("K9 B9")  # Ann lays two tiles: no set
    clock.advance(61)
    app.extensions["companion"].tick()  # the clock's ticker
    state = client.get("/api/state").get_json()
    last = state["game"]["last"]["note"]
    assert last.endswith("put it back; Ann takes back the tiles played and draws 3") and " his " not in last
    assert sorted(state["game"]["restore"]["placed"]) == ["B9", "K9"]


def test_a_time_out_that_played_no_tile_takes_none_back(app, client, live, clock):
    live.set_table("R1 R2 R3 R4")
    start(client)
    live.set_table("R1 R2 | R3 R4")  # a run split, no tile played
    clock.advance(61)
    app.extensions["companion"].tick()
    state = client.get("/api/state").get_json()
    assert state["game"]["last"]["note"].endswith("put it back; Ann draws 3")
    assert state["game"]["restore"]["placed"] == []


def test_a_lost_camera_is_said_in_players_words_the_path_folded_away(client, live):
    live.camera_ok, live.camera_error = False, "the video /srv/club/table.mp4 is gone; retrying in 2.0 s"
    live.set_table("")
    notice = client.get("/api/state").get_json()["camera"]["notice"]
    assert notice["text"] == ("The camera sends no pictures (it stopped, or never started). The companion "
                              "keeps trying it, and this notice goes by itself once pictures come again. The game goes on without it: End "
                              "turn asks what each turn did, and the racks are typed at the count.")
    assert notice["details"] == "The video /srv/club/table.mp4 is gone."  # no "retrying in 2.0 s" that never moves
    live.camera_error = "no images (.bmp, .jpeg, .jpg, .png, .tif, .tiff, .webp) in /srv/club/photos"
    live.set_table("")
    notice = client.get("/api/state").get_json()["camera"]["notice"]
    assert notice["text"].startswith("No camera sees the table. The game goes on")
    assert ".jpeg" not in notice["text"] and "/srv" not in notice["text"] and ".jpeg" in notice["details"]
    live.camera_ok, live.camera_error = True, None
    live.set_table("")
    assert client.get("/api/state").get_json()["camera"]["notice"] is None
    # working, but a picture of the slideshow was skipped: that file is named (it was said nowhere)
    live.camera_error = "skipped zz_bad.jpg: not a readable image (corrupt, truncated or not a picture)"
    live.set_table("")
    assert client.get("/api/state").get_json()["camera"]["notice"] == {
        "text": "Skipped zz_bad.jpg: not a readable image (corrupt, truncated or not a picture); the pictures go "
                "on without it.", "details": None}


def test_taking_over_the_demo_is_said_once_and_for_players(tmp_path, clock):
    from test_webui_fixes import demo_app

    live = FakeLive("R10 R11 R12")
    live.start()
    client = demo_app(tmp_path, clock, live).test_client()
    notice = start(client, ["Zoe", "Yan"])["camera"]["notice"]
    text = notice["text"]
    assert text.startswith("No camera: the recorded demo game stopped when you took over")
    assert "--source" not in text and "(" not in text and text.count("End turn asks") == 1
    assert "--source 0" in notice["details"]  # for whoever starts the server, folded away


def clock_field(page: str) -> str:
    return re.search(r'id="opt-turn_time_limit"[^>]*value="(\d*)"', page).group(1)


def test_new_game_fills_in_the_clock_settings_shows(client):
    first = start(client, ["Ann", "Ben"], options={"turn_time_limit": 16})["game"]["id"]
    start(client, ["Cid", "Dan"], options={"turn_time_limit": 60})  # saved for new games too
    assert client.post(f"/api/games/{first}/resume", json={}).status_code == 200
    # Settings shows the game on the table, 16 s; New game said "as set on Settings" beside 60 s
    assert clock_field(client.get("/settings").get_data(as_text=True)) == "16"
    assert clock_field(client.get("/new").get_data(as_text=True)) == "16"


def test_the_dealt_hand_names_its_rules_only_when_they_changed(client):
    start(client)
    client.post("/api/rummikub", json={"count_checked": True})
    game = client.post("/api/tally/confirm", json={"racks": {"Ben": "K5"}}).get_json()["state"]["game"]
    assert game["status"] == "dealing" and game["rules_changed"] is False  # hand 2 plays as hand 1 did
    client.post("/api/settings", json={"options": {"rounds": 3}})  # the length counts at once: no news for the hand
    assert client.get("/api/state").get_json()["game"]["rules_changed"] is False
    client.post("/api/settings", json={"options": {"joker_penalty": 25}})
    game = client.get("/api/state").get_json()["game"]
    assert game["rules_changed"] is True and game["rules"] == "Sabra rules, 30-point first meld, 60 s a turn"
    client.post("/api/hand/start", json={})
    assert client.get("/api/state").get_json()["game"]["rules_changed"] is False
