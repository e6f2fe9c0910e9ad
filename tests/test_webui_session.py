"""The game session: the typed game kept in step with SQLite, action by action.

Tables are written in tile notation; the clock is a FakeClock, so no test sleeps.
The rules themselves are tested in test_game.py; here each action's effect as
stored and shown.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.game_codec import to_dict
from rules.game_state import table_of
from rules.options import find_variant
from rules.tiles import parse_table, parse_tiles
from webui.db import Store
from webui.session import GameSession, SessionError
from webui.views import Hints
from webui_fakes import FakeClock


@pytest.fixture
def clock():
    return FakeClock()


def new_session(tmp_path, clock, rules="sabra", players=("Ann", "Ben", "Cid"), **overrides):
    store = Store(tmp_path / "companion.sqlite3")
    session = GameSession(store, options=find_variant(rules, **overrides), now=clock)
    session.start_game(list(players))
    return session


def T(text: str):
    return table_of(parse_table(text)) if text.strip() else ()


# --- seats -----------------------------------------------------------------

@pytest.mark.parametrize(
    "players, tile_set, ok",
    [
        (["A"], "standard", False),  # seed 004: two, three or four people
        (["A", "B"], "standard", True),
        (["A", "B", "C", "D"], "standard", True),
        (["A", "B", "C", "D", "E"], "standard", False),  # 5-6 need the XP box (004 'Contents')
        (["A", "B", "C", "D", "E"], "xp", True),
        (["A", "B", "C", "D", "E", "F"], "xp", True),
        (["A", "B", "C", "D", "E", "F", "G"], "xp", False),
        (["A", "a"], "standard", False),  # names must differ
        (["A", " "], "standard", False),
    ],
)
def test_player_count_and_names(tmp_path, clock, players, tile_set, ok):
    store = Store(tmp_path / "db.sqlite3")
    session = GameSession(store, options=find_variant("sabra", tile_set=tile_set), now=clock)
    if ok:
        session.start_game(players)
        assert list(session.game.names) == players
    else:
        with pytest.raises(SessionError):
            session.start_game(players)


@pytest.mark.parametrize(
    "direction, order",
    [("clockwise", ["Ann", "Ben", "Cid", "Ann"]), ("counterclockwise", ["Ann", "Cid", "Ben", "Ann"])],
)
def test_turn_order_follows_direction(tmp_path, clock, direction, order):
    s = new_session(tmp_path, clock, direction=direction)
    seen = []
    for _ in order:
        seen.append(s.current_player)
        s.end_turn([])  # nothing placed: draw and pass on
    assert seen == order


def test_xp_deal_and_pool(tmp_path, clock):
    s = new_session(tmp_path, clock, players=list("ABCDEF"), tile_set="xp")
    assert s.game.pool == 160 - 6 * 14


# --- Sabra turns (seed 004: initial meld 30 from the rack, draw when nothing is played) ---

TURNS = [
    # before, after, has_melded, legal   (seed 004 leaflet, 'Playing The Game' and 'Manipulation')
    ("", "R10 R11 R12", False, True),              # 33 points: an initial meld
    ("", "K1 K2 K3", False, False),                # 6 points: below 30
    ("R10 R11 R12", "R10 R11 R12 R13", True, True),  # adding to a run
    ("R10 R11 R12", "R10 R11", True, False),        # a tile went back to the rack
    ("B4 B5 B6", "B3 B4 B5 B6 | B8 K8 O8", True, True),
]


@pytest.mark.parametrize("before, after, melded, legal", TURNS)
def test_end_turn_verdict(tmp_path, clock, before, after, melded, legal):
    s = new_session(tmp_path, clock)
    g = s.game
    s.game = replace(g, turn=replace(g.turn, table_before=table_of(T(before))),
                     seats=(replace(g.seats[0], has_melded=melded),) + g.seats[1:])
    verdict = s.end_turn(T(after))
    assert verdict.legal is legal
    if legal:
        assert s.current_player == "Ben"  # the turn passed on
        assert s.game.seats[0].has_melded
    else:
        assert verdict.problems, "an illegal turn says why"
        assert s.current_player == "Ann"  # the turn goes on so the player can fix it
        assert s.game.turn.attempt.legal is False


def test_legal_turn_counts_tiles_and_draw(tmp_path, clock):
    s = new_session(tmp_path, clock)
    pool = s.game.pool
    assert pool == 106 - 3 * 14
    s.end_turn(T("R10 R11 R12"))
    assert s.game.seats[0].rack_count == 11
    s.end_turn(T("R10 R11 R12"))  # Ben plays nothing: draws one
    assert s.game.seats[1].rack_count == 15
    assert s.game.pool == pool - 1
    log = s.store.turns(s.game_id)
    assert [(t["player"], t["action"], t["placed"]) for t in log] == [
        ("Ann", "done", "R10 R11 R12"), ("Ben", "draw", "")]


def test_pass_is_the_same_as_the_button(tmp_path, clock):
    s = new_session(tmp_path, clock)
    verdict = s.end_turn(T("K11 B11 O11"), action="pass")
    assert verdict.legal and s.game.last.action == "pass"
    assert s.current_player == "Ben"


# --- the clock --------------------------------------------------------------

def test_clock_counts_down_with_the_rule_limit(tmp_path, clock):
    s = new_session(tmp_path, clock, turn_time_limit=90)
    assert s.clock()["remaining"] == 90
    clock.advance(30)
    assert s.clock()["remaining"] == 60
    s.tick(T(""))
    assert s.current_player == "Ann"  # not yet
    no_limit = new_session(tmp_path / "b", clock, rules="american")
    assert no_limit.clock()["remaining"] is None and no_limit.clock()["running"]


def test_timeout_on_unchanged_table_draws_one(tmp_path, clock):
    s = new_session(tmp_path, clock)
    clock.advance(61)
    s.tick(T(""))
    assert s.game.last.verdict.legal and s.game.last.action == "timeout"
    assert s.current_player == "Ben"
    assert s.game.seats[0].rack_count == 15
    assert s.game.restore is None


def test_timeout_on_illegal_table_shows_snapshot_and_penalty(tmp_path, clock):
    s = new_session(tmp_path, clock)
    s.end_turn(T("R10 R11 R12"), b"turn-2-start")
    assert s.snapshot_jpeg == b"turn-2-start"
    clock.advance(60.5)
    s.tick(T("R10 R11 | R12 K1"))  # Ben broke the run and ran out of time
    assert not s.game.last.verdict.legal and s.game.last.penalty == 3
    restore = s.game.restore
    assert restore.player == "Ben" and restore.table == T("R10 R11 R12")
    assert s.snapshot_jpeg == b"turn-2-start" and s.store.snapshot(s.game_id) == b"turn-2-start"
    assert s.game.seats[1].rack_count == 14 + 3 and s.game.seats[1].penalties == 3
    # Cid's turn starts from the snapshot table, not from the broken one; his clock waits
    assert s.current_player == "Cid" and s.game.turn.table_before == T("R10 R11 R12")
    assert s.clock()["paused"] and not s.clock()["running"]
    clock.advance(30)
    assert s.clock()["remaining"] == 60
    assert s.store.turns(s.game_id)[-1]["penalty"] == 3
    # the banner goes once the camera sees the table put back, and the clock runs
    s.check_restored(T("R12 R10 R11"))
    assert s.game.restore is None and s.clock()["running"]


def test_penalty_size_is_a_rule_option(tmp_path, clock):
    s = new_session(tmp_path, clock, unfinished_turn_penalty=2)
    clock.advance(100)
    s.tick(T("K1"))
    assert s.game.seats[0].penalties == 2


# --- American and International flows (seed 004) ---------------------------------

def test_american_turn_is_draw_meld_discard(tmp_path, clock):
    s = new_session(tmp_path, clock, rules="american")
    assert s.game.pool == 106 - 3 * 14 - 1  # the face-up trump tile
    assert s.game.turn.step.value == "draw"
    with pytest.raises(SessionError, match="draw first"):
        s.end_turn([])
    with pytest.raises(SessionError, match="^Ann may take the previous discard from the turn after the initial meld"):
        s.draw("discard")
    s.draw("pool")
    assert s.game.seats[0].rack_count == 15
    s.end_turn(T("K7 B7 O7"), discard="R2")  # 21 points: the American initial meld
    ann = s.game.seats[0]
    assert ann.has_melded and ann.rack_count == 15 - 3 - 1 and ann.discard.code == "R2"
    # counter-clockwise by default in the American game
    assert s.current_player == "Cid"


def test_american_initial_meld_is_21(tmp_path, clock):
    s = new_session(tmp_path, clock, rules="american")
    s.draw("pool")
    verdict = s.end_turn(T("K5 B5 O5"), discard="R2")  # 15 < 21
    assert not verdict.legal


def test_international_starter_holds_15_and_skips_the_draw(tmp_path, clock):
    store = Store(tmp_path / "db.sqlite3")
    s = GameSession(store, options=find_variant("international"), now=clock)
    s.start_game(["Ann", "Ben"], first=1, trump="O9")
    assert s.current_player == "Ben"
    assert s.game.seats[1].rack_count == 15 and s.game.seats[0].rack_count == 14
    assert s.game.turn.step.value == "meld"  # the 15th tile: no draw on the first turn
    assert s.game.trump.code == "O9"
    s.end_turn([], discard="K3")
    assert s.current_player == "Ann" and s.game.turn.step.value == "draw"
    s.draw("discard")  # International: the previous discard may always be taken
    assert s.game.turn.drew.tile.code == "K3"


# --- end of hand -------------------------------------------------------------

def test_rummikub_tally_scores_the_hand_and_starts_the_next(tmp_path, clock):
    s = new_session(tmp_path, clock)
    s.end_turn(T("R10 R11 R12"))
    s.call_rummikub(T("R10 R11 R12 | K10 K11 K12 K13"), count_checked=True)  # Ben went out (his turn is judged: a 46-point meld)
    assert s.game.status.value == "tally" and s.game.tally.winner == "Ben"
    with pytest.raises(SessionError):
        s.end_turn([])  # no turns during the tally
    # Cid lays his rack beside the table; the camera sees the extra tiles
    assert s.read_rack("Cid", T("R10 R11 R12 | K10 K11 K12 K13 | O5 J")) == "O5 J"
    with pytest.raises(SessionError, match="Ann"):
        s.confirm_tally({})
    with pytest.raises(SessionError, match="Cid should hold 14"):  # the camera read 2 of Cid's 14 tiles by the count
        s.confirm_tally({"Ann": "B13 B2"})
    result = s.confirm_tally({"Ann": "B13 B2"}, count_checked=True)  # typed by the players; the count overruled
    assert result["scores"] == {"Ann": -15, "Ben": 50, "Cid": -35}  # joker 30 (seed 004)
    assert sum(result["scores"].values()) == 0
    assert s.game.status.value == "dealing" and s.game.hand == 2  # the next hand waits for its start
    s.start_hand()
    assert s.game.status.value == "playing"
    assert s.current_player == "Ben"  # the start passes on
    assert all(p.rack_count == 14 and not p.has_melded for p in s.game.seats)
    sheet = s.sheet().summary()
    assert sheet["totals"] == {"Ann": -15, "Ben": 50, "Cid": -35}
    assert sheet["games_won"]["Ben"] == 1
    assert s.sheet().to_rows()[-1] == ["Total", -15, 50, -35]


def test_winner_rack_must_be_empty(tmp_path, clock):
    s = new_session(tmp_path, clock)
    s.call_rummikub([], winner="Cid", count_checked=True)
    with pytest.raises(SessionError, match="Cid"):
        s.confirm_tally({"Ann": "R1", "Ben": "R2", "Cid": "K13"})


def test_pool_exhausted_lowest_rack_wins(tmp_path, clock):
    s = new_session(tmp_path, clock)
    s.call_rummikub([], pool_empty=True, count_checked=True)
    result = s.confirm_tally({"Ann": "R3", "Ben": "R10", "Cid": "K5 K6"})
    # seed 004: each loses the difference to the lowest count; the winner takes the sum
    assert result == {"hand": 1, "winner": "Ann", "scores": {"Ann": 15, "Ben": -7, "Cid": -8}}


def test_sample_score_table_of_the_leaflet(tmp_path, clock):
    """Seed 004 'Sample score table': three games, A/B/C/D, totals -14 -29 +4 +39."""
    s = new_session(tmp_path, clock, players=["A", "B", "C", "D"])
    hands = [
        ("A", {"B": "R5", "C": "R10 R6", "D": "R3"}),
        ("C", {"A": "R6", "B": "R11", "D": "R5"}),
        ("D", {"A": "R12 R13 R7", "B": "R13", "C": "R2"}),
    ]
    for winner, racks in hands:
        s.call_rummikub([], winner=winner, count_checked=True)
        s.confirm_tally(racks)
        s.start_hand()
    assert s.sheet().totals == {"A": -14, "B": -29, "C": 4, "D": 39}


def test_cancel_tally_goes_back_to_play(tmp_path, clock):
    s = new_session(tmp_path, clock)
    s.call_rummikub([], count_checked=True)
    s.cancel_tally()
    assert s.game.status.value == "playing" and s.current_player == "Ann"


# --- persistence and hints -----------------------------------------------------

def test_a_new_session_on_the_same_file_resumes(tmp_path, clock):
    s = new_session(tmp_path, clock)
    s.end_turn(T("R10 R11 R12"), b"pic")
    s.call_rummikub(T("R10 R11 R12"), winner="Ann", count_checked=True)
    s.confirm_tally({"Ben": "K9", "Cid": "J"})
    s.start_hand()
    s.end_turn(T("O11 O12 O13"))
    again = GameSession(Store(tmp_path / "companion.sqlite3"), now=clock)
    assert again.game == s.game and again.snapshot_jpeg == s.snapshot_jpeg
    assert again.sheet().summary() == s.sheet().summary()
    assert again.options == s.options


def test_hint_uses_the_typed_rack(tmp_path, clock):
    s = new_session(tmp_path, clock)
    hints = Hints()
    assert hints.hint(s.game, T(""))["needs_rack"]
    s.set_rack("Ann", "R10 R11 R12 K1")
    hint = hints.hint(s.game, T(""))
    assert sorted(hint["placed"]) == ["R10", "R11", "R12"]  # K1 alone cannot go out
    assert hint["sets"] == [{"tiles": ["R10", "R11", "R12"], "new": True}]
    # with the rack known, the validator also checks the tiles came from it
    verdict = s.end_turn(T("R10 R11 R12 R13"))
    assert not verdict.legal and any(p.code == "not_on_rack" and "R13" in p.message for p in verdict.problems)
    s.end_turn(T("R10 R11 R12"))
    assert s.game.seats[0].rack == tuple(parse_tiles("K1"))  # what is left of the typed rack


def test_suggestion_after_an_illegal_turn(tmp_path, clock):
    s = new_session(tmp_path, clock)
    g = s.game
    s.game = replace(g, turn=replace(g.turn, table_before=table_of(T("R3 R4 R5 | K5 B5 O5"))),
                     seats=(replace(g.seats[0], has_melded=True),) + g.seats[1:])
    hints = Hints()
    bad = T("R3 R4 | R5 K5 B5 O5 | R6")  # R5 moved to the group: two sets broken
    assert hints.suggestion(s.game, bad) is None  # nothing to suggest before the turn is judged
    verdict = s.end_turn(bad)
    assert not verdict.legal
    suggestion = hints.suggestion(s.game, bad)
    assert sorted(map(sorted, suggestion)) == [["B5", "K5", "O5"], ["R3", "R4", "R5", "R6"]]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["done", "pass", "tick"]), min_size=1, max_size=12))
def test_turns_always_rotate_through_every_player(actions):
    """Whatever mix of buttons and time-outs, the seat moves one step per finished turn."""
    clock = FakeClock()
    s = GameSession(Store(":memory:"), options=find_variant("sabra"), now=clock)
    s.start_game(["A", "B", "C", "D"])
    for i, action in enumerate(actions):
        assert s.game.turn.seat == i % 4
        if action == "tick":
            clock.advance(61)
            s.tick(())
        else:
            s.end_turn([], action=action)
    assert s.game.pool == 106 - 4 * 14 - len(actions)


def test_international_hand_with_its_win_details(tmp_path, clock):
    """Seed 004 International: an open win scores 100; losers who melded pay their racks (10 for 1 and 10-13)."""
    s = new_session(tmp_path, clock, rules="international", players=["Ann", "Ben", "Cid"])
    s.game = replace(s.game, seats=(s.game.seats[0], replace(s.game.seats[1], has_melded=True), s.game.seats[2]))
    s.call_rummikub([], winner="Ann", discard="J", count_checked=True)  # the winner's final discard: a joker
    result = s.confirm_tally({"Ben": "R1 K5", "Cid": "B2"}, win="open")
    # doubled for the joker discard; Cid never melded: pays 100
    assert result["scores"] == {"Ann": 200, "Ben": -30, "Cid": -200}


def test_rules_saved_by_an_older_version_still_load(tmp_path, clock):
    s = new_session(tmp_path, clock, turn_time_limit=45)
    doc = to_dict(s.game)
    doc["options"]["retired_option"] = True
    s.store.save(s.game_id, doc)
    again = GameSession(Store(tmp_path / "companion.sqlite3"), now=clock)
    assert again.rules.turn_time_limit == 45 and again.current_player == "Ann"


TABLES = ["", "R10 R11 R12", "R10 R11 R12 | K1 K2", "R10 R11 R12 R13 | O5 B5 K5", "J R2 R3"]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["end", "pass", "tick", "rummikub"]), st.sampled_from(TABLES)),
                min_size=1, max_size=10))
def test_whatever_happens_a_restart_shows_the_same_game(tmp_path_factory, steps):
    """Write-through: after any run of actions a fresh session on the same file sees the same game."""
    path = tmp_path_factory.mktemp("db") / "c.sqlite3"
    clock = FakeClock()
    s = GameSession(Store(path), options=find_variant("sabra"), now=clock)
    s.start_game(["A", "B", "C"])
    for action, table in steps:
        if action == "tick":
            clock.advance(61)
            s.tick(T(table), b"pic")
        elif action == "rummikub":
            try:  # judged as "End turn" is: refused on an illegal table or while it is put back
                s.call_rummikub(T(table), count_checked=True)
            except SessionError:
                pass
            if s.game.status.value == "tally":
                s.confirm_tally({n: "K5" for n in s.game.names if n != s.current_player}, count_checked=True)
        else:
            try:
                s.end_turn(T(table), action="done" if action == "end" else "pass")
            except SessionError:  # e.g. the table is still being put back: refused, nothing stored
                pass
        again = GameSession(Store(path), now=clock)
        assert again.game == s.game
        assert again.sheet().summary() == s.sheet().summary()
