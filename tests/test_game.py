"""The game model (rules.game_*): pure transitions, checked by hand and over random play."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from rules.game_codec import from_dict, to_dict
from rules.game_deal import start_hand
from rules.game_state import Action, DrawSource, GameError, Status, Step, table_of
from rules.game_tally import call_rummikub, cancel_tally, confirm_tally, read_rack, score_sheet, undo_last_hand
from rules.game_turns import change_rules, draw, end_turn, start_game, table_restored, time_out, undo_draw
from rules.options import find_variant
from rules.tiles import ALL_FACES, Color, Tile, parse_table, parse_tiles


def T(text: str):
    return table_of(parse_table(text)) if text.strip() else ()


def R(text: str):
    return tuple(parse_tiles(text))


def test_deal_per_game():
    g = start_game(["Ann", "Ben", "Cid"], find_variant("sabra"), 0.0)
    assert g.pool == 106 - 42 and not g.trump_up and g.turn.step is Step.PLAY
    g = start_game(["Ann", "Ben", "Cid"], find_variant("american"), 0.0)
    assert g.pool == 106 - 42 - 1 and g.trump_up and g.turn.step is Step.DRAW
    g = start_game(["Ann", "Ben", "Cid"], find_variant("international"), 0.0, first=1)
    assert g.seats[1].rack_count == 15 and g.pool == 106 - 43 - 1 and g.turn.step is Step.MELD


def test_illegal_timeout_pauses_next_clock_until_table_is_back():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, rec, v = end_turn(g, T("R10 R11 R12"), 10.0)
    assert v.legal and rec.player == "Ann" and g.seats[0].rack_count == 11
    assert time_out(g, T("R10 R11 R12 | K1 K2"), 30.0) is None  # 20 s of 60: not yet
    g, rec = time_out(g, T("R10 R11 R12 | K1 K2"), 71.0)
    assert rec.penalty == 3 and g.seats[1].rack_count == 17 and g.seats[1].penalties == 3
    assert g.restore.table == T("R10 R11 R12") and g.turn.clock.paused
    assert g.turn.clock.remaining(500.0) == 60  # nobody's time runs while the table is put back
    with pytest.raises(GameError):
        end_turn(g, T("R10 R11 R12"), 80.0)
    g = table_restored(g, 100.0, T("R10 R11 R12"))
    assert g.restore is None and g.turn.clock.remaining(110.0) == 50


def test_mistaken_rummikub_keeps_time_left():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _, _ = call_rummikub(g, (), 20.0, count_checked=True)
    assert g.status is Status.TALLY
    g = cancel_tally(g, 500.0)
    assert g.status is Status.PLAYING and g.turn.clock.remaining(505.0) == 35


def test_blank_loser_rack_is_refused_and_winner_only_is_empty():
    g = start_game(["Ann", "Ben", "Cid"], find_variant("sabra"), 0.0)
    g, rec, _ = call_rummikub(g, T("R10 R11 R12"), 5.0, count_checked=True)
    assert rec.action is Action.RUMMIKUB and rec.player == "Ann"  # the winner's last turn is logged
    with pytest.raises(GameError, match="rack not given for Ben, Cid"):
        confirm_tally(g, 6.0)
    with pytest.raises(GameError, match="Cid"):
        confirm_tally(g, 6.0, {"Ben": R("K5"), "Cid": ()})
    with pytest.raises(GameError, match="went out"):
        confirm_tally(g, 6.0, {"Ann": R("K5"), "Ben": R("K5"), "Cid": R("K1")})
    h = confirm_tally(g, 6.0, {"Ben": R("K5 J"), "Cid": R("B2")})
    assert h.hands[-1].scores == (37, -35, -2) and h.hand == 2 and h.starter == 1
    back = undo_last_hand(h, 7.0)
    assert back.status is Status.TALLY and back.hands == () and back.tally.racks[1] == R("K5 J")
    assert score_sheet(back).totals == {"Ann": 0, "Ben": 0, "Cid": 0}


def test_read_rack_needs_tiles_in_view():
    g, _, _ = call_rummikub(start_game(["Ann", "Ben"], find_variant("sabra"), 0.0), T("R10 R11 R12"), 1.0, count_checked=True)
    with pytest.raises(GameError, match="no tiles in view"):
        read_rack(g, "Ben", T("R10 R11 R12"))
    g = read_rack(g, "Ben", T("R10 R11 R12 | K3 K9"))
    assert g.tally.racks[1] == R("K3 K9") and g.tally.read[1]


def test_penalties_and_rule_change_take_effect_next_hand():
    g = start_game(["Ann", "Ben"], find_variant("sabra"), 0.0)
    g, _ = time_out(g, T("K1 K2"), 61.0)
    assert g.seats[0].penalties == 3 and g.seats[0].rack_count == 17
    g = change_rules(g, find_variant("american"))
    assert g.options.game == "sabra" and g.pending.game == "american"
    g = table_restored(g, 62.0, ())
    g, _, _ = call_rummikub(g, (), 63.0, winner="Ben", count_checked=True)
    g = confirm_tally(g, 64.0, {"Ann": R("K1")})
    assert g.options.game == "american" and g.pending is None and g.turn.step is Step.DRAW
    assert [s.penalties for s in g.seats] == [0, 0] and [s.rack_count for s in g.seats] == [14, 14]


def test_american_discard_rule_and_trump():
    g = start_game(["Ann", "Ben"], find_variant("american"), 0.0, trump=Tile.parse("R7"))
    with pytest.raises(GameError, match="draw first"):
        end_turn(g, (), 1.0)
    g = draw(g, DrawSource.POOL)
    g, rec, _ = end_turn(g, (), 2.0, discard=Tile.parse("K3"))
    assert rec.action is Action.DISCARD and g.seats[0].discard == Tile.parse("K3")
    with pytest.raises(GameError, match="^Ben may take the previous discard from the turn after the initial meld"):
        draw(g, DrawSource.DISCARD)
    g = draw(g, DrawSource.TRUMP)
    assert g.turn.drew.tile == Tile.parse("R7") and not g.trump_up


def test_codec_round_trip():
    g = start_game(["Ann", "Ben"], find_variant("international"), 3.0, trump=Tile.parse("B4"))
    g, _, _ = end_turn(g, T("R10 R11 R12 | B13 K13 O13 R13"), 4.0, discard=Tile.parse("K1"))
    g, _, _ = call_rummikub(g, T("R10 R11 R12 | B13 K13 O13 R13"), 5.0, winner="Ann", count_checked=True)
    assert from_dict(to_dict(g)) == g


# --- random play ---------------------------------------------------------------------

RUNS = [tuple(Tile(c, n + k) for k in range(3)) for c in Color for n in range(1, 12)]


class RandomPlay(RuleBasedStateMachine):
    """Random turns, time-outs, draws and hands under one of the three flows.

    The accepted table is tracked beside the model: tiles are conserved against it,
    turn order follows the direction, the clock never runs while paused, and
    each scored hand follows its method (Sabra/American: the hand sums to zero).
    """

    @rule(game=st.sampled_from(["sabra", "american", "international"]), n=st.integers(2, 4),
          direction=st.sampled_from(["clockwise", "counterclockwise"]))
    @precondition(lambda self: self.game is None)
    def start(self, game, n, direction):
        self.options = find_variant(game, direction=direction, turn_time_limit=60)
        self.now = 0.0
        self.game = start_game([f"P{i}" for i in range(n)], self.options, self.now)
        self.table = ()

    def __init__(self):
        super().__init__()
        self.game = None

    def playing(self):
        return self.game is not None and self.game.status is Status.PLAYING and self.game.restore is None

    def discard_tile(self, table):
        """A tile the box still has beside the discard piles and ``table`` (a third K1 is refused)."""
        seen = list(self.game.discards) + [t for s in table for t in s]
        return next(t for t in ALL_FACES if seen.count(t) < 2 and t != self.game.trump)

    @rule(k=st.integers(0, len(RUNS) - 1), seconds=st.floats(0, 50))
    @precondition(lambda self: self.playing())
    def play_a_run(self, k, seconds):
        g = self.game
        if g.turn.step is Step.DRAW:
            g = draw(g, DrawSource.POOL)
        run = RUNS[k]
        on_table = [t for s in self.table for t in s]
        if any(on_table.count(t) >= 2 for t in run):
            return
        self.now += seconds
        after = self.table + (run,)
        seat = g.turn.seat
        before_count = g.seats[seat].rack_count
        discard = self.discard_tile(after) if g.options.flow.draw_then_discard else None  # 004_*: every turn discards
        if before_count < len(run) + (discard is not None):
            return  # too few tiles left for the run (and the discard)
        new, rec, verdict = end_turn(g, after, self.now, discard=discard)
        if rec is None:  # initial meld too low: the turn goes on
            assert not verdict.legal and new.turn.seat == seat
            self.game = new
            return
        assert new.seats[seat].rack_count == before_count - 3 - (discard is not None) and new.seats[seat].has_melded
        assert new.turn.seat == g.step_from(seat)
        self.game, self.table = new, after

    @rule(seconds=st.floats(0, 50))
    @precondition(lambda self: self.playing() and self.game.pool > 0)
    def draw_and_pass(self, seconds):
        g = self.game
        seat = g.turn.seat
        self.now += seconds
        if g.turn.step is Step.DRAW:
            g = draw(g, DrawSource.POOL)
            discard = self.discard_tile(self.table)
        else:
            discard = self.discard_tile(self.table) if g.turn.step is Step.MELD else None
        new, rec, _ = end_turn(g, self.table, self.now, discard=discard)
        assert rec is not None and new.turn.seat == g.step_from(seat)
        self.game = new

    @rule(source=st.sampled_from(list(DrawSource)))
    @precondition(lambda self: self.playing() and self.game.turn.step is Step.DRAW)
    def draw_and_take_it_back(self, source):
        try:
            drawn = draw(self.game, source)
        except GameError:  # an empty pool, no discard to take, the trump gone
            return
        assert undo_draw(drawn, self.table) == self.game

    @rule()
    @precondition(lambda self: self.playing())
    def run_out_of_time_on_a_bad_table(self):
        g = self.game
        if g.turn.step is Step.DRAW:
            g = draw(g, DrawSource.POOL)
        self.now = g.turn.clock.since + 61 - g.turn.clock.spent
        bad = self.table + ((Tile.parse("K1"), Tile.parse("B9")),)
        new, rec = time_out(g, bad, self.now)
        assert rec.penalty == min(3, g.pool) and new.restore is not None and new.turn.clock.paused
        assert new.turn.table_before == self.table
        self.game = new

    @rule(seen=st.booleans())
    @precondition(lambda self: self.playing() and self.game.pool > 0)
    def run_out_of_time_on_a_good_table(self, seen):
        """Sabra, seen: the clock ends the turn.  Otherwise it stops, and the turn ends as the players
        finish it: with no camera End turn says what it did, and every American turn discards."""
        g = self.game
        self.now = g.turn.clock.since + 61 - g.turn.clock.spent
        new, rec = time_out(g, self.table, self.now, seen=seen)
        if rec is not None:
            assert seen and not g.options.flow.draw_then_discard and new.turn.seat == g.step_from(g.turn.seat)
            self.game = new
            return
        assert new.turn.time_up is not None and new.turn.clock.paused and new.turn.seat == g.turn.seat
        assert new.tiles_out(self.table) == new.options.box.size and from_dict(to_dict(new)) == new
        assert time_out(new, self.table, self.now + 100) is None  # it waits, the clock stopped
        discard = self.discard_tile(self.table) if g.options.flow.draw_then_discard else None
        self.now += 1
        done, rec, _ = end_turn(new, self.table, self.now, discard=discard)
        assert rec.action is Action.TIMEOUT and done.turn.seat == g.step_from(g.turn.seat)
        self.game = done

    @rule(seconds=st.floats(0, 100))
    @precondition(lambda self: self.game is not None and self.game.restore is not None)
    def put_table_back(self, seconds):
        self.now += seconds
        left = self.game.turn.clock.remaining(self.now)
        self.game = table_restored(self.game, self.now, self.table)
        assert self.game.turn.clock.remaining(self.now) == left and not self.game.turn.clock.paused

    @rule(pool_empty=st.booleans(), numbers=st.lists(st.integers(1, 13), min_size=4, max_size=4))
    @precondition(lambda self: self.playing())
    def end_the_hand(self, pool_empty, numbers):
        g = self.game
        discard = None
        if g.options.flow.draw_then_discard:  # the winner draws first and discards last (004_*)
            if g.turn.step is Step.DRAW and not pool_empty:
                g = draw(g, DrawSource.POOL)
            if g.turn.step is Step.MELD:
                discard = self.discard_tile(self.table)
        g, rec, verdict = call_rummikub(g, self.table, self.now, pool_empty=pool_empty, discard=discard, count_checked=True)
        assert verdict.legal and (rec is not None or pool_empty)
        left = {s.name: (Tile(Color(i), numbers[i]),) for i, s in enumerate(g.seats)}  # one tile each, all distinct
        given = {n: r for n, r in left.items() if n != g.tally.winner}
        # racks drawn at random, not dealt: with the table and the discards they may hold a copy more than the box
        new = confirm_tally(g, self.now, given, count_checked=True)
        hand = new.hands[-1]
        if self.options.scoring in ("sabra", "american"):
            assert sum(hand.scores) == 0
            if hand.winner and not pool_empty:
                assert hand.scores[g.seat_of(hand.winner)] == sum(r[0].number for r in given.values())
        assert new.hand == g.hand + 1 and new.starter == g.step_from(g.starter)
        assert sum(score_sheet(new).totals.values()) == sum(sum(h.scores) for h in new.hands)
        assert undo_last_hand(new, self.now).hands == g.hands
        assert new.status is Status.DEALING and new.turn.clock.paused  # nobody's time runs while dealing
        self.game, self.table = new, ()

    @rule(seconds=st.floats(0, 500))
    @precondition(lambda self: self.game is not None and self.game.status is Status.DEALING)
    def start_the_hand(self, seconds):
        self.now += seconds
        assert time_out(self.game, (), self.now) is None
        self.game = start_hand(self.game, self.now)
        assert self.game.turn.clock.remaining(self.now) == 60 and self.game.undo is not None

    @invariant()
    def tiles_are_conserved(self):
        if self.game is not None:
            table = self.game.tally.table if self.game.tally else self.table
            assert self.game.tiles_out(table) == self.game.options.box.size

    @invariant()
    def clock_is_sane(self):
        if self.game is not None:
            c = self.game.turn.clock
            assert 0 <= c.remaining(self.now) <= 60 and c.elapsed(self.now) >= 0

    @invariant()
    def state_survives_storage(self):
        if self.game is not None:
            assert from_dict(to_dict(self.game)) == self.game


TestRandomPlay = RandomPlay.TestCase
TestRandomPlay.settings = settings(max_examples=20, stateful_step_count=20, deadline=None)


def test_pool_of_the_box_matches_the_options():
    g = start_game(list("ABCDE"), replace(find_variant("sabra"), tile_set="xp"), 0.0)
    assert g.pool == 160 - 5 * 14
