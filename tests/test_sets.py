"""Groups and runs with jokers (rules/sets.py).  Cases cite the seed text they come from."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.options import find_variant
from rules.sets import analyse_set, is_valid_set, suggest_missing
from rules.tiles import ALL_FACES, JOKER, Color, Tile, parse_tiles

SABRA = find_variant("sabra")
AMERICAN = find_variant("american")
INTERNATIONAL = find_variant("international")


def verdict(text, options=SABRA):
    return analyse_set(parse_tiles(text), options)


# (set, sabra valid, kind, value, seed source)
CASES = [
    ("B4 B5 B6", True, "run", 15, "004_* leaflet 'Manipulation': blue 4,5,6 on the table"),
    ("B3 B4 B5 B6", True, "run", 18, "004_* leaflet: the player adds a blue 3"),
    ("K8 R8 O8 B8", True, "group", 32, "004_* leaflet: the group of 8's"),
    ("K8 R8 O8", True, "group", 24, "004_*: a group of three tiles of the same number"),
    ("R1 R2 R3", True, "run", 6, "004_* Sabra: 1-2-3 is a valid run"),
    ("R12 R13 R1", False, None, None, "004_* Sabra: 12-13-1 is not"),
    ("R13 R1 R2", False, None, None, "004_* American: 13-1-2 is not valid"),
    ("R5 R6 J", True, "run", 18, "004_* 'The Joker': number and colour of the tile needed"),
    ("K5 B5 J", True, "group", 15, "004_*: group of two equal tiles and a joker"),
    ("R5 J J", True, "run", 18, "004_* 'Variations': two jokers in one set are allowed"),
    ("K5 B5 O5 R5 K5", False, None, None, "004_*: a group has three or four tiles"),
    ("K5 K5 B5", False, None, None, "004_*: groups need different colours"),
    ("R5 R7 R8", False, None, None, "004_*: runs are consecutive numbers"),
    ("R5 K6 B7", False, None, None, "004_*: a run is all one colour"),
    ("R5 R6", False, None, None, "004_*: three or more tiles"),
    ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13", True, "run", 91, "004_*: the longest run"),
    ("R6 R7 R8 R9 R10 R11 R12 R13 J", True, "run", 81, "joker below 6: nothing fits above 13"),
]


@pytest.mark.parametrize("text, valid, kind, value, source", CASES)
def test_sabra_sets(text, valid, kind, value, source):
    v = verdict(text, SABRA)
    assert (v.valid, v.kind, v.value) == (valid, kind, value), source
    assert (v.problem is None) == valid


@pytest.mark.parametrize(
    "text, valid, value",
    [("R12 R13 R1", True, 26), ("R1 R2 R3", True, 6), ("R13 R1 R2", False, None),
     ("J R13 R1", True, 26), ("R12 J R1", True, 26), ("R11 R12 R13 R1", True, 37)],
)
def test_american_one_high_or_low_never_both(text, valid, value):
    # 004_* American: "So 1-2-3 and 12-13-1 are both valid runs, but 13-1-2 is not."
    for options in (AMERICAN, INTERNATIONAL):
        v = verdict(text, options)
        assert (v.valid, v.value) == (valid, value)


@pytest.mark.parametrize(
    "text, options, words",
    [
        ("R12 R13 R1", SABRA, "always low"),
        ("R13 R1 R2", AMERICAN, "not both"),
        ("R5 R6", SABRA, "at least 3"),
        ("K5 K5 B5", SABRA, "black"),
        ("R5 K6 B7", SABRA, "colours differ"),
        ("R5 R8 R9 J", SABRA, "2 missing"),
        ("K5 B5 O5 R5 J", SABRA, "at most 4"),
        ("R5 R5 R6", SABRA, "R5 appears more than once"),
    ],
)
def test_problems_in_plain_words(text, options, words):
    v = verdict(text, options)
    assert not v.valid and words in v.problem


def test_joker_readings_of_a_group_of_three():
    # 004_*: "the joker can be replaced by a tile of either of the missing colors"
    v = verdict("K5 B5 J")
    assert {r[2] for r in v.readings} == {Tile(Color.ORANGE, 5), Tile(Color.RED, 5)}
    assert v.joker_meanings() == [frozenset({Tile(Color.ORANGE, 5), Tile(Color.RED, 5)})]


def test_run_readings_follow_the_order_tiles_lie_in():
    end = verdict("R5 R6 J")
    start = verdict("J R5 R6")
    assert set(end.readings) == {tuple(parse_tiles(t)) for t in ["R5 R6 R7", "R5 R6 R4"]}
    assert end.joker_meanings() == [frozenset({Tile(Color.RED, 7)})]
    assert start.joker_meanings() == [frozenset({Tile(Color.RED, 4)})]
    # 004_*: a joker's "number and colour are that of the tile needed" where it lies
    assert (end.value, start.value) == (18, 15)


@pytest.mark.parametrize("text, value, kind, source", [
    ("J K9 K10", 27, "run", "004_* leaflet: a joker in the initial meld scores the tile it represents (K8)"),
    ("J R5 R6 J", 22, "run", "004_* 'The Joker': its number is that of the tile needed at its place (R4-R7)"),
    ("R7 R6 J", 18, "run", "laid descending, the joker is R5"),
    ("J J R13", 39, "group", "004_* 'Variations': two jokers and one tile are declared group or run; "
                             "the order leaves the choice, the most valuable reading counts"),
    ("R5 J J", 18, "run", "ascending: R5 R6 R7 (more than the group of 5s)"),
])
def test_joker_value_follows_its_place(text, value, kind, source):
    v = verdict(text)
    assert (v.value, v.kind) == (value, kind), source


def test_two_jokers_group_or_run_every_reading():
    # 004_* 'Variations': two jokers and one tile must be declared group or run
    v = verdict("R5 J J")
    kinds = set(v.kinds)
    assert kinds == {"run", "group"}
    assert len([k for k in v.kinds if k == "group"]) == 3  # choose 2 of the 3 missing colours
    assert len([k for k in v.kinds if k == "run"]) == 3  # 3-5, 4-6, 5-7
    assert v.value == 18 and v.kind == "run"


def test_two_jokers_can_be_forbidden():
    assert not verdict("R5 J J", find_variant("sabra", two_jokers_in_set=False)).valid


def test_jokers_beyond_the_box():
    assert "only 2" in verdict("R5 J J J").problem
    v = verdict("R5 J J J", find_variant("xp"))
    assert v.valid


def test_is_valid_set_and_suggest_missing():
    assert is_valid_set(parse_tiles("R1 R2 R3"), SABRA)
    # a run with an unreadable middle tile: only R6 or a joker fits
    assert suggest_missing([Tile(Color.RED, 5), None, Tile(Color.RED, 7)], SABRA) == [Tile(Color.RED, 6), JOKER]
    found = suggest_missing([Tile(Color.RED, 5), Tile(Color.BLACK, 5), None], SABRA)
    assert found == [Tile(Color.BLUE, 5), Tile(Color.ORANGE, 5), JOKER]
    with pytest.raises(ValueError):
        suggest_missing([None, None, Tile(Color.RED, 5)], SABRA)


# ---------------------------------------------------------------- properties

def _plain_valid(tiles, one_high):
    """Reference rules for sets without jokers, written as directly as possible."""
    if len(tiles) < 3:
        return False
    numbers = [t.number for t in tiles]
    colours = [t.color for t in tiles]
    if len(set(numbers)) == 1:
        return len(tiles) <= 4 and len(set(colours)) == len(colours)
    if len(set(colours)) != 1 or len(set(numbers)) != len(numbers):
        return False
    low = sorted(numbers)
    if low[-1] - low[0] == len(low) - 1:
        return True
    high = sorted(14 if n == 1 else n for n in numbers)
    return one_high and high[-1] - high[0] == len(high) - 1


def _order_rank(trial, one_high):
    """0: a group, or a run lying ascending; 1: a run lying descending; 2: lying in no order."""
    numbers = [t.number for t in trial]
    if len(set(numbers)) == 1:
        return 0
    ways = [numbers] + ([[14 if n == 1 else n for n in numbers]] if one_high else [])
    if any(w == list(range(w[0], w[0] + len(w))) for w in ways):
        return 0
    if any(w == list(range(w[0], w[0] - len(w), -1)) for w in ways):
        return 1
    return 2


def _reference(tiles, one_high):
    """Valid if some replacement of the jokers by real faces is valid; the value of the reading
    the tiles' order gives (the highest where the order leaves a choice)."""
    spots = [i for i, t in enumerate(tiles) if t.is_joker]
    found = []
    for faces in itertools.product(ALL_FACES[:52], repeat=len(spots)):
        trial = list(tiles)
        for i, f in zip(spots, faces):
            trial[i] = f
        if _plain_valid(trial, one_high):
            found.append((_order_rank(trial, one_high), sum(t.number for t in trial)))
    if not found:
        return None
    best = min(r for r, _ in found)
    return max(v for r, v in found if r == best)


def _near_sets():
    """Sets that are often valid: a run or group, perturbed, some tiles swapped for jokers."""
    run = st.builds(
        lambda c, s, n: [Tile(c, x) for x in range(s, min(13, s + n - 1) + 1)],
        st.sampled_from(list(Color)), st.integers(1, 13), st.integers(3, 5),
    )
    group = st.builds(
        lambda n, cs: [Tile(c, n) for c in cs],
        st.integers(1, 13), st.lists(st.sampled_from(list(Color)), min_size=3, max_size=4),
    )
    high = st.builds(lambda c: [Tile(c, 12), Tile(c, 13), Tile(c, 1)], st.sampled_from(list(Color)))
    return st.one_of(run, group, high, st.lists(st.sampled_from(ALL_FACES[:52]), min_size=2, max_size=5))


@settings(max_examples=150, deadline=None)
@given(_near_sets(), st.lists(st.integers(0, 4), max_size=2, unique=True), st.booleans(), st.randoms())
def test_matches_the_brute_force_reference(tiles, joker_spots, one_high, rnd):
    tiles = list(tiles)
    for i in joker_spots:
        if i < len(tiles):
            tiles[i] = JOKER
    rnd.shuffle(tiles)
    options = find_variant("american" if one_high else "sabra")
    v = analyse_set(tiles, options)
    expected = _reference(tiles, one_high)
    assert v.valid == (expected is not None)
    if expected is not None and any(not t.is_joker for t in tiles):
        assert v.value == expected
        for reading in v.readings:
            assert _plain_valid(list(reading), one_high)
            assert [a for a in reading if not a.is_joker] != [] and all(
                a == b for a, b in zip(reading, tiles) if not b.is_joker
            )


@settings(max_examples=100, deadline=None)
@given(_near_sets(), st.permutations(list(Color)))
def test_colour_permutation_keeps_validity(tiles, perm):
    swapped = [Tile(perm[t.color], t.number) for t in tiles]
    a, b = analyse_set(tiles, SABRA), analyse_set(swapped, SABRA)
    assert (a.valid, a.kind, a.value) == (b.valid, b.kind, b.value)


@settings(max_examples=100, deadline=None)
@given(_near_sets(), st.randoms())
def test_order_does_not_change_validity_or_value(tiles, rnd):
    shuffled = list(tiles)
    rnd.shuffle(shuffled)
    a, b = analyse_set(tiles, SABRA), analyse_set(shuffled, SABRA)
    assert (a.valid, a.value) == (b.valid, b.value)


@pytest.mark.parametrize("codes, doubted", [
    ("K9 K9 K9", (0, 1, 2)),  # a group read in one colour: any two of them may be the others
    ("K7 K7 K7 K7", (0, 1, 2, 3)),
    ("K9 K9 R9", (0, 1)),  # the red one is not in question
    ("K9 J K9", (0, 2)),
    ("R5 R6 K7 R8", (2,)),  # a run with one tile off its colour
    ("K9 K9 K10", ()),  # the numbers alone rule it out
    ("K5 K6 K8", ()),
    ("R5 K5 B5 O5 K5", ()),  # five 5s: no colours make a group of them
    ("K3 K4 K5", ()),  # valid as read
])
def test_the_tiles_whose_colours_decide_an_invalid_set(codes, doubted):
    from rules.sets import colours_in_doubt
    assert colours_in_doubt(parse_tiles(codes), find_variant("sabra")) == doubted
