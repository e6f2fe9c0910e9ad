"""International at a club table: the win (open, foot or closed), the closed hand and the joker discard
entered on one phone are the game's: every page shows them, the previews and the confirm of another
phone score them (Flask test client, fake table and clock; two phones are two clients)."""

from __future__ import annotations

import json

import pytest

from test_game_closed_preview import ROYAL
from test_webui_fixes import state
from test_webui_round2 import ann_goes_out
from webui.app import create_app
from webui_fakes import FakeLive

CLOSED = {"win": "closed", "hand": ROYAL, "joker_discard": True}


@pytest.fixture
def live():
    return FakeLive("")


def counting(client, live, rules="international") -> str:
    """Ann went out (final discard K1); Ben (melded, he says) and Cid (never melded) entered their racks."""
    turn = ann_goes_out(client, live, ("Ann", "Ben", "Cid"), rules=rules)["game"]["turn"]["id"]
    assert client.post("/api/tally/rack", json={"player": "Ben", "rack": "K5 O12", "melded": True}).status_code == 200
    assert client.post("/api/tally/rack", json={"player": "Cid", "rack": "B2"}).status_code == 200
    return turn


def test_a_closed_win_entered_on_one_phone_is_scored_by_another_that_sends_nothing(app, client, live):
    turn = counting(client, live)
    ann, cid = client, app.test_client()
    res = ann.post("/api/tally/rack", json={**CLOSED, "hand": ROYAL.lower(), "turn": turn})  # no player needed
    assert res.status_code == 200, res.get_json()
    entered = {"win": "closed", "hand": ROYAL, "joker_discard": True}
    assert {k: res.get_json()[k] for k in entered} == entered and "player" not in res.get_json()
    tally = state(cid)["game"]["tally"]
    assert {k: tally[k] for k in entered} == entered
    pushed = json.loads(cid.get("/api/events?once=1").get_data(as_text=True).split("data: ", 1)[1])
    assert {k: pushed["game"]["tally"][k] for k in entered} == entered
    # Cid's phone previews the win without being told it
    d = cid.get("/api/tally/points", query_string={"rack": "B2", "player": "Cid"}).get_json()
    assert d["closed"]["name"] == "Royal" and d["closed"]["winner_score"] == 4800 and d["score"] == -4800
    res = cid.post("/api/tally/confirm", json={"turn": turn})  # an empty body: what the count holds
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["result"]["scores"] == {"Ann": 4800, "Ben": -30, "Cid": -4800}
    assert state(ann)["scores"]["hands"][-1]["scores"] == {"Ann": 4800, "Ben": -30, "Cid": -4800}


def test_the_details_are_entered_one_at_a_time_and_cleared(client, live):
    counting(client, live)
    client.post("/api/tally/rack", json={"win": "closed"})
    client.post("/api/tally/rack", json={"hand": ROYAL})
    tally = state(client)["game"]["tally"]
    assert (tally["win"], tally["hand"], tally["joker_discard"]) == ("closed", ROYAL, False)
    res = client.post("/api/tally/rack", json={"win": None, "hand": " "})  # not said (Open), no hand
    assert (res.get_json()["win"], res.get_json()["hand"]) == ("open", None)
    assert client.post("/api/tally/confirm", json={}).get_json()["result"]["scores"] == \
        {"Ann": 100, "Ben": -15, "Cid": -100}


def test_a_detail_in_the_confirm_body_wins_a_blank_one_leaves_the_entered_one(client, live):
    counting(client, live)
    client.post("/api/tally/rack", json=CLOSED)
    # an older page sends its own select (foot) and a blank hand: the foot win counts, doubled as entered
    res = client.post("/api/tally/confirm", json={"extra": {"win": "foot", "hand": ""}})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["result"]["scores"] == {"Ann": 400, "Ben": -30, "Cid": -200}
    # taken back, the count shows the win it was scored with
    assert client.post("/api/tally/undo").status_code == 200
    tally = state(client)["game"]["tally"]
    assert (tally["win"], tally["hand"], tally["joker_discard"]) == ("foot", ROYAL, True)
    res = client.post("/api/tally/confirm", json={"extra": {"win": None, "joker_discard": False}})
    assert res.get_json()["result"]["scores"] == {"Ann": 200, "Ben": -15, "Cid": -100}


def test_taking_the_hand_back_brings_the_win_back_after_a_restart(client, live, clock, tmp_path, app):
    turn = counting(client, live)
    client.post("/api/tally/rack", json=CLOSED)
    app.extensions["companion"].session.store.close()
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live,
                        "TICKER": False, "NOW": clock})
    try:
        phone = again.test_client()
        assert state(phone)["game"]["tally"]["hand"] == ROYAL
        assert phone.post("/api/tally/confirm", json={"turn": turn}).get_json()["result"]["scores"]["Ann"] == 4800
        assert phone.post("/api/tally/undo").status_code == 200
        tally = state(phone)["game"]["tally"]
        assert (tally["win"], tally["hand"], tally["joker_discard"]) == ("closed", ROYAL, True)
    finally:
        again.extensions["companion"].session.store.close()


@pytest.mark.parametrize("payload, words", [
    ({"hand": "R1 R2 X3"}, "the closed hand: 'X3' is not a tile"),
    ({"hand": "R1 R2 R3"}, "the closed hand: a closed hand has 14 tiles, not 3"),
    ({"hand": "K1 K5 B9 O2 R7 K11 B3 O13 R4 K8 B6 O10 R12 K2"},
     "the closed hand: the closed hand's 14 tiles make none of the 40 hand types"),
    ({"hand": "R5 R5 R5 R1 R2 R3 R4 R6 R7 R8 R9 R10 R11 R12"}, "the closed hand: more copies than the box holds"),
    ({"win": "sideways"}, "unknown win 'sideways' (open, foot or closed)"),
    ({"win": 1}, "field 'win' must be text, not a whole number"),
    ({"joker_discard": "yes"}, "field 'joker_discard' must be true or false, not text"),
    ({"hand": ["R1"]}, "field 'hand' must be text, not a list"),
    ({"win": "open", "player": "Dee"}, "'Dee' is not playing"),
    ({"rack": "R5"}, "missing field 'player'"),
    ({}, "or the International win: 'win', 'hand', 'joker_discard'"),
])
def test_win_details_that_cannot_be_entered_are_refused_in_words(client, live, payload, words):
    counting(client, live)
    client.post("/api/tally/rack", json={"win": "foot"})
    res = client.post("/api/tally/rack", json=payload)
    assert res.status_code == 400 and words in res.get_json()["message"], res.get_json()
    tally = state(client)["game"]["tally"]
    assert (tally["win"], tally["hand"], tally["joker_discard"]) == ("foot", None, False)  # nothing changed


def test_only_an_international_winner_has_a_win(client, live):
    ann_goes_out(client, live, ("Ann", "Ben"))  # Sabra
    tally = state(client)["game"]["tally"]
    assert (tally["win"], tally["hand"], tally["joker_discard"]) == (None, None, None)
    res = client.post("/api/tally/rack", json={"win": "closed"})
    assert res.status_code == 400 and "entered only in the International game" in res.get_json()["message"]
