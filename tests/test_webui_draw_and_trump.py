"""The American and International draw-then-discard flow through the web API (Flask test client, a fake
live table and a fake clock): a wrong draw taken back, and each hand's own face-up trump tile."""

from __future__ import annotations

import pytest

from test_webui_fixes import start, state
from test_webui_round2 import scored_first_hand
from webui.app import create_app
from webui.session import PRESS_GUARD_S
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


MELD = "K13 B13 O13 R13"  # Al's initial meld (52 points: American asks 21, International 50)


def second_round(client, clock, live, rules="american"):
    """Al has drawn, laid his initial meld (MELD) and discarded, Bo drawn and discarded K3: Al's turn, at
    its draw (he may take K3: in American only once his initial meld is laid)."""
    start(client, ["Al", "Bo"], rules=rules, options={"turn_time_limit": 60}, trump="R7")
    for discard in ("K1", "K3"):
        if state(client)["game"]["turn"]["phase"] == "draw":
            assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
        live.set_table(MELD)
        assert client.post("/api/turn/end", json={"discard": discard}).status_code == 200
        clock.advance(PRESS_GUARD_S)
    g = state(client)["game"]
    assert g["current"] == "Al" and g["turn"]["phase"] == "draw" and g["players"][1]["discard"] == "K3"
    assert [p["has_melded"] for p in g["players"]] == [True, False]
    return g


def undo(client, turn=None):
    return client.post("/api/turn/draw/undo", json={} if turn is None else {"turn": turn})


# --- a wrong draw taken back -----------------------------------------------------------

# an International player who melded earlier is refused the trump: Al has (trump_open, below)
@pytest.mark.parametrize("rules, source", [(r, s) for r in ("american", "international") for s in ("pool", "discard", "trump")
                                           if (r, s) != ("international", "trump")])
def test_a_wrong_draw_is_taken_back_and_the_clock_runs_on(client, clock, live, rules, source):
    before = second_round(client, clock, live, rules)
    clock.advance(5)
    res = client.post("/api/turn/draw", json={"source": source, "turn": before["turn"]["id"]})
    assert res.status_code == 200 and res.get_json()["state"]["game"]["turn"]["phase"] == "meld"
    clock.advance(5)
    res = undo(client, before["turn"]["id"])
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["state"]["game"]
    assert g["turn"]["phase"] == "draw" and g["turn"]["drew"] is None and g["turn"]["id"] == before["turn"]["id"]
    assert g["pool"] == before["pool"] and g["trump_up"] == before["trump_up"]
    assert [(p["rack_count"], p["discard"]) for p in g["players"]] == \
        [(p["rack_count"], p["discard"]) for p in before["players"]]
    assert g["clock"]["running"] and g["clock"]["remaining"] == before["clock"]["remaining"] - 10  # not reset
    # then the right draw, as a fresh one
    clock.advance(PRESS_GUARD_S)
    res = client.post("/api/turn/draw", json={"source": "discard", "turn": before["turn"]["id"]})
    assert res.status_code == 200 and res.get_json()["drew"] == {"source": "discard", "tile": "K3"}
    assert client.get("/api/turns").get_json()[-1]["player"] == "Bo"  # no turn logged by the correction


def test_the_state_says_when_the_discard_may_be_taken(client, clock, live):
    """The page shows "Took the discard" by ``discard_open``: in American, not before a player's initial meld
    (004_*: an option "after you have laid down your initial meld"), nor with no discard lying there."""
    start(client, ["Al", "Bo"], rules="american", trump="R7")
    assert state(client)["game"]["turn"]["discard_open"] is False
    refused = client.post("/api/turn/draw", json={"source": "discard"})
    assert refused.status_code == 400 and refused.get_json()["message"] == (
        "Al may take the previous discard from the turn after the initial meld; draw from the pool")
    assert second_round(client, clock, live)["turn"]["discard_open"] is True
    client.post("/api/turn/draw", json={"source": "pool"})
    client.post("/api/turn/end", json={"discard": "K5"})
    bo = state(client)["game"]
    assert bo["current"] == "Bo" and bo["players"][0]["discard"] == "K5" and bo["turn"]["discard_open"] is False


def test_the_state_says_when_the_trump_may_be_taken(client, clock, live):
    """"Took the trump" is shown by ``trump_open``: not to an International player who melded earlier (only
    an Open win is left, which the trump may not end), and not once taken."""
    al = second_round(client, clock, live, "international")["turn"]
    assert al["trump_open"] is False
    assert client.post("/api/turn/draw", json={"source": "trump"}).get_json()["message"].startswith(
        "Al has melded this hand, so can win only Open, and the trump may not be the final draw of an Open win")
    client.post("/api/turn/draw", json={"source": "pool"})
    client.post("/api/turn/end", json={"discard": "K5"})
    clock.advance(PRESS_GUARD_S)  # not a late press for Al's turn
    assert state(client)["game"]["turn"]["trump_open"] is True  # Bo has not melded: a Foot or Closed win
    taken = client.post("/api/turn/draw", json={"source": "trump"}).get_json()["state"]["game"]
    client.post("/api/turn/draw/undo", json={})
    assert taken["trump_up"] is False and state(client)["game"]["turn"]["trump_open"] is True
    start(client, ["Al", "Bo"], rules="sabra")
    assert state(client)["game"]["turn"]["trump_open"] is False  # Sabra turns no trump


def test_the_turn_log_says_where_each_draw_came_from(client, clock, live):
    """Who took a discard or the trump is settled after the hand: each turn's draw is in the log (the API
    and the score sheet's turn log), a pool draw as "pool"."""
    second_round(client, clock, live)
    client.post("/api/turn/draw", json={"source": "discard"})
    client.post("/api/turn/end", json={"discard": "K3"})
    turns = client.get("/api/turns").get_json()
    assert [(t["player"], t["drew"], t["discard"]) for t in turns] == [
        ("Al", "pool", "K1"), ("Bo", "pool", "K3"), ("Al", "discard K3", "K3")]
    page = client.get("/scores").get_data(as_text=True)
    assert "took the discard K3 · discarded K3" in page and "took the pool" not in page


def test_a_draw_from_another_source_replaces_the_draw(client, clock, live):
    before = second_round(client, clock, live)
    client.post("/api/turn/draw", json={"source": "pool"})
    res = client.post("/api/turn/draw", json={"source": "discard"})
    assert res.status_code == 200 and res.get_json()["drew"] == {"source": "discard", "tile": "K3"}
    g = res.get_json()["state"]["game"]
    assert g["pool"] == before["pool"] and g["players"][1]["discard"] is None
    again = client.post("/api/turn/draw", json={"source": "discard"})
    assert again.status_code == 400 and again.get_json()["message"] == \
        "this turn has taken the previous discard already"


def test_no_draw_is_taken_back_once_tiles_are_on_the_table(client, clock, live):
    second_round(client, clock, live)
    client.post("/api/turn/draw", json={"source": "discard"})
    live.set_table(MELD + " | K3 K4 K5")
    drawn = state(client)["game"]
    res = undo(client)
    assert res.status_code == 400 and res.get_json()["message"] == (
        "K3 K4 K5 placed on the table this turn: take them back to the rack first, then take the draw back")
    assert state(client)["game"] == drawn
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 400  # nor replaced
    live.set_table(MELD)
    assert undo(client).get_json()["state"]["game"]["players"][1]["discard"] == "K3"


def test_what_has_no_draw_to_take_back(client, clock, live):
    g = second_round(client, clock, live)
    res = undo(client, g["turn"]["id"])
    assert res.status_code == 400 and res.get_json()["message"] == "nothing has been drawn this turn"
    client.post("/api/turn/draw", json={"source": "pool"})
    assert client.post("/api/turn/end", json={"discard": "O2"}).status_code == 200
    late = undo(client, g["turn"]["id"])  # a second phone, for Al's turn that has ended
    assert late.status_code == 409 and late.get_json()["message"].startswith("Al's turn already ended")
    assert state(client)["game"]["current"] == "Bo"


def test_sabra_has_no_draw_to_take_back(client):
    start(client, ["Al", "Bo"])
    res = undo(client)
    assert res.status_code == 400 and res.get_json()["message"].startswith("in Sabra a turn has no draw")


# --- each hand's own trump ----------------------------------------------------------------

def test_start_hand_says_which_trump_the_new_hand_turned(client, live, clock, tmp_path):
    scored_first_hand(client, live, rules="american", trump="R7")
    g = state(client)["game"]
    assert g["status"] == "dealing" and g["has_trump"] and g["has_discards"]
    assert g["trump"] is None and g["trump_up"]  # hand 1's R7 was shuffled in; hand 2's is not said yet
    live.set_table("")  # the old hand's tiles are collected for the deal
    bad = client.post("/api/hand/start", json={"trump": "R14"})
    assert bad.status_code == 400 and bad.get_json()["message"] == "trump tile: 'R14' is not a tile"
    assert state(client)["game"]["status"] == "dealing"
    res = client.post("/api/hand/start", json={"trump": "b4", "turn": g["turn"]["id"]})
    assert res.status_code == 200
    g = res.get_json()["game"]
    assert g["status"] == "playing" and g["trump"] == "B4" and g["trump_up"]
    assert client.post("/api/turn/draw", json={"source": "trump"}).get_json()["drew"] == {"source": "trump",
                                                                                        "tile": "B4"}
    # stored: the companion started again on the same file has hand 2's trump
    again = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": FakeLive(""),
                        "TICKER": False, "NOW": clock})
    try:
        assert again.test_client().get("/api/state").get_json()["game"]["trump"] == "B4"
    finally:
        again.extensions["companion"].session.store.close()


def test_a_trump_may_be_left_unsaid_and_only_games_with_one_take_it(client, live, clock):
    scored_first_hand(client, live, rules="american")
    live.set_table("")  # the old hand's tiles are collected for the deal
    assert client.post("/api/hand/start", json={"trump": "  "}).get_json()["game"]["trump"] is None
    scored_first_hand(client, live, ["Cy", "Di"], rules="sabra")
    assert not state(client)["game"]["has_trump"] and not state(client)["game"]["has_discards"]
    res = client.post("/api/hand/start", json={"trump": "R7"})
    assert res.status_code == 400 and res.get_json()["message"] == "a Sabra hand has no trump tile"
    assert client.post("/api/hand/start", json={"trump": 7}).status_code == 400  # not a code at all
    live.set_table("")  # the old hand's tiles are collected for the deal
    assert client.post("/api/hand/start", json={}).get_json()["game"]["status"] == "playing"


# --- a trump tile forgotten at Start hand, said in play ------------------------------------------

@pytest.mark.parametrize("rules", ["american", "international"])
def test_a_trump_forgotten_at_start_hand_is_set_then_corrected(client, rules):
    g = start(client, ["Al", "Bo"], rules=rules)["game"]
    assert g["has_trump"] and g["trump"] is None and g["trump_up"]
    res = client.post("/api/hand/trump", json={"trump": "b4"})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["game"]["trump"] == "B4"
    res = client.post("/api/hand/trump", json={"trump": "B5"})
    assert res.status_code == 200 and res.get_json()["game"]["trump"] == "B5"


def test_the_trump_taken_this_turn_is_not_changed(client):
    start(client, ["Al", "Bo"], rules="american", trump="B4")
    assert client.post("/api/turn/draw", json={"source": "trump"}).status_code == 200
    res = client.post("/api/hand/trump", json={"trump": "B5"})
    assert res.status_code == 400
    assert res.get_json()["message"] == ("Al has taken the trump tile this turn: take the draw back to put it "
                                         "face up again, then set it")
    assert state(client)["game"]["trump"] == "B4"


@pytest.mark.parametrize("payload, message", [
    ({"trump": "X9"}, "trump tile: "),
    ({"trump": "  "}, "trump tile: type the code of the tile face up, e.g. R7"),
    ({}, "missing field 'trump'"),
    ({"trump": 7}, "field 'trump' must be text, not a whole number"),
])
def test_a_bad_trump_is_refused_naming_what_is_wrong(client, payload, message):
    start(client, ["Al", "Bo"], rules="american")
    res = client.post("/api/hand/trump", json=payload)
    assert res.status_code == 400 and res.get_json()["message"].startswith(message), res.get_json()
    assert state(client)["game"]["trump"] is None


def test_sabra_has_no_trump_to_set(client):
    start(client, ["Ann", "Ben"])
    res = client.post("/api/hand/trump", json={"trump": "R7"})
    assert res.status_code == 400 and res.get_json()["message"] == "a Sabra hand has no trump tile"
