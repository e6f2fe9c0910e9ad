"""The count of a hand on the page, as found playing International, American and Sabra games on phones:
Foot and Closed wins only for a winner who had not melded, Little Blitz on a first turn, the trump's twin,
the record of a hand (final discard, win, hand type, doubling) on /scores and in the CSV, an honest turn log
(a Rummikub! taken back, turns no camera judged), counts the game says cannot be asked about, and the
tally's words (Flask test client, fake table and clock)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest

from test_webui_fixes import start, state
from webui.db import SCHEMA_VERSION, Store
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive

FOUR_COLOURS = "K1 K2 K3 K4 B5 B6 B7 O8 O9 O10 R11 R12 R13 J"


@pytest.fixture
def live():
    return FakeLive("", camera_ok=False)  # no camera: the players say what each turn did


def press(client, clock, url, payload=None, status=200) -> dict:
    res = client.post(url, json=payload or {})
    assert res.status_code == status, res.get_json()
    clock.advance(PRESS_GUARD_S)
    return res.get_json()


def cid_melds_then_goes_out(client, clock) -> None:
    """International, 4 players (play goes Ann, Dee, Cid, Ben): Cid places 6 tiles, turns go round, Cid
    draws and calls Rummikub! with the final discard J, the count overruled."""
    start(client, ["Ann", "Ben", "Cid", "Dee"], rules="international")
    press(client, clock, "/api/turn/end", {"discard": "O3"})  # Ann, the starter: only discarded
    for who, how in (("Dee", {"discard": "O4"}), ("Cid", {"placed": 6, "discard": "K1"}),
                     ("Ben", {"discard": "O5"}), ("Ann", {"discard": "O6"}), ("Dee", {"discard": "O7"})):
        assert state(client)["game"]["current"] == who
        press(client, clock, "/api/turn/draw", {"source": "pool"})
        press(client, clock, "/api/turn/unseen" if "placed" in how else "/api/turn/end", how)
    cid = state(client)["game"]["players"][2]
    assert (cid["name"], cid["has_melded"], cid["rack_count"]) == ("Cid", True, 8)
    press(client, clock, "/api/turn/draw", {"source": "pool"})
    press(client, clock, "/api/rummikub", {"discard": "J", "count_checked": True})
    for name, rack in (("Ann", "K9"), ("Ben", "K8"), ("Dee", "K7")):
        press(client, clock, "/api/tally/rack", {"player": name, "rack": rack})


def winner_line(client, **query) -> dict:
    res = client.get("/api/tally/points", query_string={"rack": "", **query})
    assert res.status_code == 200, res.get_json()
    return res.get_json()["winner"]


# --- 1. a Foot or Closed win from a player who melded earlier ------------------------------------

def test_a_closed_or_foot_win_is_refused_from_a_winner_who_melded_earlier(client, clock):
    cid_melds_then_goes_out(client, clock)
    assert state(client)["game"]["tally"]["winner_melded"] is True
    for win in ({"win": "closed", "hand": FOUR_COLOURS}, {"win": "foot"}):
        res = client.post("/api/tally/rack", json=win)
        assert res.status_code == 400 and "Cid melded earlier this hand, so cannot" in res.get_json()["message"]
        assert "(International rules: " in res.get_json()["message"]
        line = winner_line(client, **win)
        assert line["words"].startswith(("went out closed: Cid melded earlier", "went out on foot: Cid melded"))
        res = client.post("/api/tally/confirm", json={"extra": win})
        assert res.status_code == 400 and "Cid melded earlier this hand" in res.get_json()["message"]
    assert state(client)["game"]["status"] == "tally" and state(client)["game"]["tally"]["win"] == "open"
    # the players correct the meld first ("placed 6" was a slip): then it is scored
    press(client, clock, "/api/tally/rack", {"player": "Cid", "melded": False})
    press(client, clock, "/api/tally/rack", {"win": "closed", "hand": FOUR_COLOURS})
    assert winner_line(client, win="closed")["words"] == \
        "went out closed: Four colours with 1 joker, 800 points → scores +1600 (doubled by the joker discard)"
    scores = press(client, clock, "/api/tally/confirm", {"melded": {"Ann": True, "Ben": True, "Dee": True}})
    assert scores["result"]["scores"] == {"Ann": -18, "Ben": -16, "Cid": 1600, "Dee": -14}


# --- 2. Little Blitz, and no field silently ignored ---------------------------------------------

def test_a_closed_hand_on_the_first_turn_scores_as_a_little_blitz(client, clock):
    start(client, ["Ann", "Ben"], rules="international")
    press(client, clock, "/api/rummikub", {"discard": "O2", "count_checked": True})
    assert state(client)["game"]["tally"]["first_turn"] is True
    res = client.post("/api/tally/rack", json={"win": "closed", "hand_type": 39})
    assert res.status_code == 400 and "unknown field(s) 'hand_type'" in res.get_json()["message"]
    assert state(client)["game"]["tally"]["win"] == "open"  # nothing entered
    press(client, clock, "/api/tally/rack", {"win": "closed", "hand": FOUR_COLOURS})
    assert winner_line(client, win="closed")["words"] == \
        "went out closed: Little Blitz with 1 joker, 1400 points → scores +1400"
    press(client, clock, "/api/tally/rack", {"player": "Ben", "rack": "K9"})
    assert press(client, clock, "/api/tally/confirm")["result"]["scores"] == {"Ann": 1400, "Ben": -1400}
    hand = client.get("/api/scores").get_json()["hands"][-1]
    assert hand["details"]["closed_hand"] == {"type": 39, "name": "Little Blitz", "jokers": 1, "points": 1400}


# --- 3. the trump's twin -------------------------------------------------------------------------

def test_the_trumps_twin_on_a_rack_is_paid_its_bonus_and_shown(client, clock):
    start(client, ["Ann", "Ben"], rules="international", options={"trump_bonus": 50}, trump="R7")
    press(client, clock, "/api/rummikub", {"discard": "O2", "count_checked": True})
    press(client, clock, "/api/tally/rack", {"player": "Ben", "rack": "R7 K9", "melded": True})
    assert state(client)["game"]["tally"]["trump_holders"] == ["Ben"]
    d = client.get("/api/tally/points", query_string={"rack": "R7 K9", "player": "Ben"}).get_json()
    assert d["trump_twin"] is True and d["score"] == -16 + 50
    assert press(client, clock, "/api/tally/confirm")["result"]["scores"] == {"Ann": 100, "Ben": 34}
    assert "trump&#39;s twin: Ben +50" in client.get("/scores").get_data(as_text=True)


# --- 4 and 5. the record of a hand, and the turn log -----------------------------------------------

def test_the_hand_record_shows_the_win_its_type_the_doubling_and_the_final_discard(client, clock):
    cid_melds_then_goes_out(client, clock)
    press(client, clock, "/api/tally/rack", {"player": "Cid", "melded": False})
    press(client, clock, "/api/tally/rack", {"win": "closed", "hand": FOUR_COLOURS})
    press(client, clock, "/api/tally/confirm")
    how = ("Cid went out closed: Four colours with 1 joker, 800 points; final discard J; doubled by the "
           "joker discard")
    assert client.get("/api/scores").get_json()["hands"][-1]["how"] == how
    page = client.get("/scores").get_data(as_text=True)
    assert how in page and "final discard J" in page
    rows = list(csv.reader(io.StringIO(client.get("/api/scores.csv").get_data().decode("utf-8-sig"))))
    assert rows[0][-1] == "How the hand ended" and rows[1][-1] == how
    log = client.get("/api/turns").get_json()
    assert (log[-1]["action"], log[-1]["discard"], log[-1]["legal"]) == ("rummikub", "J", None)
    assert [t["discard"] for t in log if t["action"] == "discard"] == ["O3", "O4", "O5", "O6", "O7"]
    # no camera judged any of them: none reads legal
    assert {t["legal"] for t in log} == {None}
    assert "not judged: no camera saw the table" in page and ">legal<" not in page


def test_a_rummikub_taken_back_is_marked_in_the_log(client, clock):
    start(client, ["Ann", "Ben"])
    press(client, clock, "/api/rummikub", {"count_checked": True})
    press(client, clock, "/api/tally/cancel")  # Back to the game: the turn goes on
    press(client, clock, "/api/turn/end")  # Ann drew after all
    log = client.get("/api/turns").get_json()
    assert [(t["number"], t["action"], t["taken_back"]) for t in log] == [(1, "rummikub", True), (1, "draw", False)]
    assert "taken back (Back to the game): the turn went on" in client.get("/scores").get_data(as_text=True)


def test_a_database_of_the_version_before_gains_the_record_and_keeps_its_rows(tmp_path):
    path = tmp_path / "v1.sqlite3"
    Store(path).close()
    con = sqlite3.connect(path)  # as the version before made it: no discard, no taken back, no hand details
    con.executescript("ALTER TABLE turns DROP COLUMN discard; ALTER TABLE turns DROP COLUMN taken_back; "
                      "ALTER TABLE turns DROP COLUMN drew; ALTER TABLE hands DROP COLUMN details; "
                      "PRAGMA user_version = 1;")
    con.execute("INSERT INTO games VALUES (1, 1.0, 2.0, '{}', 'playing', '{}')")
    con.execute("INSERT INTO turns (game_id, hand, number, player, started_at, ended_at, action, legal, problems, "
                "placed, penalty, table_before, table_after) VALUES (1, 1, 1, 'Ann', 1.0, 2.0, 'rummikub', 1, "
                "'[]', '', 0, '', '')")
    con.execute("INSERT INTO hands (game_id, number, ended_at, winner, pool_empty, racks) VALUES "
                "(1, 1, 3.0, 'Ann', 0, ?)", (json.dumps({"Ann": "", "Ben": "K5"}),))
    con.commit()
    con.close()
    store = Store(path)
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    assert store.hands(1)[0]["details"] == {}
    turn = store.turns(1)[0]
    assert (turn["discard"], turn["taken_back"], turn["drew"]) == (None, False, None)
    store.save(1, {"status": "playing"}, taken_back=(1, 1))
    assert store.turns(1)[0]["taken_back"] is True
    store.close()


def test_a_database_of_version_2_gains_where_each_draw_came_from_and_keeps_its_rows(tmp_path):
    path = tmp_path / "v2.sqlite3"
    Store(path).close()
    con = sqlite3.connect(path)
    con.executescript("ALTER TABLE turns DROP COLUMN drew; PRAGMA user_version = 2;")
    con.execute("INSERT INTO games VALUES (1, 1.0, 2.0, '{}', 'playing', '{}')")
    con.execute("INSERT INTO turns (game_id, hand, number, player, started_at, ended_at, action, legal, problems, "
                "placed, penalty, table_before, table_after, discard) VALUES (1, 1, 1, 'Ann', 1.0, 2.0, 'discard', "
                "1, '[]', '', 0, '', '', 'K3')")
    con.commit()
    con.close()
    store = Store(path)
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == 3
    assert [(t["player"], t["discard"], t["drew"]) for t in store.turns(1)] == [("Ann", "K3", None)]
    store.close()


# --- 6. counts the game's own record says cannot be ------------------------------------------------

def test_a_rack_of_more_tiles_than_the_count_is_asked_about_and_kept_when_the_players_say_so(client, clock):
    start(client, ["Ann", "Ben"])
    press(client, clock, "/api/rummikub", {"count_checked": True})
    big = " ".join(f"{c}{n}" for c in "KBOR" for n in range(1, 11)) + " K11 K12"
    res = client.post("/api/tally/rack", json={"player": "Ben", "rack": big})
    assert res.status_code == 400
    assert res.get_json()["ask"] == {"question": "By the count Ben holds 14 tiles, but 42 were typed. Save the rack "
                                                 "anyway?", "send": {"count_checked": True}}
    assert state(client)["game"]["tally"]["racks"]["Ben"] is None
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": big}})
    assert res.status_code == 400 and "by the count Ben holds 14" in res.get_json()["message"]
    press(client, clock, "/api/tally/rack", {"player": "Ben", "rack": big, "count_checked": True})
    assert state(client)["game"]["tally"]["racks"]["Ben"] == big


def test_racks_the_box_cannot_hold_together_are_refused_naming_whose(client, clock):
    start(client, ["Ann", "Ben", "Cid"])
    press(client, clock, "/api/rummikub", {"count_checked": True})
    press(client, clock, "/api/tally/rack", {"player": "Ben", "rack": "R5 R5 J"})
    press(client, clock, "/api/tally/rack", {"player": "Cid", "rack": "R5 J J"})
    res = client.post("/api/tally/confirm", json={})
    assert res.status_code == 400
    assert "3 x R5 (Ben 2, Cid 1), 3 x J (Ben 1, Cid 2)" in res.get_json()["message"]


def test_a_first_meld_no_camera_saw_is_asked_about(client, clock):
    start(client, ["Ann", "Ben"])
    res = client.post("/api/turn/unseen", json={"placed": 1})
    assert res.status_code == 400 and "1 tile cannot be one" in res.get_json()["message"]
    assert res.get_json()["ask"]["send"] == {"count_checked": True}
    assert state(client)["game"]["players"][0]["has_melded"] is False
    res = client.post("/api/turn/unseen", json={"tiles": "R1 R2 R3"})
    assert res.status_code == 400 and "R1 R2 R3 make sets worth 6 points at most" in res.get_json()["message"]
    g = press(client, clock, "/api/turn/unseen", {"placed": 1, "count_checked": True})["state"]["game"]
    assert g["players"][0]["has_melded"] and g["players"][0]["rack_count"] == 13


# --- 7. the tally's words ----------------------------------------------------------------------------

def test_every_win_says_its_points_and_then_the_score_after_the_doubling(client, clock):
    start(client, ["Ann", "Ben"], rules="international")
    press(client, clock, "/api/rummikub", {"discard": "J", "count_checked": True})
    assert winner_line(client, win="foot")["words"] == \
        "went out on foot: 200 points → scores +400 (doubled by the joker discard)"
    assert winner_line(client, win="open")["words"] == \
        "went out open: 200 points, nobody else has melded → scores +400 (doubled by the joker discard)"
    assert winner_line(client, win="closed")["words"] == \
        "went out closed: type the closed hand's 14 tiles to see what it scores"
    tally = state(client)["game"]["tally"]
    assert tally["discard"] == "J" and tally["pool_empty"] is False
    page = client.get("/").get_data(as_text=True)
    assert 'id="tally-empty-rule"' in page and 'id="winner-melded"' in page


def test_the_trump_on_an_open_win_is_said_before_the_confirm(client, clock):
    start(client, ["Ann", "Ben"], rules="international", trump="R7")
    press(client, clock, "/api/turn/end", {"discard": "K3"})
    press(client, clock, "/api/turn/draw", {"source": "trump"})
    press(client, clock, "/api/rummikub", {"discard": "K4", "count_checked": True})
    assert "the trump may not be the final draw of an Open win" in winner_line(client, win="open")["words"]
    assert winner_line(client, win="foot")["words"] == "went out on foot: 200 points → scores +200"


def test_the_switch_of_game_is_asked_in_the_names_players_know(client):
    start(client, ["Ann", "Ben"], rules="sabra")
    res = client.post("/api/settings", json={"rules": "american"})
    assert res.status_code == 409
    assert res.get_json()["ask"].startswith("The game on the table plays Sabra rules. Switch it to American?")
