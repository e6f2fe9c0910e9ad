"""Defects of the game model found by a user test (rules.game_*), one section each:

A. the next hand's clock waits while the tiles are collected and dealt;
B. the tally's confirm takes the players' word on who has melded;
C. "Rummikub!" is judged like ending a turn, and the winner's last turn is logged;
D. a game keeps its scoring method;
E. American family: every turn (the winner's too) ends with a discard, the trump only to win;
F. racks the box cannot hold are refused when set and in the points preview, as the confirm refuses them;
G. a game can be finished.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.game_codec import from_dict, to_dict
from rules.game_deal import start_hand
from rules.game_state import Action, DrawSource, GameError, Status, Step, table_of
from rules.game_reads import read_doubts
from rules.game_tally import (
    call_rummikub, confirm_tally, finish_game, read_rack, score_sheet, set_tally_rack, tally_points,
    undo_last_hand,
)
from rules.game_turns import change_rules, draw, end_turn, set_rack, start_game, time_out
from rules.options import VARIANTS, find_variant
from rules.tiles import ALL_FACES, Tile, parse_table, parse_tiles


def T(text: str):
    return table_of(parse_table(text)) if text.strip() else ()


def R(text: str):
    return tuple(parse_tiles(text))


def scored_sabra_hand(now: float = 10.0, table: str = "R10 R11 R12"):
    """Ann opens and goes out at once; Ben's rack is K5: hand 1 scored at ``now``."""
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _, _ = call_rummikub(g, T(table), now - 1, count_checked=True)
    return confirm_tally(g, now, {"Ben": R("K5")})


# --- A. the next hand waits for its start ---------------------------------------------

def test_next_hand_waits_while_dealing_and_can_still_be_taken_back():
    g = scored_sabra_hand(now=10.0)
    assert g.status is Status.DEALING and g.hand == 2 and g.current.name == "Ben"
    assert g.turn.clock.paused and g.turn.clock.remaining(10_000.0) == 60
    for second in range(11, 400):  # the page's ticker while the players shuffle and deal
        assert time_out(g, (), float(second)) is None
    assert undo_last_hand(g, 400.0).status is Status.TALLY  # the scored hand can still be taken back
    with pytest.raises(GameError, match="not started"):
        draw(g, DrawSource.POOL)
    g = start_hand(g, 400.0)
    assert g.status is Status.PLAYING and g.turn.clock.remaining(410.0) == 50
    assert g.undo is not None  # until the first turn of the new hand ends, as before
    g, rec = time_out(g, (), 461.0)
    assert rec.player == "Ben" and rec.started_at == 400.0 and g.undo is None
    with pytest.raises(GameError, match="no hand is waiting"):
        start_hand(g, 470.0)


def test_rules_chosen_while_dealing_outlive_the_hand_taken_back():
    """Rules changed while the next hand was dealt were lost when the scored hand was taken back (the tally
    reopened with the rules of before); they now stay chosen, for the next hand, and survive a restart."""
    g = scored_sabra_hand(now=10.0)
    g = change_rules(g, g.options.replace(initial_meld=50, turn_time_limit=90))
    assert g.status is Status.DEALING and g.pending is None  # the hand dealt has not started: it takes them
    assert g.options.initial_meld == 50 and g.turn.clock.limit == 90
    back = undo_last_hand(g, 20.0)
    assert back.status is Status.TALLY and back.options.initial_meld == 30  # the hand counted again: as played
    assert (back.pending.initial_meld, back.pending.turn_time_limit) == (50, 90)
    assert from_dict(to_dict(back)) == back
    again = confirm_tally(back, 21.0, {"Ben": R("K7")})
    assert again.options.initial_meld == 50 and again.turn.clock.limit == 90 and again.pending is None
    # chosen during the hand taken back, then changed back while dealing: the rules the hand was played by
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g = change_rules(g, g.options.replace(initial_meld=50))
    g, _, _ = call_rummikub(g, (), 9.0, count_checked=True)
    g = confirm_tally(g, 10.0, {"Ben": R("K5")})
    assert g.options.initial_meld == 50 and g.pending is None
    g = change_rules(g, g.options.replace(initial_meld=30))
    assert undo_last_hand(g, 20.0).pending is None
    # nothing changed while dealing: the rules chosen during the hand still wait for the next one
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g = change_rules(g, g.options.replace(initial_meld=40))
    g, _, _ = call_rummikub(g, (), 9.0, count_checked=True)
    assert undo_last_hand(confirm_tally(g, 10.0, {"Ben": R("K5")}), 20.0).pending.initial_meld == 40


def test_a_game_saved_while_a_camera_watched_the_deal_still_loads():
    """Older versions saved ``tiles_seen`` (the camera's auto-start, now gone): such a document loads."""
    g = scored_sabra_hand()
    doc = to_dict(g)
    assert "tiles_seen" not in doc
    assert from_dict(dict(doc, tiles_seen=True)) == g == from_dict(doc)


def test_every_turn_action_is_refused_while_the_next_hand_waits():
    """The old hand's tiles still lie on the table: End turn, Pass, a draw or Rummikub! must not start
    hand 2 and judge them as its first turn (only Start hand starts it)."""
    g = scored_sabra_hand(now=10.0)
    for action in (Action.DONE, Action.PASS):
        with pytest.raises(GameError, match="^the next hand has not started: press Start hand once the tiles"):
            end_turn(g, T("O11 O12 O13"), 90.0, action=action)
    for pool_empty in (False, True):
        with pytest.raises(GameError, match="the next hand has not started"):
            call_rummikub(g, T("O11 O12 O13"), 90.0, pool_empty=pool_empty, count_checked=True)
    assert undo_last_hand(g, 91.0).status is Status.TALLY  # the scored hand can still be taken back
    am = start_game(["Ann", "Ben"], find_variant("american"), 0.0)
    am = draw(am, DrawSource.POOL)
    am, _, _ = call_rummikub(am, (), 5.0, discard=Tile.parse("K3"), count_checked=True)
    am = confirm_tally(am, 6.0, {"Ben": R("K5")})
    assert am.status is Status.DEALING
    for source in DrawSource:
        with pytest.raises(GameError, match="the next hand has not started"):
            draw(am, source)
    am = draw(start_hand(am, 50.0), DrawSource.POOL)
    assert am.status is Status.PLAYING and am.turn.clock.since == 50.0 and am.turn.step is Step.MELD


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 120), st.sampled_from(["", "R10 R11 R12", "K5 | R10 R11 R12"])),
                max_size=12))
def test_while_dealing_time_never_runs_out(ticks):
    """Whatever the ticker does and whatever lies on the table, nobody is timed before the hand starts."""
    g = scored_sabra_hand(now=0.0)
    now = 0.0
    for seconds, table in ticks:
        now += seconds
        assert time_out(g, T(table), now) is None
        assert g.undo is not None and g.turn.clock.paused


# --- B. the players say who has melded ------------------------------------------------

@pytest.mark.parametrize("rules, default, corrected", [("israeli", 100, 5), ("international", -100, -5)])
def test_confirm_takes_the_players_word_on_melding(rules, default, corrected):
    g = start_game(["Ann", "Ben", "Cid"], find_variant(rules), 0.0)
    g, _, _ = call_rummikub(g, (), 1.0, winner="Cid", count_checked=True)  # Ben never melded, as far as the game knows
    racks = {"Ann": R("K9"), "Ben": R("R5")}
    assert confirm_tally(g, 2.0, racks).hands[-1].scores[1] == default
    fixed = confirm_tally(g, 2.0, racks, melded={"Ben": True})  # the camera missed Ben's meld
    assert fixed.hands[-1].scores[1] == corrected
    assert fixed.hands[-1].scores[0] == confirm_tally(g, 2.0, racks).hands[-1].scores[0]  # Ann untouched
    with pytest.raises(GameError, match="'Zed' is not playing"):
        confirm_tally(g, 2.0, racks, melded={"Zed": True})
    with pytest.raises(GameError, match="true or false"):
        confirm_tally(g, 2.0, racks, melded={"Ben": "yes"})
    with pytest.raises(GameError, match="went out"):
        confirm_tally(g, 2.0, racks, melded={"Cid": False})


# --- C. "Rummikub!" is judged and logged ----------------------------------------------

def test_rummikub_on_an_illegal_table_is_refused_with_the_verdict():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    refused, rec, verdict = call_rummikub(g, T("K1 K2"), 5.0, count_checked=True)  # Ann never melded; K1 K2 is no set
    assert rec is None and not verdict.legal and refused.status is Status.PLAYING and refused.tally is None
    assert {p.code for p in verdict.problems} >= {"invalid_set"}
    assert refused.turn.attempt == verdict and not refused.turn.clock.paused


def test_rummikub_is_refused_while_the_table_is_put_back():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _ = time_out(g, T("K1 K2"), 61.0)
    assert g.restore is not None
    with pytest.raises(GameError, match="put the table back"):
        call_rummikub(g, T("K1 K2"), 62.0, count_checked=True)
    with pytest.raises(GameError, match="put the table back"):
        call_rummikub(g, (), 62.0, pool_empty=True)


def test_the_winners_last_turn_is_logged():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    log = []
    g, rec, _ = end_turn(g, T("R10 R11 R12"), 10.0)
    log.append(rec)
    g, rec, _ = end_turn(g, T("R10 R11 R12 | O11 O12 O13"), 20.0)
    log.append(rec)
    g, rec, verdict = call_rummikub(g, T("R10 R11 R12 R13 | O11 O12 O13 | K1 K2 K3"), 30.0, count_checked=True)
    log.append(rec)
    assert [(r.player, r.action, r.number) for r in log] == [
        ("Ann", Action.DONE, 1), ("Ben", Action.DONE, 2), ("Ann", Action.RUMMIKUB, 3)]
    assert rec.verdict == verdict and sorted(verdict.placed) == sorted(R("R13 K1 K2 K3"))
    assert rec.started_at == 20.0 and rec.ended_at == 30.0 and rec.table_after == g.tally.table
    assert g.status is Status.TALLY and g.tally.winner == "Ann"


def test_a_named_winner_or_the_pool_running_out_logs_no_empty_turn():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _, _ = end_turn(g, T("R10 R11 R12"), 10.0)
    tally, rec, verdict = call_rummikub(g, T("R10 R11 R12"), 11.0, winner="Ann", count_checked=True)
    assert rec is None and verdict.legal and tally.tally.winner == "Ann"
    tally, rec, _ = call_rummikub(g, T("R10 R11 R12"), 11.0, pool_empty=True, count_checked=True)
    assert rec is None and tally.tally.winner is None


# --- D. the scoring method stays ------------------------------------------------------

def test_scoring_method_cannot_change_inside_a_game():
    g = start_game(["A", "B"], find_variant("sabra"), 0.0)
    for rack_b in ("K5 K6", "R2"):  # A wins twice: +11, +2
        g, _, _ = call_rummikub(g, (), 1.0, winner="A", count_checked=True)
        g = start_hand(confirm_tally(g, 2.0, {"B": R(rack_b)}), 3.0)
    with pytest.raises(GameError, match="keeps its scoring method"):
        change_rules(g, find_variant("israeli"))
    sheet = score_sheet(g)
    assert sheet.method == "sabra" and sheet.totals == {"A": 13, "B": -13} and sheet.overall_winner == "A"
    # other options still change from the next hand; Sabra and American score alike
    assert change_rules(g, find_variant("sabra", turn_time_limit=90)).pending.turn_time_limit == 90
    assert change_rules(g, find_variant("american")).pending.game == "american"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.sampled_from(sorted(VARIANTS)))
def test_a_rule_change_never_mixes_scoring_methods(first, then):
    """Whatever is chosen mid-game, every hand of the game is scored and ranked one way."""
    g = start_game(["A", "B"], find_variant(first), 0.0)
    try:
        g = change_rules(g, find_variant(then))
    except GameError as exc:
        assert "scoring" in str(exc) and find_variant(first).scoring != find_variant(then).scoring
        return
    new = (g.pending or g.options).scoring_method
    old = g.options.scoring_method
    assert (new.hand, new.tile_value, new.ranking, new.final_scores, new.settles) == \
        (old.hand, old.tile_value, old.ranking, old.final_scores, old.settles)


# --- E. the American family: discards and the trump ----------------------------------

def test_seed_says_every_turn_discards_and_the_trump_only_wins(seeds_dir):
    text = " ".join(next(seeds_dir.glob("004_*")).read_text(encoding="utf-8").split())
    assert "meld all the remaining tiles in his hand except for one, which is the final discard" in text
    assert "can be drawn instead of a face-down tile or the previous player's discard if the player who " \
           "draws it can thereby win the game" in text
    assert 'You are not allowed to take the "trump" as your final draw' in text


@pytest.mark.parametrize("rules", ["american", "international", "israeli"])
def test_a_turn_after_the_draw_ends_with_a_discard(rules):
    g = start_game(["Ann", "Ben"], find_variant(rules), 0.0, trump=Tile.parse("R7"))
    if g.turn.step is Step.DRAW:
        g = draw(g, DrawSource.POOL)
    count = g.seats[0].rack_count
    with pytest.raises(GameError, match="discard a tile to end the turn"):
        end_turn(g, (), 1.0)
    g, rec, _ = end_turn(g, (), 1.0, discard=Tile.parse("K3"))
    assert rec.action is Action.DISCARD and g.seats[0].rack_count == count - 1


def test_the_trump_only_to_win():
    g = start_game(["Ann", "Ben"], find_variant("american"), 0.0, trump=Tile.parse("R7"))
    count = g.seats[0].rack_count
    took = draw(g, DrawSource.TRUMP)
    with pytest.raises(GameError, match="only to win"):
        end_turn(took, (), 1.0, discard=Tile.parse("K3"))
    back = draw(took, DrawSource.POOL)  # put the trump back and draw from the pool instead
    assert back.trump_up and back.seats[0].rack_count == count + 1 and back.turn.drew.source is DrawSource.POOL
    assert back.pool == g.pool - 1
    with pytest.raises(GameError, match="discard"):
        call_rummikub(took, (), 2.0, count_checked=True)  # the winner discards last, too
    won, rec, _ = call_rummikub(took, (), 2.0, discard=Tile.parse("K3"), count_checked=True)
    assert rec.action is Action.RUMMIKUB and won.tally.trump_drawn and won.tally.discard == Tile.parse("K3")
    assert from_dict(to_dict(won)) == won


def test_international_open_win_may_not_take_the_trump_and_a_joker_discard_doubles():
    g = start_game(["Ann", "Ben"], find_variant("international"), 0.0, trump=Tile.parse("R7"))
    g, _, _ = end_turn(g, (), 1.0, discard=Tile.parse("K3"))  # Ann, the starter, discards her 15th tile
    g = draw(g, DrawSource.TRUMP)
    g, _, _ = call_rummikub(g, (), 2.0, discard=Tile.parse("J"), count_checked=True)
    with pytest.raises(GameError, match="Open win"):
        confirm_tally(g, 3.0, {"Ann": R("K5")})
    foot = confirm_tally(g, 3.0, {"Ann": R("K5")}, win="foot")
    assert foot.hands[-1].scores == (-200, 400)  # 200 for a Foot, doubled by the joker discard; Ann never melded
    plain = confirm_tally(g, 3.0, {"Ann": R("K5")}, win="foot", joker_discard=False)
    assert plain.hands[-1].scores == (-100, 200)


def test_a_winner_in_the_american_family_draws_first():
    g = start_game(["Ann", "Ben"], find_variant("american"), 0.0)
    with pytest.raises(GameError, match="draw first"):
        call_rummikub(g, (), 1.0, count_checked=True)
    t, rec, _ = call_rummikub(g, (), 1.0, pool_empty=True, count_checked=True)  # the pool ran out before Ann's draw
    assert rec is None and t.status is Status.TALLY


# --- F. racks the box cannot hold -----------------------------------------------------

BOX_TEXT = "more copies than the box holds: 3 x R5: the standard 106-tile box holds 2 of each number tile and 2 jokers"


def test_impossible_racks_are_refused_with_the_confirms_words():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    with pytest.raises(GameError) as setting:
        set_rack(g, "Ann", R("R5 R5 R5"))
    t, _, _ = call_rummikub(g, (), 1.0, count_checked=True)
    with pytest.raises(GameError) as confirming:
        confirm_tally(t, 2.0, {"Ben": R("R5 R5 R5")})
    with pytest.raises(GameError) as previewing:
        tally_points(R("R5 R5 R5"), g.options)
    with pytest.raises(GameError) as typing:
        set_tally_rack(t, "Ben", R("R5 R5 R5"))
    read = read_rack(t, "Ben", T("R5 R5 R5"))  # a reading is kept, questioned (rules.game_reads) ...
    assert read.tally.racks[1] == R("R5 R5 R5") and "a third R5" in read_doubts(read)["Ben"]
    with pytest.raises(GameError) as reading:  # ... and the confirm refuses it, the count overruled or not
        confirm_tally(read, 2.0, count_checked=True)
    words = {str(e.value) for e in (setting, confirming, previewing, typing)}
    assert words == {f"cannot score this hand: {BOX_TEXT}"}
    assert str(reading.value).startswith("cannot score this hand: more copies than the box holds: 3 x R5 (Ben 3)")
    with pytest.raises(GameError, match="3 x J"):
        tally_points(R("R5 J J J"), g.options)
    xp = find_variant("sabra", tile_set="xp")  # the XP box holds three of each and four jokers
    assert tally_points(R("R5 R5 R5 J J J"), xp) == 15 + 90
    assert set_rack(start_game(list("ABCDE"), xp, 0.0), "A", R("R5 R5 R5")).seats[0].rack == R("R5 R5 R5")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(ALL_FACES), min_size=1, max_size=8), st.sampled_from(["standard", "xp"]))
def test_the_preview_refuses_exactly_what_the_confirm_refuses(rack, tile_set):
    options = find_variant("sabra", tile_set=tile_set)
    g, _, _ = call_rummikub(start_game(["Ann", "Ben"], options, 0.0), (), 1.0, count_checked=True)
    outcomes = []
    for attempt in (lambda: tally_points(rack, options),
                    lambda: confirm_tally(g, 2.0, {"Ben": tuple(rack)}).hands[-1].scores[0]):
        try:
            outcomes.append(("ok", attempt()))
        except GameError as exc:
            outcomes.append(("refused", str(exc)))
    assert outcomes[0] == outcomes[1]


# --- G. a game can be finished ---------------------------------------------------------

def test_finish_the_game_after_the_agreed_hands():
    """004_*: the players play the games they agreed; most games won wins, ties by the higher score."""
    g = start_game(["A", "B", "C"], find_variant("sabra"), 0.0)
    for winner, racks in [("A", {"B": "R2", "C": "R1"}), ("B", {"A": "K13 K12", "C": "K11"}),
                          ("A", {"B": "O1", "C": "O2"})]:
        g, _, _ = call_rummikub(g, (), 1.0, winner=winner, count_checked=True)
        with pytest.raises(GameError, match="confirm the hand"):
            finish_game(g, 1.5)
        g = start_hand(confirm_tally(g, 2.0, {n: R(r) for n, r in racks.items()}), 2.5)
    done = finish_game(g, 3.0)
    assert done.status is Status.FINISHED and done.undo is None and done.turn.clock.paused
    sheet = score_sheet(done)
    assert sheet.games_won == {"A": 2, "B": 1, "C": 0} and sheet.totals["B"] > sheet.totals["A"]
    assert sheet.overall_winner == "A"
    assert from_dict(to_dict(done)) == done
    for move in (lambda: end_turn(done, (), 4.0), lambda: call_rummikub(done, (), 4.0, count_checked=True),
                 lambda: start_hand(done, 4.0), lambda: finish_game(done, 4.0),
                 lambda: undo_last_hand(done, 4.0)):
        with pytest.raises(GameError, match="finished|no hand|no scored hand"):
            move()
    assert time_out(done, (), 1e9) is None
