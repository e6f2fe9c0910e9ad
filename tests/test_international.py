"""International closed hands and settlement (rules/international.py), from 004_* 'International'."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.international import (
    HAND_TYPES, classify_closed_hand, hand_type, matching_types, settlement, splits,
)
from rules.tiles import RuleError, parse_tiles

P = parse_tiles


def test_forty_types_with_three_point_columns():
    assert [h.number for h in HAND_TYPES] == list(range(1, 41))
    assert all(len(h.points) == 3 and h.points[0] > h.points[1] > h.points[2] for h in HAND_TYPES)


def test_points_match_the_seed_table(seeds_dir):
    text = next(seeds_dir.glob("004_*")).read_text(encoding="utf-8")
    rows = re.findall(r"^(\d+)\. (.+?)\t(\d+)\t(\d+)\t(\d+)\s*$", text, flags=re.M)
    assert len(rows) == 40
    for number, line, p0, p1, p2 in rows:
        h = HAND_TYPES[int(number) - 1]
        assert h.points == (int(p0), int(p1), int(p2)), line
        assert line.lower().startswith(h.name.lower()), line


# (14 tiles, expected best type, seed line)
HANDS = [
    ("R1 R2 R3 K5 B5 O5 K10 K11 K12 K13 B7 B8 B9 B10", 1, "1. Basic"),
    ("R1 R2 R3 K5 B5 O5 K6 K7 K8 K9 B7 B8 B9 B6", 2, "2. Hand minor"),
    ("R1 K1 B1 O1 R2 K2 B2 O2 R3 K3 B3 R9 K9 B9", 4, "4. Minor 51 groups beats 26. Sticks minor"),
    ("R1 R2 R3 K1 K2 K3 B1 B2 B3 O1 O2 O3 O4 O5", 8, "8. Piccolo 41 runs, worth as much as 5. Minor 51 runs"),
    ("R1 R2 R3 K1 B1 O1 K2 B2 O2 R4 K4 B4 O4 R5", 7, "7. Piccolo 41 sets"),
    ("R1 K3 B5 O7 R2 K2 B2 O2 R3 K4 B4 O4 R1 K1", 6, "6. Piccolo 41 odd"),
    ("R10 K11 B12 O13 R1 K10 B11 O12 R13 K1 B10 O11 R12 K13", 10, "10. Grand odd"),
    ("R10 R11 R12 K10 K11 K12 B10 B11 B12 O10 O11 O12 O13 O1", 11, "11. Grand sets"),
    ("R5 R5 K5 K5 B5 B5 O5 O5 R1 K9 B3 O12 R7 K2", 12, "12. Grand square"),
    ("R2 R3 R4 K5 K6 K7 K8 B9 B10 B11 O3 O4 O5 O6", 13, "13. Four colours"),
    ("R5 R6 R7 R8 R9 K10 K11 K12 K13 B2 B3 B4 B5 B6", 16, "16. Three colours"),
    ("R5 R6 R7 R8 R9 K9 K10 K11 K12 K13 R10 R11 R12 R13", 19, "19. Two colours"),
    ("R1 R1 R3 R5 R5 R7 R9 R9 R11 R13 R13 R2 R6 R10", 22, "22. Single colour odd"),
    ("R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1 R6", 23, "23. Single colour runs: 2-6 and 6-13-1"),
    ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1", 24, "24. Royal"),
    ("R1 K1 B1 O1 R13 K13 B13 R12 K12 B12 O12 R11 K11 B11", 27, "27. Sticks major, worth as much as 11. Grand sets"),
    ("R1 B2 R3 B4 R5 B6 R7 B8 R9 B10 R11 B12 R13 B1", 28, "28. Mosaic"),
    ("R1 B2 R3 B4 R5 B6 R7 K1 O2 K3 O4 K5 O6 K7", 29, "29. Little wave"),
    ("R8 B9 R10 B11 R12 B13 R1 K8 O9 K10 O11 K12 O13 K1", 30, "30. Big wave"),
    ("R1 R2 R3 R4 R5 R6 R7 R1 R2 R3 R4 R5 R6 R7", 31, "31. Little wave single colour"),
    ("B8 B9 B10 B11 B12 B13 B1 B8 B9 B10 B11 B12 B13 B1", 32, "32. Big wave single colour"),
    ("R8 R9 R10 R11 R12 R13 R1 K8 K9 K10 K11 K12 K13 K1", 34, "34. Big wave two colours"),
    ("R1 R1 K12 K12 B3 B3 O4 O4 R5 R5 R9 R9 K9 K9", 35, "35. Seven pairs"),
    ("R1 R1 K2 K2 B3 B3 O4 O4 R5 R5 R9 R9 K9 K9", 36, "36. Seven pairs minor"),
    ("R1 R1 K12 K12 B13 B13 O10 O10 R11 R11 R10 R10 K13 K13", 37, "37. Seven pairs major"),
    ("R1 R1 R3 R3 R4 R4 R6 R6 R8 R8 R11 R11 R13 R13", 38, "38. Seven pairs single colour"),
]


@pytest.mark.parametrize("tiles, number, source", HANDS)
def test_most_valuable_type(tiles, number, source):
    found = classify_closed_hand(P(tiles))
    assert found is not None and found.type.number == number, (source, found)
    assert found.points == HAND_TYPES[number - 1].points[0]


def test_jokers_change_the_points_column():
    no = classify_closed_hand(P("R1 R2 R3 K5 B5 O5 K10 K11 K12 K13 B7 B8 B9 B10"))
    one = classify_closed_hand(P("R1 J R3 K5 B5 O5 K10 K11 K12 K13 B7 B8 B9 B10"))
    two = classify_closed_hand(P("R1 J R3 K5 B5 O5 K10 K11 J K13 B7 B8 B9 B10"))
    assert (no.points, one.points, two.points) == (500, 400, 300)
    assert classify_closed_hand(P("R1 R2 R3 R4 R5 J R7 R8 R9 R10 R11 R12 R13 R1")).points == 2200


def test_blitz_needs_the_turn_to_be_known():
    tiles = P("R1 R2 R3 K5 B5 O5 K10 K11 K12 K13 B7 B8 B9 B10")
    assert classify_closed_hand(tiles, first_turn=True).type.name == "Little Blitz"
    assert classify_closed_hand(tiles, original_hand=True).type.name == "Grand Blitz"


def test_one_high_or_low_but_not_both_in_a_set():
    # 13-1-2 is never a run, so no split exists; 12-13-1 and 1-2-3 do
    assert not splits(P("R13 R1 R2"))
    assert splits(P("R12 R13 R1")) and splits(P("R1 R2 R3"))


def test_matching_types_lists_every_type():
    numbers = [h.number for h, _ in matching_types(P("R1 R2 R3 R4 R5 R6 R7 R1 R2 R3 R4 R5 R6 R7"))]
    assert {1, 2, 22, 23, 31, 35, 36, 38} <= set(numbers)


def test_junk_is_no_closed_hand():
    assert classify_closed_hand(P("R1 K3 B5 O7 R9 K11 B13 O2 R4 K6 B8 O10 R12 K13")) is None


@pytest.mark.parametrize("tiles", ["R1 R2 R3", "J J J R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11"])
def test_bad_hands(tiles):
    with pytest.raises(RuleError):
        classify_closed_hand(P(tiles))


def test_hand_type_lookup():
    assert hand_type(24).name == "Royal" and hand_type("royal").number == 24 and hand_type("40").number == 40
    with pytest.raises(RuleError):
        hand_type(41)
    with pytest.raises(RuleError):
        hand_type("Full house")


def test_settlement_pairs_pay_the_difference():
    # 004_*: each player pays each other player in proportion to the difference of their scores
    pays, net = settlement({"A": 300, "B": 100, "C": -50})
    assert {(p.payer, p.payee, p.amount) for p in pays} == {("B", "A", 200), ("C", "A", 350), ("C", "B", 150)}
    assert net == {"A": 550, "B": -50, "C": -500}
    _, half = settlement({"A": 300, "B": 100, "C": -50}, rate=2)
    assert half["A"] == 1100


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text("ABCDEF", min_size=1, max_size=2), st.integers(-3000, 3000), min_size=2, max_size=6))
def test_settlement_sums_to_zero(scores):
    pays, net = settlement(scores)
    assert sum(net.values()) == 0
    n, total = len(scores), sum(scores.values())
    assert net == {p: n * s - total for p, s in scores.items()}
    assert all(p.amount > 0 for p in pays)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_fourteen_tiles_laid_as_sets_is_a_closed_hand(data):
    from collections import Counter

    from rules.tiles import JOKER, Color, Tile

    sizes = data.draw(st.sampled_from([(3, 3, 4, 4), (3, 3, 3, 5), (4, 5, 5), (7, 7)]))
    tiles = []
    for size in sizes:
        if size <= 4 and data.draw(st.booleans()):
            n = data.draw(st.integers(1, 13))
            tiles += [Tile(c, n) for c in data.draw(st.permutations(list(Color)))[:size]]
        else:
            c = data.draw(st.sampled_from(list(Color)))
            start = data.draw(st.integers(1, 14 - size))
            tiles += [Tile(c, k) for k in range(start, start + size)]
    if max(Counter(tiles).values()) > 2:
        return  # more copies than the box holds
    for _ in range(data.draw(st.integers(0, 2))):
        tiles[data.draw(st.integers(0, 13))] = JOKER
    jokers = tiles.count(JOKER)
    found = classify_closed_hand(tiles)
    assert found is not None and found.jokers == jokers
    assert found.points >= HAND_TYPES[0].points[jokers]  # at least a Basic hand
    for split in splits(tiles):
        assert sum(len(m.numbers) for m in split) == 14
