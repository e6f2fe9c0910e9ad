"""How long a game is (rules.game_length): rounds agreed or a target score, the game finishing itself.

004_* leaflet: a round is one game (hand) per player and "the players can determine the numbers of
rounds"; 000_* Israeli: "A normal game consists of four rounds"; 003_*: "determine how many total
points to reach to signify the end of the game".
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.game_codec import from_dict, to_dict
from rules.game_deal import start_hand
from rules.game_length import LENGTH, over, standing
from rules.game_state import DrawSource, GameError, Status
from rules.game_tally import call_rummikub, confirm_tally, finish_game, score_sheet, undo_last_hand
from rules.game_turns import change_rules, draw, start_game
from rules.options import find_variant
from rules.tiles import Tile, parse_tiles


def R(text: str):
    return tuple(parse_tiles(text))


def hand(g, now: float, racks: dict | None = None, winner: str | None = None):
    """The hand on the table is started if it waits, the player whose turn it is (or ``winner``) goes out
    at once and the others hold ``racks`` (K5 each unless named): the hand is scored at ``now + 1``."""
    if g.status is Status.DEALING:
        g = start_hand(g, now)
    extra = {}
    if g.options.flow.draw_then_discard:  # American family: draw, then go out with the final discard
        g = draw(g, DrawSource.POOL)
        extra = {"discard": Tile.parse("K1")}
    g, _, _ = call_rummikub(g, (), now, count_checked=True, winner=winner, **extra)
    winner = g.tally.winner
    return confirm_tally(g, now + 1, {n: R((racks or {}).get(n, "K5")) for n in g.names if n != winner})


def play(options, hands: int, names=("Ann", "Ben", "Cid")):
    g = start_game(list(names), options, 0.0)
    for i in range(hands):
        g = hand(g, 10.0 * i + 1)
    return g


def test_an_open_ended_game_goes_on_until_the_players_finish_it():
    g = play(find_variant("sabra"), 12, names=("Ann", "Ben"))
    assert g.status is Status.DEALING and g.hand == 13 and not over(g)
    assert standing(g).rounds is None and not standing(g).last


def test_the_game_finishes_itself_after_the_last_hand_of_the_last_round_as_finish_would():
    """Two rounds of three players: six hands; the sixth, once scored, ends the game with its standings,
    the same game "Finish the game" right after it gives, except that the hand can still be taken back."""
    two_rounds = find_variant("sabra", rounds=2)
    g = start_game(["Ann", "Ben", "Cid"], two_rounds, 0.0)
    seen = [(standing(g).round, standing(g).hand_in_round, standing(g).last)]
    for i in range(5):
        g = hand(g, 10.0 * i + 1)
        assert g.status is Status.DEALING
        seen.append((standing(g).round, standing(g).hand_in_round, standing(g).last))
    assert seen == [(1, 1, False), (1, 2, False), (1, 3, False), (2, 1, False), (2, 2, False), (2, 3, True)]
    done = hand(g, 100.0, {"Ben": "K13"})
    assert done.status is Status.FINISHED and len(done.hands) == 6 and done.turn.clock.paused
    assert done.undo is not None and done.undo.status is Status.TALLY
    assert standing(done).hand == 6 and standing(done).round == 2
    assert score_sheet(done).overall_winner is not None
    open_ended = play(find_variant("sabra"), 5)
    by_hand = finish_game(hand(open_ended, 100.0, {"Ben": "K13"}), 101.0)
    assert replace(done, undo=None, options=by_hand.options) == by_hand
    assert from_dict(to_dict(done)) == done  # kept as finished, its last hand still undoable, after a restart
    with pytest.raises(GameError, match="finished"):
        finish_game(done, 102.0)


def test_taking_back_the_last_hand_reopens_the_game():
    done = play(find_variant("sabra", rounds=1), 3)
    assert done.status is Status.FINISHED
    back = undo_last_hand(done, 200.0)
    assert back.status is Status.TALLY and len(back.hands) == 2 and back.hand == 3
    assert back.tally.racks == done.undo.tally.racks and back.turn.clock.paused
    assert from_dict(to_dict(back)) == back
    # counted again with other racks: the game finishes again, the sheet holding the new scores
    again = confirm_tally(back, 201.0, {n: R("R9") for n in back.names if n != back.tally.winner})
    assert again.status is Status.FINISHED and len(again.hands) == 3 and again.hands[-1].scores != done.hands[-1].scores
    # a game the players finished themselves cannot be taken back, as before
    with pytest.raises(GameError, match="the game is finished"):
        undo_last_hand(finish_game(play(find_variant("sabra", rounds=2), 2), 300.0), 301.0)


def test_a_target_score_ends_the_game_once_a_total_reaches_it():
    g = start_game(["Ann", "Ben"], find_variant("sabra", target_score=20), 0.0)
    assert standing(g).target == 20
    g = hand(g, 1.0, {"Ben": "K13"})  # Ann +13
    g = hand(g, 11.0, {"Ann": "K1"})  # Ben +1, Ann 12
    assert g.status is Status.DEALING and score_sheet(g).totals == {"Ann": 12, "Ben": -12}
    g = hand(g, 21.0, {"Ben": "K8"})  # Ann 20: reached
    assert g.status is Status.FINISHED and score_sheet(g).totals["Ann"] == 20 and g.undo is not None


@pytest.mark.parametrize("rules", ["sabra", "american"])
def test_a_game_ended_by_its_target_is_won_by_the_player_who_reached_it(rules):
    """The game ends because Ann's total reached the target; it used to name Ben the winner, who had won more
    hands (the leaflet's rule for rounds), though 003_* says the highest score wins a game played to points."""
    g = start_game(["Ann", "Ben"], find_variant(rules, target_score=40), 0.0)
    for t in (1.0, 11.0):  # Ben goes out twice, Ann holding a K1 each time: Ben 2, Ann -2
        g = hand(g, t, {"Ann": "K1"}, winner="Ben")
    assert g.status is Status.DEALING and score_sheet(g).games_won == {"Ann": 0, "Ben": 2}
    g = hand(g, 21.0, {"Ben": "K13 K12 K11 K10 O6"}, winner="Ann")  # Ann goes out: 52 - 2, past 40
    sheet = score_sheet(g)
    assert g.status is Status.FINISHED and sheet.totals == {"Ann": 50, "Ben": -50}
    assert sheet.games_won == {"Ann": 1, "Ben": 2} and sheet.overall_winner == "Ann"


@pytest.mark.parametrize("names, box", [(("Ann", "Ben"), "standard"), (("Ann", "Ben", "Cid", "Dan"), "standard"),
                                        (("Ann", "Ben", "Cid", "Dan", "Eve"), "xp")])
def test_israeli_plays_as_many_rounds_as_players(names, box):
    """000_*: "A normal game consists of four rounds (16 hands) for four players, and five rounds (20 hands)
    for five players": two players play two rounds, five players five; it used to be four whatever the count."""
    n = len(names)
    racks = {name: f"K{5 + i}" for i, name in enumerate(names)}  # a tile each, within the box
    g = start_game(list(names), find_variant("israeli", tile_set=box), 0.0)
    for i in range(n * n - 1):
        g = hand(g, 10.0 * i + 1, racks)
    w = standing(g)
    assert g.status is Status.DEALING and w.last and (w.round, w.rounds, w.per_player) == (n, n, True)
    assert hand(g, 500.0, racks).status is Status.FINISHED


def test_a_number_of_rounds_still_works_with_the_israeli_rules():
    g = play(find_variant("israeli", rounds=4), 7, names=("Ann", "Ben"))
    assert g.status is Status.DEALING and standing(g).last and standing(g).rounds == 4
    assert not standing(g).per_player and hand(g, 500.0).status is Status.FINISHED


def test_a_changed_length_counts_at_once():
    """The length decides only whether another hand is dealt, so a change of it does not wait for the
    next hand: shortening it to a length already reached ends the game when the hand in play is scored."""
    g = start_hand(play(find_variant("sabra"), 2, names=("Ann", "Ben")), 30.0)  # hand 3
    shorter = change_rules(g, g.options.replace(rounds=1))
    assert shorter.pending is None and shorter.options.rounds == 1 and standing(shorter).last
    assert hand(shorter, 40.0).status is Status.FINISHED
    # extended in the last hand: it goes on
    g = start_hand(play(find_variant("sabra", rounds=1), 1, names=("Ann", "Ben")), 30.0)  # hand 2 of 2
    longer = change_rules(g, g.options.replace(rounds=2))
    nxt = hand(longer, 40.0)
    assert nxt.status is Status.DEALING and standing(nxt).round == 2
    # with other rules: those wait for the next hand, the length does not
    both = change_rules(g, g.options.replace(rounds=2, initial_meld=50))
    assert both.options.rounds == 2 and both.options.initial_meld == 30 and both.pending.initial_meld == 50
    # and "Take back this hand" reopens the tally with the new length
    dealing = play(find_variant("sabra", rounds=2), 2, names=("Ann", "Ben"))
    cut = change_rules(dealing, dealing.options.replace(rounds=1))
    back = undo_last_hand(cut, 50.0)
    assert back.options.rounds == 1
    assert confirm_tally(back, 51.0, {n: R("K5") for n in back.names if n != back.tally.winner}).status \
        is Status.FINISHED


def test_a_game_stored_before_lengths_existed_still_loads_open_ended():
    for rules in ("sabra", "israeli"):
        g = play(find_variant(rules), 2, names=("Ann", "Ben"))
        doc = to_dict(g)
        for d in (doc, doc["undo"]):
            for name in LENGTH:
                del d["options"][name]
        old = from_dict(doc)
        assert old.options.rounds is None and old.options.target_score is None
        assert old.options.scoring == rules and old.undo.options.rounds is None
        assert hand(old, 100.0).status is Status.DEALING
