"""A rack being typed on one phone is not lost to a Confirm pressed on another (webui.rack_typing): the typing
phone says so at its first key, and until the rack is saved (or the mark lapses) Confirm elsewhere asks
first.  Two phones are two Flask test clients, on a fake clock."""

from __future__ import annotations

import pytest

from test_webui_fixes import state
from test_webui_round2 import ann_goes_out
from webui.rack_typing import TYPING_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


@pytest.fixture
def count(app, client, live):
    """Ann went out; Ben's rack R5 and Cid's K2 are saved; Ben's and Cid's phones, and the count's turn id."""
    turn = ann_goes_out(client, live, ("Ann", "Ben", "Cid"))["game"]["turn"]["id"]
    for name, rack in (("Ben", "R5"), ("Cid", "K2")):
        assert client.post("/api/tally/rack", json={"player": name, "rack": rack}).status_code == 200
    return client, app.test_client(), turn


def typing(phone, turn, player="Ben", **extra):
    return phone.post("/api/tally/typing", json={"player": player, "phone": "ben-phone", "turn": turn, **extra})


def test_confirm_asks_while_another_phone_types_a_rack_not_saved_yet(count):
    ben, cid, turn = count
    res = typing(ben, turn)
    assert res.status_code == 200 and res.get_json()["typing"] == {"Ben": TYPING_S}
    assert state(cid)["game"]["tally"]["typing"] == {"Ben": TYPING_S}  # every phone sees it
    res = cid.post("/api/tally/confirm", json={"turn": turn, "phone": "cid-phone"})
    assert res.status_code == 400, res.get_json()
    assert res.get_json()["message"] == ("Ben's rack is being typed on another phone and not saved yet (saved so far: "
                                         "Ben R5): wait a moment for it, then confirm (or confirm without waiting)")
    assert res.get_json()["ask"] == {"question": "Ben's rack is still being typed on another phone (saved so far: "
                                                 "Ben R5). Score the hand without waiting?",
                                     "send": {"typing_checked": True}}
    assert state(cid)["game"]["status"] == "tally"
    res = cid.post("/api/tally/confirm", json={"turn": turn, "typing_checked": True})  # the players would not wait
    assert res.status_code == 200 and res.get_json()["result"]["scores"] == {"Ann": 7, "Ben": -5, "Cid": -2}


def test_confirm_asks_about_a_rack_being_typed_that_was_never_saved(app, client, live):
    """The first rack of the count typed on one phone, Confirm pressed on another before its first save:
    asked about (it was a server error), the rack named as not given yet."""
    turn = ann_goes_out(client, live, ("Ann", "Ben"))["game"]["turn"]["id"]
    other = app.test_client()
    typing(client, turn)
    res = other.post("/api/tally/confirm", json={"turn": turn, "phone": "cid-phone"})
    assert res.status_code == 400, res.get_data(as_text=True)
    assert res.get_json()["ask"]["question"] == ("Ben's rack is still being typed on another phone (saved so far: "
                                                 "nothing for Ben). Score the hand without waiting?")


def test_the_rack_saved_ends_the_wait_and_is_what_the_confirm_scores(count):
    ben, cid, turn = count
    typing(ben, turn)
    assert ben.post("/api/tally/rack", json={"player": "Ben", "rack": "R5 K7", "turn": turn}).status_code == 200
    assert state(cid)["game"]["tally"]["typing"] == {}
    res = cid.post("/api/tally/confirm", json={"turn": turn})
    assert res.status_code == 200 and res.get_json()["result"]["scores"] == {"Ann": 14, "Ben": -12, "Cid": -2}


def test_a_mark_lapses_and_one_taken_back_asks_no_more(count, clock):
    ben, cid, turn = count
    typing(ben, turn)
    clock.advance(TYPING_S - 1)
    assert state(cid)["game"]["tally"]["typing"] == {"Ben": 1.0}
    clock.advance(1)  # the phone was put away mid-word: the table is not held up longer
    assert state(cid)["game"]["tally"]["typing"] == {}
    typing(ben, turn)
    assert typing(ben, turn, typing=False).get_json()["typing"] == {}  # the box is back to the rack saved
    assert cid.post("/api/tally/confirm", json={"turn": turn}).status_code == 200


def test_the_confirming_phones_own_typing_goes_with_its_press(count):
    ben, _, turn = count
    typing(ben, turn)
    typing(ben, turn, player="Cid")
    res = ben.post("/api/tally/confirm", json={"turn": turn, "phone": "ben-phone", "racks": {"Ben": "R6"}})
    assert res.status_code == 200 and res.get_json()["result"]["scores"]["Ben"] == -6


def test_a_rack_sent_with_the_confirm_is_not_waited_for_and_the_others_are_named(count):
    ben, cid, turn = count
    typing(ben, turn)
    typing(ben, turn, player="Cid")
    res = cid.post("/api/tally/confirm", json={"turn": turn, "phone": "cid-phone", "racks": {"Ben": "R6"}})
    assert res.status_code == 400 and res.get_json()["ask"]["question"].startswith(
        "Cid's rack is still being typed on another phone (saved so far: Cid K2)")
    typing(ben, turn)
    res = cid.post("/api/tally/confirm", json={"turn": turn, "phone": "cid-phone"})
    assert res.get_json()["ask"]["question"].startswith(
        "The racks of Ben and Cid are still being typed on another phone (saved so far: Ben R5, Cid K2)")


def test_the_marks_end_with_the_count(count, client, live):
    ben, cid, turn = count
    typing(ben, turn)
    assert cid.post("/api/tally/cancel").status_code == 200  # Back to the game ...
    res = client.post("/api/rummikub", json={"count_checked": True})  # ... and Rummikub! again, the same turn
    assert res.status_code == 200 and res.get_json()["state"]["game"]["tally"]["typing"] == {}
    typing(ben, turn)
    for name, rack in (("Ben", "R5"), ("Cid", "K2")):
        client.post("/api/tally/rack", json={"player": name, "rack": rack})
    typing(ben, turn)
    assert cid.post("/api/tally/confirm", json={"turn": turn, "typing_checked": True}).status_code == 200
    res = typing(ben, turn)  # a late word for the count scored: 409, as any entry for it
    assert res.status_code == 409 and res.get_json()["message"].startswith("the count of that hand is over")
    assert cid.post("/api/tally/undo").status_code == 200
    assert state(cid)["game"]["tally"]["typing"] == {}  # the count opened again waits for nobody


@pytest.mark.parametrize("payload, status, words", [
    ({"player": "Ann"}, 400, "Ann went out, so that rack is empty"),
    ({"player": "Dee"}, 400, "'Dee' is not playing"),
    ({"player": "Ben", "phone": None}, 400, "missing field 'phone'"),
    ({"player": "Ben", "typing": "yes"}, 400, "field 'typing' must be true or false, not text"),
])
def test_a_mark_the_count_cannot_take_is_refused_in_words(count, payload, status, words):
    ben, _, turn = count
    res = ben.post("/api/tally/typing", json={"phone": "p", "turn": turn, **payload})
    assert res.status_code == status and words in res.get_json()["message"], res.get_json()


def test_no_mark_outside_a_count(client, live):
    ann_goes_out(client, live, ("Ann", "Ben"))
    client.post("/api/tally/cancel")
    res = client.post("/api/tally/typing", json={"player": "Ben", "phone": "p"})
    assert res.status_code == 400 and "no hand is being counted" in res.get_json()["message"]
