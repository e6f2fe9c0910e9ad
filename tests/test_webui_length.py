"""The length of a game on the page (game.length in /api/state), the game finishing itself after its agreed
last hand, and the New game form starting from the rules chosen in Settings.

The Flask test client with a fake live table and a fake clock, as in test_webui_finish.py.
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from test_webui_finish import score_a_hand, start, state
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


def next_hand(client) -> None:
    assert client.post("/api/hand/start", json={}).status_code == 200


def test_the_game_says_where_it_stands_and_finishes_itself_after_the_last_round(client, clock):
    s = start(client, options={"rounds": 1})
    assert s["game"]["length"] == {"rounds": 1, "per_player": False, "target": None, "round": 1, "hand_in_round": 1,
                                   "hands_per_round": 2, "hands": 2, "last_hand": False,
                                   "words": "round 1 of 1 · hand 1 of 2"}
    score_a_hand(client, "Ann", {"Ben": "R5 K7"})  # Ann +12
    g = state(client)["game"]
    assert g["status"] == "dealing" and g["length"]["words"] == "round 1 of 1 · hand 2 of 2 · last hand"
    next_hand(client)
    clock.advance(5)
    score_a_hand(client, "Ben", {"Ann": "K1"})  # the last hand: Ben +1
    s = state(client)
    g = s["game"]
    assert g["status"] == "finished" and g["winner"] == "Ann"  # a hand each: Ann wins by the score, 11 to -11
    assert s["scores"]["finished"] is True and s["scores"]["winner"] == "Ann" and s["scores"]["result"] == "Ann wins"
    assert g["length"]["words"] == "1 round agreed" and g["can_undo_hand"] is True
    assert s["clock"]["running"] is False and s["clock"]["remaining"] is None
    assert client.post("/api/game/finish", json={}).status_code == 409  # finished already
    assert client.post("/api/pass", json={}).status_code == 400
    listed = client.get("/api/games").get_json()[0]
    assert listed["status"] == "finished" and listed["result"] == "Ann wins"
    # the last hand taken back: the game goes on, its tally open again
    res = client.post("/api/tally/undo", json={})
    assert res.status_code == 200, res.get_json()
    g = res.get_json()["game"]
    assert g["status"] == "tally" and g["tally"]["racks"]["Ann"] == "K1" and g["length"]["last_hand"] is True
    assert len(res.get_json()["scores"]["hands"]) == 1
    assert client.get("/api/games").get_json()[0]["status"] == "tally"
    res = client.post("/api/tally/confirm", json={"racks": {"Ann": "K13 K12"}})
    assert res.status_code == 200 and res.get_json()["state"]["game"]["status"] == "finished"
    assert res.get_json()["state"]["scores"]["winner"] == "Ben"


def test_a_game_finished_by_the_players_is_not_taken_back(client):
    start(client, options={"rounds": 3})
    score_a_hand(client, "Ann", {"Ben": "R5"})
    assert client.post("/api/game/finish", json={}).status_code == 200
    res = client.post("/api/tally/undo", json={})
    assert res.status_code == 400 and res.get_json()["message"] == "the game is finished: start a new one"


def test_a_target_score_on_the_page(client):
    s = start(client, options={"target_score": 20})
    assert s["game"]["length"]["words"] == "hand 1 · first to 20"
    score_a_hand(client, "Ann", {"Ben": "K13 K9"})  # Ann +22
    s = state(client)
    assert s["game"]["status"] == "finished" and s["scores"]["totals"]["Ann"] == 22
    assert s["game"]["length"]["words"] == "first to 20"


def test_a_game_to_a_target_ranks_by_the_score_on_the_page(client, clock):
    """Ann's total reaching the target ends the game: she wins and heads the standings, though Ben won more
    hands (the table named Ben, by the leaflet's hands-won rule for a number of rounds)."""
    start(client, options={"target_score": 40})
    for i in range(2):  # Ben goes out twice: Ben +1 each time
        if i:
            next_hand(client)
            clock.advance(5)
        score_a_hand(client, "Ben", {"Ann": "K1"})
    next_hand(client)
    clock.advance(5)
    score_a_hand(client, "Ann", {"Ben": "K13 K12 K11 K10 O6"})  # Ann: -2 + 52
    s = state(client)
    assert s["game"]["status"] == "finished" and s["game"]["winner"] == "Ann"
    assert s["scores"]["result"] == "Ann wins" and s["scores"]["winner"] == "Ann"
    assert s["scores"]["standings"] == [{"player": "Ann", "place": 1, "games_won": 1, "total": 50},
                                        {"player": "Ben", "place": 2, "games_won": 2, "total": -50}]
    assert ["Final place", "1", "2"] in [r for r in csv.reader(io.StringIO(
        client.get("/api/scores.csv").get_data().decode("utf-8-sig")))]


def test_a_length_changed_in_settings_counts_at_once(client):
    start(client)
    assert state(client)["game"]["length"]["words"] == "hand 1"  # open-ended, as before
    res = client.post("/api/settings", json={"options": {"rounds": 2}})
    assert res.status_code == 200 and res.get_json()["applies"] == "now"
    g = state(client)["game"]
    assert g["pending"] is None and g["length"]["words"] == "round 1 of 2 · hand 1 of 2"
    assert "a new number of rounds or points counts at once" in client.get("/settings").get_data(as_text=True)
    res = client.post("/api/settings", json={"rules": "israeli", "options": {"target_score": 200}})
    assert res.status_code == 400 and res.get_json()["message"] == (  # in the players' words, not the option's
        "Israeli scoring ranks the totals only at the end, so it cannot be played to a target score: clear Points "
        "that end the game (200), or choose rounds")


def test_the_new_game_form_starts_from_the_settings(client):
    """The clock set in Settings was lost as soon as a rulebook was picked on the New game form: the form
    did not show the clock, and a rulebook started from its own (Sabra: 60 s).  The form now shows the
    clock and the length as set in Settings and sends them as shown."""
    assert client.post("/api/settings", json={"options": {"turn_time_limit": 90, "rounds": 3}}).status_code == 200
    page = client.get("/new").get_data(as_text=True)
    for name, value in (("turn_time_limit", "90"), ("rounds", "3"), ("target_score", "")):
        field = re.search(rf'<input id="opt-{name}" name="{name}" data-type="int\|None"[^>]*>', page)
        assert field and f'value="{value}"' in field.group(0), name
    # what the form sends for "Sabra" picked, clock and length as shown: the Settings' clock stays
    s = start(client, rules="sabra", options={"turn_time_limit": 90, "rounds": 3, "target_score": None})
    assert s["clock"]["limit"] == 90 and s["game"]["length"]["rounds"] == 3 and s["options"]["initial_meld"] == 30
    # what the user changes on the form wins, and becomes the rules for later games too
    s = start(client, players=("Cid", "Dan"), options={"turn_time_limit": 45, "rounds": None, "target_score": None})
    assert s["clock"]["limit"] == 45 and s["game"]["length"]["rounds"] is None
    assert 'value="45"' in client.get("/new").get_data(as_text=True)


def test_the_new_game_rules_line_leaves_the_clock_to_its_field(client):
    """The line read "As set on Settings: Sabra rules, 30-point first meld, 90 s a turn" even once the
    clock below it was changed on the form: it now names the rules, and the clock field alone the clock."""
    assert client.post("/api/settings", json={"options": {"turn_time_limit": 90}}).status_code == 200
    page = client.get("/new").get_data(as_text=True)
    assert ('<option value="" selected data-about="Sabra rules, 30-point first meld">As set on Settings</option>'
            in page)
    assert "90 s a turn" not in page
    assert re.search(r'<input id="opt-turn_time_limit"[^>]*value="90"', page)


def test_israeli_rules_play_as_many_rounds_as_players_on_the_page(client, clock):
    """000_*: four rounds for four players, five for five: two players play two rounds (it was four)."""
    s = start(client, rules="israeli")
    assert s["options"]["rounds"] == "players"
    length = s["game"]["length"]
    assert (length["rounds"], length["per_player"], length["hands"]) == (2, True, 4)
    assert length["words"] == "round 1 of 2 · hand 1 of 2"
    for i, (winner, loser) in enumerate((("Ann", "Ben"), ("Ben", "Ann"), ("Ann", "Ben"), ("Ben", "Ann"))):
        if i:
            next_hand(client)
            clock.advance(5)
        score_a_hand(client, winner, {loser: "R5"})
    g = state(client)["game"]
    assert g["status"] == "finished" and g["length"]["words"] == "2 rounds agreed, one per player"
    # three players: three rounds
    s = start(client, players=("Ann", "Ben", "Cid"), rules="israeli")
    assert s["game"]["length"]["words"] == "round 1 of 3 · hand 1 of 3"


def test_as_many_rounds_as_players_in_settings(client):
    """Settings offers "as many rounds as players" beside the number of rounds; the API takes "players"
    and a number still, and names what it accepts when given another word."""
    page = client.get("/settings").get_data(as_text=True)
    box = re.search(r'<input type="checkbox" data-named-for="rounds" value="players"[^>]*>', page)
    assert box and "checked" not in box.group(0) and "As many rounds as players" in page
    assert client.post("/api/settings", json={"options": {"rounds": "players"}}).status_code == 200
    page = client.get("/settings").get_data(as_text=True)
    assert re.search(r'<input type="checkbox" data-named-for="rounds" value="players" checked>', page)
    assert re.search(r'<input id="opt-rounds" name="rounds"[^>]*value=""[^>]* disabled>', page)
    assert client.get("/api/options").get_json()["options"]["rounds"] == "players"
    res = client.post("/api/settings", json={"options": {"rounds": "all"}})
    assert res.status_code == 400 and res.get_json()["message"] == (
        "bad value 'all' for rule option rounds (allowed: a whole number from 1 to 100, 'players' or null)")
    assert client.post("/api/settings", json={"options": {"rounds": 3}}).status_code == 200
    assert "checked" not in re.search(r'data-named-for="rounds"[^>]*>', client.get("/settings").get_data(
        as_text=True)).group(0)
