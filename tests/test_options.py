"""Rule options and named variants (rules/options.py); defaults per 004_*."""

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.options import OPTION_DOCS, VARIANTS, RuleOptions, find_variant


@pytest.mark.parametrize(
    "game, option, value, source",
    [
        ("sabra", "initial_meld", 30, "004_* leaflet: sets that total at least 30 points"),
        ("american", "initial_meld", 21, "004_* American: 21 points or more"),
        ("international", "initial_meld", 50, "004_* International: at least 50 points"),
        ("sabra", "joker_penalty", 30, "004_* leaflet: the penalty for a joker is 30 points"),
        ("sabra", "one_high", False, "004_* leaflet: 1 is always the lowest number"),
        ("american", "one_high", True, "004_* American: '1' high or low, not both"),
        ("international", "one_high", True, "004_* International: as American"),
        ("sabra", "direction", "clockwise", "004_* leaflet: play passes to the left (clockwise)"),
        ("american", "direction", "counterclockwise", "004_* American: counter-clockwise"),
        ("sabra", "turn_time_limit", 60, "004_* leaflet: 1 minute per player, per turn"),
        ("sabra", "unfinished_turn_penalty", 3, "004_* leaflet 'Incomplete Runs': draw 3 tiles"),
        ("sabra", "joker_replacement_from_table", True, "004_* leaflet: from the table or the rack"),
        ("sabra", "retrieved_joker", "new_set", "004_* leaflet: play the joker ... to make a new set"),
        ("sabra", "group_joker_needs_both_colors", False, "004_* leaflet: either of the missing colours"),
        ("sabra", "manipulate_on_initial_meld", False, "004_* leaflet: on turns after the initial meld"),
        ("official_book", "manipulate_joker_sets", False, "004_* Variations: Official Book"),
        ("official_book", "turn_time_limit", 120, "004_* Sabra: e.g. two minutes"),
        ("pressman_1987", "initial_meld", 50, "004_* Variations: 50 in Pressman 1987"),
        ("pressman_1987", "retrieved_joker", "new_set_with_two_rack_tiles", "004_* Variations 3"),
        ("dutch_sabra", "joker_penalty", 25, "004_* Variations: 25 in the Dutch edition"),
        ("lemada_2014", "retrieved_joker", "any_set", "004_* Variations 1: current Lemada"),
        ("pressman_1980", "group_joker_needs_both_colors", True, "004_* Variations: Pressman 1980"),
        ("xp", "tile_set", "xp", "004_* Contents: Rummikub XP for 5-6 players"),
        ("israeli", "scoring", "israeli", "000_* Israeli minus scoring"),
        ("sabra", "rounds", None, "004_* leaflet: the players can determine the numbers of rounds"),
        ("american", "rounds", None, "004_* American: no length given"),
        ("international", "rounds", None, "004_* International: no length given"),
        ("israeli", "rounds", "players", "000_* four rounds for four players, and five rounds for five"),
        ("sabra", "target_score", None, "003_*: a target is agreed before playing, none by default"),
    ],
)
def test_defaults_come_from_the_seed_texts(game, option, value, source):
    assert getattr(find_variant(game), option) == value, source


def test_every_option_is_documented_with_its_source():
    names = {f.name for f in dataclasses.fields(RuleOptions)}
    assert names == set(OPTION_DOCS)
    for name, doc in OPTION_DOCS.items():
        assert doc["summary"] and "_*" in doc["source"], name
    assert len(RuleOptions().describe()) == len(names)


def test_find_variant_overrides_and_spelling():
    o = find_variant("Sabra", initial_meld=50)
    assert o.initial_meld == 50 and o.game == "sabra"
    assert find_variant("official-book") == VARIANTS["official_book"]
    with pytest.raises(ValueError, match="unknown rules 'poker'"):
        find_variant("poker")
    with pytest.raises(ValueError, match="colour_blind"):
        find_variant("sabra", colour_blind=True)


@pytest.mark.parametrize(
    "bad, name",
    [
        ({"retrieved_joker": "never"}, "retrieved_joker"),
        ({"direction": "sideways"}, "direction"),
        ({"initial_meld": -1}, "initial_meld"),
        ({"one_high": "yes"}, "one_high"),
        ({"turn_time_limit": 0}, "turn_time_limit"),
        ({"tile_set": "mini"}, "tile_set"),
        ({"speed": 3}, "speed"),
        ({"rounds": 0}, "bad value 0 for rule option rounds"),
        ({"rounds": "4"}, "bad value '4' for rule option rounds"),
        ({"rounds": "all"}, r"bad value 'all' for rule option rounds \(allowed: a whole number from 1 to 100, "
                            r"'players' or null\)"),
        ({"rounds": ["players"]}, "bad value \\['players'\\] for rule option rounds"),
        ({"target_score": True}, "bad value True for rule option target_score"),
        ({"variant": "israeli", "target_score": 200}, "bad value 200 for rule option target_score with israeli"),
    ],
)
def test_from_dict_names_bad_keys_and_values(bad, name):
    with pytest.raises(ValueError, match=name):
        RuleOptions.from_dict(bad)


def test_from_dict_variant_base():
    o = RuleOptions.from_dict({"variant": "american", "joker_penalty": 25})
    assert (o.game, o.initial_meld, o.joker_penalty) == ("american", 21, 25)
    assert RuleOptions.from_dict({"game": "international"}).initial_meld == 50


@given(st.sampled_from(sorted(VARIANTS)))
def test_to_dict_round_trip(name):
    o = VARIANTS[name]
    assert RuleOptions.from_dict(o.to_dict()) == o
    assert hash(o) == hash(RuleOptions.from_dict(o.to_dict()))


def test_xp_box_has_four_jokers():
    assert find_variant("xp").max_jokers == 4 and find_variant("sabra").max_jokers == 2


def test_docs_table_names_every_option_and_variant():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for name in OPTION_DOCS:
        assert f"| `{name}` |" in doc, name
    for name in VARIANTS:
        assert f"| `{name}` |" in doc, name


# No silent Sabra: every judgement names the rules in force (a missing or None rule set is an error).
def _judgements():
    from rules.scoring import ScoreSheet, rack_value, score_hand
    from rules.sets import analyse_set, is_valid_set, suggest_missing
    from rules.solver import arrange, solve, suggest_rearrangement
    from rules.tiles import parse_table, parse_tiles
    from rules.turns import validate_turn

    t = parse_tiles("R1 R2 R3")
    return {
        "analyse_set": lambda o: analyse_set(t, o),
        "is_valid_set": lambda o: is_valid_set(t, o),
        "suggest_missing": lambda o: suggest_missing([*t[:2], None], o),
        "validate_turn": lambda o: validate_turn([], [t], t, has_melded=True, options=o),
        "solve": lambda o: solve([], t, options=o),
        "arrange": lambda o: arrange(t, o),
        "suggest_rearrangement": lambda o: suggest_rearrangement(parse_table("R1 R2 R3"), [t], o),
        "rack_value": lambda o: rack_value(t, o),
        "score_hand": lambda o: score_hand({"A": [], "B": t}, options=o),
        "ScoreSheet": lambda o: ScoreSheet(["A", "B"], o),
    }


@pytest.mark.parametrize("name", sorted(_judgements()))
def test_every_judgement_needs_the_rules_in_force(name):
    call = _judgements()[name]
    call(find_variant("american"))  # works with rules given
    with pytest.raises(TypeError, match="rules in force"):
        call(None)


@pytest.mark.parametrize("name, low, high", [
    ("initial_meld", 0, 200),
    ("joker_penalty", 0, 100),
    ("turn_time_limit", 5, 3600),
    ("unfinished_turn_penalty", 0, 10),
    ("trump_bonus", 0, 500),
    ("rounds", 1, 100),
    ("target_score", 1, 100000),
])
def test_every_number_option_has_a_range_named_in_its_refusal(name, low, high):
    sabra = find_variant("sabra")
    assert getattr(sabra.replace(**{name: low}), name) == low
    assert getattr(sabra.replace(**{name: high}), name) == high
    for bad in (low - 1, high + 1, 10**30):
        with pytest.raises(ValueError, match=f"{name}.*from {low} to {high}"):
            sabra.replace(**{name: bad})


def test_game_length_on_the_command_line():
    """``--option rounds=4`` plays four rounds; ``off`` (or none, null) leaves the game open-ended."""
    from rules.options import parse_override

    assert parse_override("rounds=4") == ("rounds", 4)
    assert parse_override("rounds=off") == ("rounds", None) == parse_override("rounds=null")
    assert parse_override("target-score=250") == ("target_score", 250)
    assert find_variant("israeli", **dict([parse_override("rounds=5")])).rounds == 5
    assert parse_override("rounds=players") == ("rounds", "players") == parse_override("rounds=Players")
    with pytest.raises(ValueError, match="rule option rounds is a whole number or players, not 'all'"):
        parse_override("rounds=all")
    with pytest.raises(ValueError, match="rule option target_score is a whole number, not 'players'"):
        parse_override("target_score=players")
