"""A rack the camera reads at the count is checked against the game's count (rules.game_reads): kept, but
questioned on every phone when it cannot be right, and the confirm asks before scoring it."""

from __future__ import annotations

import pytest

from test_webui_fixes import state
from test_webui_round2 import ann_goes_out
from webui_fakes import FakeLive

FOURTEEN = "K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B1"


@pytest.fixture
def live():
    return FakeLive("")


def test_a_read_of_too_few_tiles_is_kept_questioned_on_every_phone_and_asked_at_the_confirm(app, client, live):
    turn = ann_goes_out(client, live, ("Ann", "Ben"))["game"]["turn"]["id"]
    other = app.test_client()  # another phone
    live.set_table("K1 K2 K3 K4 K5 K6 K7 K8 K9")  # a hand hides five of Ben's tiles
    res = client.post("/api/tally/read", json={"player": "Ben", "turn": turn})
    assert res.status_code == 200, res.get_json()
    question = "the camera read 9 tiles; Ben should hold 14: read again or type the rack"
    assert res.get_json()["rack"] == "K1 K2 K3 K4 K5 K6 K7 K8 K9" and res.get_json()["doubt"] == question
    tally = state(other)["game"]["tally"]
    assert tally["racks"]["Ben"] == "K1 K2 K3 K4 K5 K6 K7 K8 K9" and tally["read"]["Ben"] is True
    assert tally["doubts"] == {"Ann": None, "Ben": question}
    res = other.post("/api/tally/confirm", json={"turn": turn})
    assert res.status_code == 400 and "the camera's reading is in doubt" in res.get_json()["message"]
    assert res.get_json()["ask"] == {
        "question": "The camera's reading does not match the count (Ben: the camera read 9 tiles; Ben should hold "
                    "14). Score the rack as read?", "send": {"count_checked": True}}
    assert state(other)["game"]["status"] == "tally"
    res = other.post("/api/tally/confirm", json={"turn": turn, "count_checked": True})  # the count is wrong
    assert res.status_code == 200 and res.get_json()["result"]["scores"] == {"Ann": 45, "Ben": -45}


def test_read_again_right_the_question_goes(client, live):
    ann_goes_out(client, live, ("Ann", "Ben"))
    live.set_table("K1 K2")
    assert client.post("/api/tally/read", json={"player": "Ben"}).get_json()["doubt"]
    live.set_table(FOURTEEN)
    res = client.post("/api/tally/read", json={"player": "Ben"})
    assert res.get_json()["doubt"] is None and state(client)["game"]["tally"]["doubts"]["Ben"] is None
    assert client.post("/api/tally/confirm", json={}).status_code == 200


def test_a_third_copy_read_is_kept_and_questioned_instead_of_refused(client, live):
    ann_goes_out(client, live, ("Ann", "Ben", "Cid"))
    client.post("/api/tally/rack", json={"player": "Cid", "rack": "R5"})
    live.set_table("R5 R5 K2")  # the camera read R6 as R5
    res = client.post("/api/tally/read", json={"player": "Ben"})
    assert res.status_code == 200 and res.get_json()["rack"] == "K2 R5 R5"
    assert res.get_json()["doubt"] == ("the camera read 3 tiles; Ben should hold 14; the camera read a third R5 (the "
                                       "standard 106-tile box holds 2: 2 on Ben's rack, 1 on Cid's rack): read again "
                                       "or type the rack")
    res = client.post("/api/tally/confirm", json={"count_checked": True})  # not scored as it stands
    assert res.status_code == 400
    assert "more copies than the box holds: 3 x R5 (Ben 2, Cid 1)" in res.get_json()["message"]
    res = client.post("/api/tally/rack", json={"player": "Ben", "rack": "K2 R5 R6"})  # typed right
    assert res.status_code == 200 and res.get_json()["state"]["game"]["tally"]["doubts"]["Ben"] is None
    assert client.post("/api/tally/confirm", json={}).status_code == 200


def test_read_takes_a_rack_turned_to_the_camera(client, live):
    """Ben turns his rack to the camera: its rows are rack rows, left out of the table the turns are judged
    on, and Read takes them (it used to find "no tiles in view")."""
    turn = ann_goes_out(client, live, ("Ann", "Ben"))["game"]["turn"]["id"]
    live.set_table("K1 K2 K3 K4 K5 K6 K7 | K8 K9 K10 K11 K12 K13 B1", status=["rack", "rack"])
    res = client.post("/api/tally/read", json={"player": "Ben", "turn": turn})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["rack"] == FOURTEEN and res.get_json()["doubt"] is None
    assert state(client)["game"]["tally"]["racks"]["Ben"] == FOURTEEN
