"""The count at a club table: each player types their own rack on their own phone, any phone confirms.

Two phones are two requests of the Flask test client (a fake live table and a fake clock, as in
test_webui_round2.py): what one enters is in every /api/state and event stream, and is what the
confirm scores.
"""

from __future__ import annotations

import json

import pytest

from test_webui_fixes import state
from test_webui_round2 import ann_goes_out
from webui.app import create_app
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


def counting(client, live, players=("Ann", "Ben", "Cid"), **extra) -> str:
    """Ann went out on the first turn; the turn id the count's presses name."""
    return ann_goes_out(client, live, players, **extra)["game"]["turn"]["id"]


def entered(client, live, **racks) -> None:
    """The count open, these racks entered (one request each, as each player's own phone would)."""
    counting(client, live)
    for name, rack in racks.items():
        assert client.post("/api/tally/rack", json={"player": name, "rack": rack}).status_code == 200


def test_a_rack_typed_on_one_phone_is_on_the_other_which_confirms(app, client, live):
    turn = counting(client, live)
    ben, cid = client, app.test_client()  # two phones
    res = ben.post("/api/tally/rack", json={"player": "Ben", "rack": "r5 k7", "turn": turn})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["rack"] == "R5 K7" and res.get_json()["state"]["game"]["tally"]["racks"]["Ben"] == "R5 K7"
    assert cid.post("/api/tally/rack", json={"player": "Cid", "rack": "J", "turn": turn}).status_code == 200
    racks = state(ben)["game"]["tally"]["racks"]
    assert racks == {"Ann": "", "Ben": "R5 K7", "Cid": "J"}
    # the event stream carries it to every page too
    pushed = json.loads(cid.get("/api/events?once=1").get_data(as_text=True).split("data: ", 1)[1])
    assert pushed["game"]["tally"]["racks"] == racks
    res = cid.post("/api/tally/confirm", json={"turn": turn})  # no racks sent: the entered ones
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["result"]["scores"] == {"Ann": 42, "Ben": -12, "Cid": -30}


def test_a_rack_sent_with_the_confirm_wins_a_blank_one_keeps_the_entered_rack(client, live):
    entered(client, live, Ben="R5 K7", Cid="J")
    # an older page sends every box, Cid's blank (it never saw Cid's rack), Ben's as it shows it
    res = client.post("/api/tally/confirm", json={"racks": {"Ben": "R1", "Cid": None}})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["result"]["scores"] == {"Ann": 31, "Ben": -1, "Cid": -30}


def test_a_cleared_rack_is_not_given(client, live):
    entered(client, live, Ben="R5", Cid="R6")
    res = client.post("/api/tally/rack", json={"player": "Ben", "rack": "  "})
    assert res.status_code == 200 and res.get_json()["rack"] is None
    assert state(client)["game"]["tally"]["racks"]["Ben"] is None
    res = client.post("/api/tally/confirm", json={})
    assert res.status_code == 400 and "rack not given for Ben" in res.get_json()["message"]


@pytest.mark.parametrize("payload, words", [
    ({"player": "Ben", "rack": "R5 X9"}, "Ben's rack: 'X9' is not a tile"),
    ({"player": "Ben", "rack": "R5 R5 R5"}, "Ben's rack: cannot score this hand: more copies than the box holds: 3 x R5"),
    ({"player": "Ben", "rack": "J J J"}, "Ben's rack: cannot score this hand: more copies than the box holds: 3 x J"),
    ({"player": "Ann", "rack": "R5"}, "Ann went out, so that rack is empty"),
    ({"player": "Dee", "rack": "R5"}, "'Dee' is not playing"),
    ({"player": "Ben", "rack": 5}, "field 'rack' must be text, not a whole number"),
    ({"player": "Ben", "melded": "yes"}, "field 'melded' must be true or false, not text"),
    ({"player": "Ann", "melded": False}, "Ann went out, so has melded"),
    ({"player": "Ben"}, "send 'rack' (tile codes; blank: not given yet) or 'melded' (true or false)"),
])
def test_entries_the_box_or_the_game_cannot_take_are_refused_in_words(client, live, payload, words):
    entered(client, live, Ben="K9")
    res = client.post("/api/tally/rack", json=payload)
    assert res.status_code == 400 and words in res.get_json()["message"], res.get_json()
    assert state(client)["game"]["tally"]["racks"] == {"Ann": "", "Ben": "K9", "Cid": None}  # nothing changed


def test_melded_corrections_are_shared_and_scored(app, client, live):
    turn = counting(client, live, rules="israeli")
    other = app.test_client()
    res = client.post("/api/tally/rack", json={"player": "Ben", "rack": "R5", "melded": True, "turn": turn})
    assert res.status_code == 200 and res.get_json()["melded"] is True
    tally = state(other)["game"]["tally"]
    assert tally["melded"] == {"Ann": None, "Ben": True, "Cid": None}
    # the preview counts the correction without being told
    assert other.get("/api/tally/points?rack=R5&player=Ben").get_json()["score"] == 5
    other.post("/api/tally/rack", json={"player": "Cid", "rack": "K2 K3"})
    res = other.post("/api/tally/confirm", json={"turn": turn})
    assert res.get_json()["result"]["scores"] == {"Ann": -100, "Ben": 5, "Cid": 100}


def test_a_camera_read_rack_lands_in_the_same_place(client, live):
    counting(client, live)
    live.set_table("R10 R11")  # Ben lays his rack in view
    res = client.post("/api/tally/read", json={"player": "Ben"})
    assert res.status_code == 200 and res.get_json()["rack"] == "R10 R11"
    tally = state(client)["game"]["tally"]
    assert tally["racks"]["Ben"] == "R10 R11" and tally["read"]["Ben"] is True
    client.post("/api/tally/rack", json={"player": "Ben", "rack": "R10 R12"})  # corrected by hand
    tally = state(client)["game"]["tally"]
    assert tally["racks"]["Ben"] == "R10 R12" and tally["read"]["Ben"] is False


def test_an_entry_for_a_count_that_is_over_is_refused_with_409(app, client, live):
    entered(client, live, Ben="R5", Cid="R6")
    turn = state(client)["game"]["turn"]["id"]
    other = app.test_client()
    assert client.post("/api/tally/confirm", json={"turn": turn}).status_code == 200
    # the other phone had not seen the confirm yet
    for url, payload in (("/api/tally/rack", {"player": "Ben", "rack": "R7"}),
                         ("/api/tally/read", {"player": "Ben"}), ("/api/tally/confirm", {})):
        res = other.post(url, json=dict(payload, turn=turn))
        assert res.status_code == 409, (url, res.get_json())
        assert res.get_json()["message"].startswith("the count of that hand is over (scored on another phone?)")
    g = state(other)["game"]
    assert g["status"] == "dealing" and len(state(other)["scores"]["hands"]) == 1


def test_the_entries_survive_a_restart_mid_count(client, live, clock, tmp_path, app):
    turn = counting(client, live, rules="israeli")
    client.post("/api/tally/rack", json={"player": "Ben", "rack": "R5 J", "melded": True})
    app.extensions["companion"].session.store.close()
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live,
                        "TICKER": False, "NOW": clock})
    try:
        phone = again.test_client()
        tally = state(phone)["game"]["tally"]
        assert tally["racks"]["Ben"] == "R5 J" and tally["melded"]["Ben"] is True
        phone.post("/api/tally/rack", json={"player": "Cid", "rack": "K2"})
        res = phone.post("/api/tally/confirm", json={"turn": turn})
        assert res.status_code == 200 and res.get_json()["result"]["scores"] == {"Ann": -100, "Ben": 35, "Cid": 100}
    finally:
        again.extensions["companion"].session.store.close()
