"""Scoring a hand and keeping the sheet (rules/scoring.py): Sabra, American, Israeli, International."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.options import find_variant
from rules.scoring import HandResult, ScoreSheet, rack_value, score_hand
from rules.tiles import ALL_FACES, RuleError, parse_tiles

P = parse_tiles
SABRA = find_variant("sabra")
PLAYERS = ["Player A", "Player B", "Player C", "Player D"]
# racks left at the end of the three games of the leaflet's sample table (004_*)
SAMPLE_GAMES = [
    {"Player A": "", "Player B": "R5", "Player C": "K10 B6", "Player D": "O3"},
    {"Player A": "B6", "Player B": "K11", "Player C": "", "Player D": "R2 R3"},
    {"Player A": "J R2", "Player B": "O13", "Player C": "B2", "Player D": ""},
]
SAMPLE_TEXT = """\
Game 1\t+ 24\t- 5\t- 16\t- 3
Game 2\t- 6\t- 11\t+ 22\t- 5
Game 3\t- 32\t- 13\t- 2\t+ 47
Total Round's\t- 14\t- 29\t+ 4\t+ 39"""


def sample_sheet():
    sheet = ScoreSheet(PLAYERS, SABRA)
    for game in SAMPLE_GAMES:
        sheet.score({p: P(r) for p, r in game.items()})
    return sheet


def test_sample_score_table_comes_out_exactly():
    sheet = sample_sheet()
    assert sheet.to_text().splitlines()[1:] == SAMPLE_TEXT.splitlines()
    assert sheet.totals == {"Player A": -14, "Player B": -29, "Player C": 4, "Player D": 39}


def test_sample_score_table_matches_the_seed_text(seeds_dir):
    # the leaflet's table, with the stray '1' column of the extracted text left out
    text = next(seeds_dir.glob("004_*")).read_text(encoding="utf-8")
    start = text.index("Sample score table:")
    rows = text[start:].splitlines()[1:5]
    seed = ["\t".join(c for i, c in enumerate(r.split("\t")) if i != 3) for r in rows]
    assert sample_sheet().to_text().splitlines()[1:] == seed
    header = text[start:].splitlines()[0].split("\t")
    assert [h for h in header[1:] if h.startswith("Player")] == PLAYERS


def test_sheet_games_rounds_and_winner():
    sheet = sample_sheet()
    assert sheet.games_won == {"Player A": 1, "Player B": 0, "Player C": 1, "Player D": 1}
    assert sheet.games_per_round == 4 and sheet.rounds == 0  # 3 of the 4 games of a round
    # 004_* 'Winning': most games won, ties broken by the highest score
    assert sheet.overall_winner == "Player D"
    sheet.score({"Player A": P(""), "Player B": P("R1"), "Player C": P("R1"), "Player D": P("K1")})
    assert sheet.rounds == 1 and sheet.round_of(5) == 2


@pytest.mark.parametrize("rules", ["sabra", "american"])
def test_a_game_to_a_target_score_is_won_by_the_score(rules):
    """003_*: "determine how many total points to reach ... Whichever player has the highest score at the
    end of the game wins": Ann, who reached 40, wins though Ben won two hands to her one (without a target
    the leaflet's rule stands: most hands won)."""
    hands = [{"Ann": "K1", "Ben": ""}, {"Ann": "K1", "Ben": ""}, {"Ann": "", "Ben": "K13 K12 K11 O6"}]

    def sheet(**length):
        s = ScoreSheet(["Ann", "Ben"], find_variant(rules, **length))
        for h in hands:
            s.score({p: P(r) for p, r in h.items()})
        return s

    to_40 = sheet(target_score=40)
    assert to_40.totals == {"Ann": 40, "Ben": -40} and to_40.games_won == {"Ann": 1, "Ben": 2}
    assert to_40.overall_winner == "Ann" and to_40.ranking() == {"Ann": (40,), "Ben": (-40,)}
    assert sheet(target_score=40, rounds=3).overall_winner == "Ann"  # a target agreed: points decide
    assert sheet().overall_winner == "Ben" and sheet(rounds=2).overall_winner == "Ben"


def test_sheet_round_trip_and_rows():
    sheet = sample_sheet()
    again = ScoreSheet.from_dict(sheet.to_dict())
    assert again.to_text() == sheet.to_text() and again.games_won == sheet.games_won
    rows = sheet.to_rows()
    assert rows[0] == ["", *PLAYERS] and rows[1] == ["Game 1", 24, -5, -16, -3] and rows[-1][0] == "Total"


def test_sheet_rejects_strangers():
    with pytest.raises(RuleError, match="Zed"):
        sample_sheet().add_hand(HandResult("Zed", {"Zed": 5, "Player A": -5}))


class TestSabra:
    def test_winner_takes_the_losers_racks(self):
        r = score_hand({"Ann": P(""), "Bob": P("R5 J")}, options=SABRA)
        assert (r.winner, r.scores) == ("Ann", {"Ann": 35, "Bob": -35})

    def test_joker_twenty_five(self):
        # 004_* 'Variations': some count a joker 25 (Dutch edition)
        r = score_hand({"Ann": P(""), "Bob": P("R5 J")}, options=find_variant("sabra", joker_penalty=25))
        assert r.scores == {"Ann": 30, "Bob": -30}

    def test_pool_exhausted_lowest_rack_wins_the_differences(self):
        # 004_* leaflet: lowest wins; each other loses the difference; the winner gains the sum
        r = score_hand({"A": P("R2 R3"), "B": P("K10"), "C": P("B7 B8")}, pool_empty=True, options=SABRA)
        assert r.winner == "A" and r.scores == {"A": 15, "B": -5, "C": -10}

    def test_pool_exhausted_tie_shares(self):
        r = score_hand({"A": P("R5"), "B": P("K5"), "C": P("B9")}, pool_empty=True, options=SABRA)
        assert r.winner is None and r.scores == {"A": 2, "B": 2, "C": -4}

    @pytest.mark.parametrize("racks", [{"A": P("R1"), "B": P("R2")}, {"A": P(""), "B": P("")}])
    def test_bad_hands(self, racks):
        with pytest.raises(RuleError):
            score_hand(racks, options=SABRA)

    def test_american_scores_like_sabra(self):
        # 004_* American: a joker 30, '1' tiles 1 point, scores add up to zero
        r = score_hand({"A": P(""), "B": P("J R1"), "C": P("K13")}, options=find_variant("american"))
        assert r.scores == {"A": 44, "B": -31, "C": -13} and r.method == "american"
        r = score_hand({"A": P(""), "B": P("R1")}, options=find_variant("american"), trump="R7", discard="K4")
        assert r.details == {"trump": "R7", "discard": "K4"}


racks = st.dictionaries(
    st.sampled_from(["A", "B", "C", "D"]), st.lists(st.sampled_from(ALL_FACES), max_size=10),
    min_size=2, max_size=4,
)


@settings(max_examples=100, deadline=None)
@given(racks, st.booleans())
def test_sabra_hand_sums_to_zero(hand, pool_empty):
    if find_variant("sabra").box.excess(t for r in hand.values() for t in r):
        with pytest.raises(RuleError):
            score_hand(hand, pool_empty=pool_empty, options=SABRA)
        return
    empties = [p for p, r in hand.items() if not r]
    if len(empties) > 1 or (not empties and not pool_empty):
        with pytest.raises(RuleError):
            score_hand(hand, pool_empty=pool_empty, options=SABRA)
        return
    r = score_hand(hand, pool_empty=pool_empty, options=SABRA)
    assert sum(r.scores.values()) == 0
    if r.winner is not None:
        assert r.scores[r.winner] == max(r.scores.values())


@pytest.mark.parametrize("racks, options, message, source", [
    ({"A": [], "B": P("R5 R5 R5 R5 J J J")}, "sabra", "4 x R5, 3 x J",
     "004_* leaflet 'Contents': 106 tiles, two of each number and colour, 2 jokers"),
    ({"A": [], "B": P("R5 R5"), "C": P("R5")}, "sabra", "3 x R5", "004_*: 'Each combination ... represented twice'"),
    ({"A": [], "B": P("R5 R5 R5 J J J J J")}, "xp", "5 x J", "004_* leaflet: XP 160 tiles, 4 jokers"),
])
def test_racks_the_box_cannot_hold_are_refused(racks, options, message, source):
    with pytest.raises(RuleError, match=message):
        score_hand(racks, options=find_variant(options))


def test_xp_box_holds_three_of_each():
    r = score_hand({"A": [], "B": P("R5 R5"), "C": P("R5 J J J")}, options=find_variant("xp"))
    assert r.scores["A"] == 10 + 5 + 90


class TestIsraeli:
    # 000_*: minus scoring
    def test_winner_minus_100_others_plus_rack_or_100(self):
        r = score_hand({"A": P(""), "B": P("R5 R6"), "C": P("K9")}, options=find_variant("israeli"), melded={"C": False})
        assert r.scores == {"A": -100, "B": 11, "C": 100}

    def test_only_the_winner_melded_minus_200(self):
        r = score_hand({"A": P(""), "B": P("R5"), "C": P("K9")}, options=find_variant("israeli"),
                       melded={"B": False, "C": False})
        assert r.scores == {"A": -200, "B": 100, "C": 100}

    def test_pool_used_up(self):
        r = score_hand({"A": P("R1"), "B": P("R5"), "C": P("K9")}, options=find_variant("israeli"),
                       melded={"C": False}, pool_empty=True)
        assert r.winner is None and r.scores == {"A": 1, "B": 5, "C": 100}

    def test_primary_and_final_scores(self):
        sheet = ScoreSheet(["A", "B", "C"], find_variant("israeli"))
        sheet.add_hand(HandResult("A", {"A": -100, "B": 20, "C": 100}))
        sheet.add_hand(HandResult("B", {"A": 35, "B": -200, "C": 100}))
        primary, final = sheet.israeli_scores()
        assert sheet.totals == {"A": -65, "B": -180, "C": 200}
        assert min(primary.values()) >= 0 and primary == {"A": 115, "B": 0, "C": 380}
        # final = sum of primaries - players * primary
        assert final == {"A": 150, "B": 495, "C": -645}
        assert sum(final.values()) == 0 and sheet.overall_winner == "B"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-200, 300), st.integers(-200, 300), st.integers(-200, 300),
                          st.integers(-200, 300)), min_size=1, max_size=8))
def test_israeli_finals_sum_to_zero(hands):
    sheet = ScoreSheet(["A", "B", "C", "D"], find_variant("israeli"))
    for h in hands:
        sheet.add_hand(HandResult(None, dict(zip("ABCD", h))))
    primary, final = sheet.israeli_scores()
    assert sum(final.values()) == 0 and min(primary.values()) >= 0
    best = min(sheet.totals.values())
    assert all(final[p] == max(final.values()) for p, t in sheet.totals.items() if t == best)


class TestInternational:
    OPTIONS = find_variant("international")

    def score(self, racks, **kw):
        return score_hand({p: P(r) for p, r in racks.items()}, options=self.OPTIONS, **kw)

    def test_rack_values_ten_for_high_and_one(self):
        # 004_*: 2-9 face value, 10, 11, 12, 13 and 1 count 10
        assert rack_value(P("R1 R2 R9 R10 K13"), self.OPTIONS) == 41
        assert rack_value(P("R1 R2 R9 R10 K13"), SABRA) == 35

    def test_open_win(self):
        r = self.score({"A": "", "B": "R1 R5", "C": "K9"}, melded={"C": False})
        assert r.scores == {"A": 100, "B": -15, "C": -100} and r.details["win"] == "open"

    def test_open_win_nobody_else_melded(self):
        r = self.score({"A": "", "B": "R5", "C": "K9"}, melded={"B": False, "C": False})
        assert r.scores["A"] == 200

    def test_foot_and_joker_discard_doubles(self):
        r = self.score({"A": "", "B": "R12"}, win="foot", joker_discard=True)
        assert r.scores == {"A": 400, "B": -20}

    def test_closed_hand_from_tiles_non_melders_lose_the_same(self):
        hand = "R1 R2 R3 R4 R5 R6 R7 R1 R2 R3 R4 R5 R6 R7"  # little wave, single colour
        # (B holds O5: the hand has both red 5s, and a third would not come out of the box)
        r = self.score({"A": "", "B": "O5", "C": "K9 K10"}, melded={"C": False}, hand=P(hand))
        assert r.scores == {"A": 2600, "B": -5, "C": -2600}
        assert r.details["closed_hand"]["name"] == "Little wave single colour"

    def test_closed_hand_by_type_and_jokers(self):
        r = self.score({"A": "", "B": "R5"}, hand_type="Royal", jokers=1)
        assert r.scores == {"A": 2200, "B": -5}

    def test_no_winner_non_melders_lose_100(self):
        r = self.score({"A": "R2", "B": "K9"}, melded={"B": False}, pool_empty=True)
        assert r.winner is None and r.scores == {"A": -2, "B": -100}

    def test_trump_bonus(self):
        opts = find_variant("international", trump_bonus=50)
        r = score_hand({"A": P(""), "B": P("R5")}, options=opts, trump_holders=["B"])
        assert r.scores == {"A": 100, "B": 45}

    def test_bad_details(self):
        with pytest.raises(RuleError, match="hand types"):
            self.score({"A": "", "B": "R5"}, hand=P("R1 K3 B5 O7 R9 K11 B13 O2 R4 K6 B8 O10 R12 K13"))
        with pytest.raises(RuleError, match="colour"):
            self.score({"A": "", "B": "R5"}, colour="red")

    def test_sheet_settlement(self):
        sheet = ScoreSheet(["A", "B", "C"], options=self.OPTIONS)
        sheet.add_hand(HandResult("A", {"A": 100, "B": -15, "C": -100}))
        s = sheet.summary()["settlement"]
        assert s["net"] == {"A": 315, "B": -30, "C": -285}  # n * score - sum of scores
        assert {"from": "C", "to": "A", "amount": 200} in s["payments"]
