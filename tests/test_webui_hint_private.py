"""The hint shows the current player's own tiles, so it goes only to the phone that typed the rack.

Phones are Flask test clients of one app (a fake live table and a fake clock): the state every phone gets
(``GET /api/state``, the event stream, the page) says whose hint it is and whether a phone holds its key,
never a tile of the rack; the key ``POST /api/rack`` answers opens ``GET /api/hint`` until that player's turn
is over, the rack is typed again or the hand changes.
"""

from __future__ import annotations

import re

import pytest

from test_webui_fixes import state
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive

RACK = "K10 K11 K12 B2"  # none of these lies on the table
SECRET = RACK.split()


@pytest.fixture
def live():
    return FakeLive("R3 R4 R5 | K5 B5 O5")


@pytest.fixture
def game(client):
    """Ann and Ben, hints on; Ann's turn."""
    assert client.post("/api/game", json={"players": ["Ann", "Ben"]}).status_code == 201
    assert client.post("/api/settings", json={"hint": True}).status_code == 200
    return client


def typed(phone, player: str, rack: str = RACK) -> str | None:
    """``player``'s rack typed on ``phone``: the key it was answered."""
    res = phone.post("/api/rack", json={"player": player, "rack": rack})
    assert res.status_code == 200, res.get_json()
    return res.get_json()["hint_key"]


def hint(phone, key: str):
    return phone.get("/api/hint", headers={"X-Hint-Key": key})


def shown(text: str) -> list[str]:
    """The rack's tiles that ``text`` names."""
    return [code for code in SECRET if re.search(rf"\b{code}\b", text)]


def end_turn(client, clock) -> None:
    clock.advance(PRESS_GUARD_S)  # a press right after the last is taken for a double press
    assert client.post("/api/turn/end").status_code == 200


def test_other_phones_learn_whose_hint_it_is_but_no_tile(app, game, live):
    ann, ben = game, app.test_client()
    res = ann.post("/api/rack", json={"player": "Ann", "rack": RACK})
    assert res.get_json()["hint_key"] and not shown(str(res.get_json()["state"]))
    assert state(ben)["hint"] == {"player": "Ann", "needs_rack": False}
    for url in ("/api/state", "/api/events?once=1", "/", "/api/turns", "/api/turn/check"):
        assert shown(ben.get(url).get_data(as_text=True)) == [], url
    live.set_table("R3 R4 | R5 K5 B5 O5 | O10 O11 O12")  # a refused turn: its layout is of the table's tiles alone
    assert ben.post("/api/turn/end").get_json()["verdict"]["legal"] is False
    body = state(ben)
    assert body["suggestion"] is not None and not shown(str(body))


def test_the_phone_that_typed_the_rack_gets_its_hint(game, live):
    key = typed(game, "Ann")
    res = hint(game, key)
    assert res.status_code == 200 and res.headers["Cache-Control"] == "no-store"
    body = res.get_json()
    assert body["player"] == "Ann" and body["turn"] is True
    assert sorted(body["hint"]["placed"]) == ["K10", "K11", "K12"]
    assert {"tiles": ["K10", "K11", "K12"], "new": True} in body["hint"]["sets"]
    live.set_table("R3 R4 R5 | K5 B5 O5 | O7 O8 O9")  # the hint is for the table now
    sets = hint(game, key).get_json()["hint"]["sets"]
    assert [s["tiles"] for s in sets if not s["new"]] == [["R3", "R4", "R5"], ["K5", "B5", "O5"], ["O7", "O8", "O9"]]


def test_a_missing_wrong_or_stale_key_is_refused_in_words(app, game, clock):
    key = typed(game, "Ann")
    res = app.test_client().get("/api/hint")
    assert res.status_code == 400 and "X-Hint-Key" in res.get_json()["message"]
    for wrong in ("not-a-key", key[:-1], key + "x", "x" * 500):
        res = hint(app.test_client(), wrong)
        assert res.status_code == 403 and res.get_json()["message"].startswith("this hint key opens no hint")
    end_turn(game, clock)  # Ann's turn is over: her key with it
    res = hint(game, key)
    assert res.status_code == 403 and "type the rack again" in res.get_json()["message"]
    assert state(game)["hint"] == {"player": "Ben", "needs_rack": True}


def test_a_key_works_until_its_player_s_turn_is_over(app, game, clock):
    ben = app.test_client()
    key = typed(ben, "Ben", "R10 R11 R12")  # typed during Ann's turn, for his own
    assert hint(ben, key).get_json() == {"player": "Ben", "turn": False, "hint": None}
    assert state(game)["hint"] == {"player": "Ann", "needs_rack": True}  # Ann's hint has no key
    end_turn(game, clock)
    assert state(game)["hint"] == {"player": "Ben", "needs_rack": False}
    assert sorted(hint(ben, key).get_json()["hint"]["placed"]) == ["R10", "R11", "R12"]
    end_turn(game, clock)
    assert hint(ben, key).status_code == 403


def test_typing_the_rack_again_or_clearing_it_ends_the_old_key(app, game):
    first = typed(game, "Ann")
    other = app.test_client()
    second = typed(other, "Ann", "K10 K11 K12 K13")
    assert hint(game, first).status_code == 403
    assert hint(other, second).get_json()["hint"]["count"] == 4
    res = other.post("/api/rack", json={"player": "Ann", "rack": " "})
    assert res.status_code == 200 and res.get_json()["hint_key"] is None
    assert hint(other, second).status_code == 403
    assert state(game)["hint"] == {"player": "Ann", "needs_rack": True}


def test_a_scored_hand_ends_every_key_and_the_next_hand_s_rack_gets_one(app, game, live, clock):
    ann, ben = typed(game, "Ann"), typed(app.test_client(), "Ben")
    live.set_table("R3 R4 R5 | K5 B5 O5 | K10 K11 K12")
    assert game.post("/api/rummikub", json={"count_checked": True}).get_json()["state"]["game"]["status"] == "tally"
    res = game.post("/api/tally/confirm", json={"racks": {"Ben": "R1"}})
    assert res.status_code == 200, res.get_json()
    assert hint(game, ann).status_code == 403 and hint(game, ben).status_code == 403
    starter = state(game)["game"]["current"]
    key = typed(game, starter)  # typed while the next hand waits for its start
    live.set_table("")  # the old hand's tiles are collected for the deal
    assert game.post("/api/hand/start", json={}).status_code == 200
    body = hint(game, key).get_json()
    assert body["turn"] is True and body["hint"]["count"] == 3


def test_a_new_game_ends_every_key(game):
    key = typed(game, "Ann")
    assert game.post("/api/game", json={"players": ["Ann", "Cid"]}).status_code == 201
    assert hint(game, key).status_code == 403


def test_with_hints_off_the_key_says_so(game):
    key = typed(game, "Ann")
    game.post("/api/settings", json={"hint": False})
    assert state(game)["hint"] is None
    res = hint(game, key)
    assert res.status_code == 409 and "switched off" in res.get_json()["message"]
    game.post("/api/settings", json={"hint": True})
    assert hint(game, key).status_code == 200


def test_a_refusal_never_names_a_tile_left_on_the_typed_rack(app, client, live):
    """The turn check judges with the typed rack: a table that, with the rack's other tiles, holds more of a
    tile than the box (a misread tile, a mistyped rack) is refused in words every phone may read."""
    live.set_table("R3 R4 R5 | R4 K4 B4")
    assert client.post("/api/game", json={"players": ["Ann", "Ben"]}).status_code == 201
    typed(client, "Ann", "R4 K10 K11 K12")  # a third R4: the table's two are read or typed wrong
    live.set_table("R3 R4 R5 | R4 K4 B4 | K10 K11 K12")
    ben = app.test_client()
    assert state(ben)["preview"]["groups"][0]["code"] == "box_exceeded"
    verdict = ben.post("/api/turn/end").get_json()["verdict"]
    assert verdict["legal"] is False and "R4" not in str(verdict["groups"]) + str(verdict["problems"])


def test_a_rack_typed_in_a_turn_that_has_ended_is_refused_not_given_to_the_next_player(app, game, clock):
    """The page sends the turn the typing began in: Ann's tiles, typed while her turn was on and saved after
    another phone ended it, must not become Ben's typed rack."""
    turn = state(game)["game"]["turn"]["id"]
    end_turn(game, clock)
    res = game.post("/api/rack", json={"player": "Ben", "rack": RACK, "turn": turn})
    assert res.status_code == 409
    assert res.get_json()["message"].startswith("Ann's turn already ended; it is Ben's turn now")
    ben = next(p for p in state(game)["game"]["players"] if p["name"] == "Ben")
    assert not ben["rack_typed"]
