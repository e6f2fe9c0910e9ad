"""Settings and New game during a game, as a club evening on phones found them: a rulebook picked on
Settings keeps the table's clock and length and says what it changes and when; New game asks before it
replaces the game in play; New game says its choices become the Settings; the refusals name what is
wrong in the players' words.

The Flask test client with a fake live table and a fake clock, as in test_webui_length.py; what only the
page does (the form refreshed after a save, the questions asked) is in test_browser.py.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from rules.options import find_variant
from test_webui_finish import finish, score_a_hand, start, state
from webui_fakes import FakeLive

# what Settings' "Use these rules" sends with a rulebook: the clock and the length as the form shows them
TABLE = {"turn_time_limit": 40, "rounds": 2, "target_score": None}
PLAYERS = ("Jo", "Kim", "Lou")


@pytest.fixture
def live():
    return FakeLive("")


def field_value(page: str, name: str) -> str:
    """The value a number field of the rules form shows."""
    return re.search(rf'<input id="opt-{name}" name="{name}"[^>]*value="([^"]*)"', page).group(1)


def test_a_rulebook_picked_during_a_game_keeps_the_clock_and_length_and_says_what_changes(client):
    """Picking "Sabra, Dutch edition" said only "Saved: ... from its next hand" while the 2 rounds were gone at
    once and the clock went back to the book's 60 s.  The page sends the table's clock and length with the
    rulebook, and the answer says exactly what changes, and when."""
    start(client, PLAYERS, rules="sabra", options=TABLE)
    assert state(client)["game"]["length"]["words"] == "round 1 of 2 · hand 1 of 3"
    res = client.post("/api/settings", json={"rules": "dutch_sabra", "options": TABLE})
    assert res.status_code == 200, res.get_json()
    body = res.get_json()
    assert body["message"] == (
        "Saved. From hand 2: A joker left on a rack costs: 25 (was 30); The tile that frees a joker may come "
        "from the table: no (was yes); The first meld may also rearrange table sets: yes (was no).")
    assert body["pending"] == "Sabra rules, 30-point first meld, 40 s a turn"
    s = state(client)
    assert s["game"]["length"]["words"] == "round 1 of 2 · hand 1 of 3" and s["clock"]["limit"] == 40
    # the Settings form shows what was saved: the Dutch joker penalty, the table's clock and rounds
    page = client.get("/settings").get_data(as_text=True)
    assert (field_value(page, "joker_penalty"), field_value(page, "turn_time_limit"),
            field_value(page, "rounds")) == ("25", "40", "2")
    assert "From the next hand: Sabra rules, 30-point first meld, 40 s a turn." in page
    assert "keeps the seconds per turn and the game's length as set below" in page


def test_switching_the_game_in_play_asks_with_what_changes(client, clock):
    """"Switch to american from the next hand?" said nothing of what changes; the server's question (the
    409's ``ask``, which the page puts to the players) lists it, and the clock and length stay."""
    start(client, PLAYERS, rules="sabra", options=TABLE)
    res = client.post("/api/settings", json={"rules": "american", "options": TABLE})
    assert res.status_code == 409 and "send confirm" in res.get_json()["message"]  # for scripts, as before
    ask = res.get_json()["ask"]
    assert ask.startswith("The game on the table plays Sabra rules. Switch it to American? From hand 2: "
                          "Game: American (was Sabra); ")
    assert "Points the first meld needs: 21 (was 30)" in ask and "Seconds per turn" not in ask \
        and "Rounds" not in ask and "At once" not in ask
    assert state(client)["game"]["pending"] is None  # nothing saved before the players say yes
    res = client.post("/api/settings", json={"rules": "american", "options": TABLE, "confirm": True})
    assert res.status_code == 200 and res.get_json()["message"].startswith("Saved. From hand 2: Game: American")
    score_a_hand(client, "Jo", {"Kim": "R5", "Lou": "K7"})
    s = state(client)
    assert s["game"]["game"] == "american" and s["clock"]["limit"] == 40
    assert s["game"]["length"]["words"] == "round 1 of 2 · hand 2 of 3"


def test_the_answer_says_a_length_counts_at_once_and_a_change_undone(client):
    start(client, PLAYERS, rules="sabra", options=TABLE)
    res = client.post("/api/settings", json={"options": {"rounds": 3, "joker_penalty": 50}})
    assert res.get_json()["message"] == ("Saved. At once: Rounds in a game, one hand each: 3 (was 2). "
                                         "From hand 2: A joker left on a rack costs: 50 (was 30).")
    res = client.post("/api/settings", json={"options": {"joker_penalty": 30}})
    assert res.get_json()["message"] == ("Saved. The change waiting for hand 2 is dropped: the game keeps the "
                                         "rules it plays.")
    assert res.get_json()["pending"] is None
    res = client.post("/api/settings", json={"options": {"joker_penalty": 30}})
    assert res.get_json()["message"] == "Saved. Nothing changes for the game on the table: it already plays these rules."
    finish(client)
    res = client.post("/api/settings", json={"options": {"turn_time_limit": None}})
    assert res.get_json()["message"] == "Saved for the next game: Seconds per turn: no clock (was 40)."


def test_new_game_asks_before_it_replaces_the_game_in_play(app, client):
    """Any phone's "Start the game" set the game in play aside without a word; the form now carries the
    question (forms.js asks it), naming the game and where to resume it.  Nothing is asked with no game in
    play, over a finished game, or over the recorded demo's own game."""
    question = re.compile(r'<form[^>]*id="new-game"[^>]*data-confirm="([^"]*)"')
    assert not question.search(client.get("/new").get_data(as_text=True))
    start(client, PLAYERS)
    asked = question.search(client.get("/new").get_data(as_text=True))
    assert asked and asked.group(1) == ("Jo, Kim and Lou are playing a game (hand 1). Start a new game in its "
                                        "place? That game is kept: resume it from Earlier games on this page.")
    companion = app.extensions["companion"]
    companion.demo = SimpleNamespace(driving=True, owns_table=lambda: True, adopted=None)  # the demo's game: nobody's
    assert not question.search(client.get("/new").get_data(as_text=True))
    companion.demo = None
    finish(client)
    assert not question.search(client.get("/new").get_data(as_text=True))


def test_new_game_says_its_choices_become_the_settings(client):
    """The clock typed on New game became Settings' clock for later games without a word (45 s became
    30 s).  That is meant: Settings is the rules of the game on the table, so a game started with 30 s would
    go back to 45 s at the next Settings save otherwise.  The page now says so beside the fields."""
    page = client.get("/new").get_data(as_text=True)
    assert "The rules, clock and length you start with become the Settings for later games too." in page
    start(client, options={"turn_time_limit": 30})
    assert field_value(client.get("/settings").get_data(as_text=True), "turn_time_limit") == "30"


def test_refusals_name_the_players_and_the_game_id(client):
    res = client.post("/api/game", json={"players": ["Jo Kim Lou"]})
    assert res.status_code == 400 and res.get_json()["message"] == "1 player: this tile set is for 2-4 players"
    res = client.post("/api/game", json={"players": ["Jo", "K" * 41]})
    assert res.status_code == 400
    assert res.get_json()["message"] == "player 2: a name of 41 characters is too long (at most 40)"
    start(client)
    # the score sheet page answered ?game=abc with the game on the table, the API with 400: both refuse now
    for url in ("/scores?game=abc", "/api/scores?game=abc"):
        res = client.get(url)
        said = html.unescape(res.get_data(as_text=True))
        assert res.status_code == 400 and "game must be a game's number" in said and "not 'abc'" in said, url
    assert client.get("/scores?game=99").status_code == 404


# Settings and New game as played on phones: the rules shown are those a save changes, the rulebook named is
# the one in force, a rulebook's own length comes with it, and Israeli scoring takes no target score

class RulesForm(HTMLParser):
    """What the Settings form would send, read from the page as a browser fills it in: every option as
    shown (a named value ticked, "players" rounds, instead of its number) and the rulebook selected."""

    def __init__(self, page: str):
        super().__init__()
        self.options: dict = {}
        self.rulebook: str | None = None
        self._select: dict | None = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "select":
            self._select = a
        elif tag == "option" and self._select is not None and "selected" in a:
            self._take(self._select, a["value"])
        elif tag == "input" and a.get("data-type"):
            self._take(a, a.get("value", ""))
        elif tag == "input" and a.get("data-named-for") and "checked" in a:
            self.options[a["data-named-for"]] = a["value"]

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None

    def _take(self, field: dict, value: str) -> None:
        kind, name = field.get("data-type"), field.get("name")
        if name == "rules":
            self.rulebook = value
        elif kind == "bool":
            self.options[name] = value == "true"
        elif kind and kind.startswith("int"):
            self.options.setdefault(name, None if value == "" else int(value))
        elif kind:
            self.options[name] = value


def test_settings_show_the_rules_of_the_game_resumed_and_a_save_keeps_them(client):
    """An American game to 100 points made 100 the Settings; the open-ended game resumed after it showed
    "100" on Settings, and "Save rules" (only the hints box changed) made it "first to 100".  Settings now
    shows the rules of the game on the table, so saving the fields as shown changes nothing in it."""
    start(client, PLAYERS, rules="american")
    earlier = state(client)["game"]["id"]
    start(client, ("Ann", "Ben"), rules="american", options={"target_score": 100})
    assert client.post(f"/api/games/{earlier}/resume").status_code == 200
    form = RulesForm(client.get("/settings").get_data(as_text=True))
    assert form.options["target_score"] is None and form.options["game"] == "american"
    res = client.post("/api/settings", json={"options": form.options, "hint": True})
    assert res.status_code == 200, res.get_json()
    assert res.get_json()["message"] == "Saved. Nothing changes for the game on the table: it already plays these rules."
    g = state(client)["game"]
    assert g["length"]["target"] is None and g["length"]["words"] == "hand 1" and g["pending"] is None
    # one field changed alone changes that field of the game's rules, not the rules last saved for new games
    res = client.post("/api/settings", json={"options": {"rounds": 2}})
    assert state(client)["game"]["length"]["words"] == "round 1 of 2 · hand 1 of 3"
    assert res.get_json()["form"]["target_score"] is None and res.get_json()["form"]["rounds"] == 2


def test_the_rulebook_select_names_the_rules_in_force(client):
    """The Rulebook select always read "Sabra: the rule leaflet..." whatever the rules were.  It names the
    book the rules are (the table's clock and length aside), or "keep the rules below" when none is."""
    assert RulesForm(client.get("/settings").get_data(as_text=True)).rulebook == "sabra"
    start(client, PLAYERS, rules="american", options={"turn_time_limit": 40, "rounds": 2})
    page = client.get("/settings").get_data(as_text=True)
    assert RulesForm(page).rulebook == "american" and "— keep the rules below —" in page
    res = client.post("/api/settings", json={"options": {"joker_penalty": 25}})
    assert res.get_json()["rulebook"] is None  # American with a house rule: no book exactly
    assert RulesForm(client.get("/settings").get_data(as_text=True)).rulebook == ""
    res = client.post("/api/settings", json={"rules": "american", "options": TABLE})  # the book again
    assert res.get_json()["rulebook"] == "american"
    assert RulesForm(client.get("/settings").get_data(as_text=True)).rulebook == "american"
    finish(client)  # the rules for the next game
    start(client, PLAYERS, rules="israeli")
    assert RulesForm(client.get("/settings").get_data(as_text=True)).rulebook == "israeli"


def test_a_target_score_with_israeli_scoring_is_refused_in_the_players_words(client):
    """Settings holding 100 points and Israeli picked on New game: Start the game was refused with "bad value
    100 for rule option target_score with israeli scoring ... (000_*) ... or null"."""
    assert client.post("/api/settings", json={"options": {"target_score": 100}}).status_code == 200
    res = client.post("/api/game", json={"players": list(PLAYERS), "rules": "israeli",
                                          "options": {"turn_time_limit": 60, "rounds": None, "target_score": 100}})
    assert res.status_code == 400 and res.get_json()["message"] == (
        "Israeli scoring ranks the totals only at the end, so it cannot be played to a target score: clear Points "
        "that end the game (100), or choose rounds")
    res = client.post("/api/settings", json={"options": {"scoring": "israeli"}})  # Settings' own scoring field
    assert res.status_code == 400 and res.get_json()["message"].startswith("Israeli scoring ranks the totals")
    # the forms know which rulebooks and scorings take no target score, and grey the field out (forms.js)
    assert re.search(r'<option value="israeli" data-rounds="players" data-target="" data-final="Israeli"[ >]',
                     client.get("/new").get_data(as_text=True))
    assert """data-final-scorings='{"israeli": "Israeli"}'""" in client.get("/settings").get_data(as_text=True)


def test_a_rulebooks_own_length_is_on_the_forms(client):
    """Israeli picked on New game left "As many rounds as players" unticked and the game never finished
    itself.  Each rulebook on New game and Settings carries its length, which the form fills in when no
    length is set (forms.js); the players' own length stays, as the clock does."""
    for url in ("/new", "/settings"):
        page = client.get(url).get_data(as_text=True)
        assert '<option value="sabra" data-rounds="" data-target=""' in page, url
        assert '<option value="israeli" data-rounds="players"' in page, url
        assert "(Israeli: as many rounds as players) brings it" in page, url
    # sent as the form fills it in: the Israeli length; a length the players set stays
    s = start(client, PLAYERS, rules="israeli", options={"turn_time_limit": 60, "rounds": "players",
                                                          "target_score": None})
    assert s["game"]["length"]["words"] == "round 1 of 3 · hand 1 of 3"
    s = start(client, PLAYERS, rules="israeli", options={"turn_time_limit": 60, "rounds": 1, "target_score": None})
    assert s["game"]["length"]["words"] == "round 1 of 1 · hand 1 of 3"


def test_settings_over_the_recorded_demos_game_show_the_rules_for_new_games(app, client):
    """The recorded demo's own game is nobody's (New game replaces it without a word): Settings shows the
    rules saved for the players' games, not the recording's Sabra."""
    assert client.post("/api/settings", json={"rules": "american"}).status_code == 200
    companion = app.extensions["companion"]
    companion.session.start_game(list(PLAYERS), options=find_variant("sabra"), remember=False)
    companion.demo = SimpleNamespace(driving=True, owns_table=lambda: True, adopted=None)
    page = client.get("/settings").get_data(as_text=True)
    assert RulesForm(page).options["game"] == "american" and "These rules apply to the next game." in page
    companion.demo = None  # taken over: the game is the players', and Settings shows its rules
    assert RulesForm(client.get("/settings").get_data(as_text=True)).options["game"] == "sabra"
